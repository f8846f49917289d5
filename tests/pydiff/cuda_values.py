"""Reading the constants a kernel stores back from tirxc's `.cu` text.

The probe kernel's body is straight-line stores of constants, `out_ptr[k] = <int>;` and
`outf_ptr[k] = <float>;`, printed by codegen/cuda.py: int64 constants as `5LL`, `(-5LL)`
(parenthesised below the top of an expression only) and `(-9223372036854775807LL - 1)`;
float64 constants as the shortest decimal that reads back as the double (Python's repr
digits, with a `.` always and `e-7` style exponents), `CUDART_NAN`, `CUDART_INF` and
`-CUDART_INF`. Anything else (a cast, a variable) is not a constant: `UNPARSED`."""
from __future__ import annotations

import re

_STORE = re.compile(r"^\s*(out|outf)_ptr\[(\d+)\] = (.*);\s*$")
_INT = re.compile(r"^(-?\d+)(LL)?$")
_FLOAT = re.compile(r"^-?\d+\.\d*(e[-+]?\d+)?$")
INT64_MIN_TEXT = "-9223372036854775807LL - 1"


class _Unparsed:
    def __repr__(self) -> str:
        return "UNPARSED"


UNPARSED = _Unparsed()


def _strip_parens(text: str) -> str:
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    return text


def parse_int(text: str):
    text = _strip_parens(text.strip())
    if text == INT64_MIN_TEXT:
        return -2 ** 63
    match = _INT.match(text)
    if match is None:
        return UNPARSED
    value = int(match.group(1))
    return value if -2 ** 63 <= value < 2 ** 63 else UNPARSED


def parse_float(text: str):
    text = _strip_parens(text.strip())
    if text == "CUDART_NAN":
        return float("nan")
    if text in ("CUDART_INF", "-CUDART_INF"):
        return float(text.replace("CUDART_INF", "inf"))
    if _FLOAT.match(text):
        return float(text)
    return UNPARSED


def stores(cuda: str) -> dict[tuple[str, int], list]:
    """(buffer, index) -> the parsed value of every store to it, in order ("i"/"f" buffers)."""
    found: dict[tuple[str, int], list] = {}
    for line in cuda.splitlines():
        match = _STORE.match(line)
        if match is None:
            continue
        buffer = "i" if match.group(1) == "out" else "f"
        value = (parse_int if buffer == "i" else parse_float)(match.group(3))
        found.setdefault((buffer, int(match.group(2))), []).append(value)
    return found


def same_float(a: float, b: float) -> bool:
    """Bitwise equal, except that every nan equals every nan (CUDART_NAN has no sign or payload;
    the sign of a nan is not observed)."""
    import struct
    if a != a and b != b:
        return True
    return struct.pack("<d", a) == struct.pack("<d", b)
