"""Which identifiers the generated C may use for names from the `.tx` file.

A source name becomes a C name unchanged when that is safe, and gets a `_`
suffix when it is not (`int` -> `int_`, `threadIdx` -> `threadIdx_`); the
checker's `fresh` then adds `_1`, `_2` ... on collisions. A name is not safe
when it is:

* a C or C++ keyword or alternative token (`int`, `typeof`, `xor`, `not_eq`),
  or reserved to the implementation (starts with `__`, or `_` and a capital);
* a CUDA built-in variable or type (`threadIdx`, `float4`, `dim3`, `half`);
* a function the printer may call (`expf`, `atomicAdd`, `printf`, `min`), or a
  name of tirxc's own helpers (anything starting with `tirx_`: `tirx_x` becomes
  `utirx_x_`);
* a macro of the C library or the CUDA headers: lower-case ones are listed
  (`linux`, `errno`, `stdout`, `offsetof` ...), and every all-capitals name of
  three or more characters is treated as one (`NULL`, `EOF`, `INFINITY`,
  `CHAR_BIT`, `CUDART_INF_F` ...), as is anything starting with `cuda` and a
  capital (the runtime API);
* a function, macro or type that a `T.cuda.func_call` source of the same file
  defines (`source_code_names`), or a name passed to `T.cuda.func_call`;
* not ASCII: NVRTC accepts no other identifiers (`été` -> `u00e9tu00e9`).

Kernel names are not renamed (the launcher exports them under their own
name); the checker rejects the ones that cannot work (see `check.py`).
"""
from __future__ import annotations

import re

_KEYWORDS = """
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t class
co_await co_return co_yield compl concept const const_cast consteval constexpr constinit continue decltype
default delete do double dynamic_cast else enum explicit export extern false float for friend goto if inline
int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public register
reinterpret_cast requires restrict return short signed sizeof static static_assert static_cast struct switch
template this thread_local throw true try typedef typeid typename typeof union unsigned using virtual void
volatile wchar_t while xor xor_eq
"""

_CUDA = """
threadIdx blockIdx blockDim gridDim warpSize dim3 half half2 nv_bfloat16 nv_bfloat162 nv_half nv_half2
main printf assert malloc free memcpy memset clock clock64 min max abs llabs labs fabs fmin fmax fminf fmaxf
atomicAdd atomicSub atomicExch atomicMin atomicMax atomicInc atomicDec atomicCAS atomicAnd atomicOr atomicXor
size_t ptrdiff_t intptr_t uintptr_t nullptr_t max_align_t int8_t int16_t int32_t int64_t uint8_t uint16_t
uint32_t uint64_t uint ushort ulong uchar std
linux unix i386 errno stdin stdout stderr offsetof alloca math_errhandling isascii toascii major minor makedev
signbit isnan isinf isfinite isnormal fpclassify isgreater isless
"""

_VECTOR_BASES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong", "ulonglong",
                 "float", "double")

# The T.* math functions, as the printer spells them for each dtype (exp -> exp, expf, hexp).
_MATH = """
exp exp2 exp10 log log2 log10 log1p sqrt rsqrt sin cos tan tanh sinh cosh asin acos atan atan2 erf pow fabs
floor ceil round trunc nearbyint fma fmod hypot copysign sigmoid
"""


def _reserved() -> frozenset:
    names = set(_KEYWORDS.split()) | set(_CUDA.split())
    for base in _VECTOR_BASES:
        names.update(f"{base}{n}" for n in range(1, 5))
    for name in _MATH.split():
        names.update((name, name + "f", "h" + name))
    return frozenset(names)


RESERVED = _reserved()
_MACRO_LIKE = re.compile(r"^(?:[A-Z][A-Z0-9_]{2,}|cuda[A-Z]\w*|CU\w*)$")
_ASCII_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def is_safe(name: str, extra: frozenset | set = frozenset()) -> bool:
    """True when `name` can be used as a C name for a source name as it is."""
    return not (name in RESERVED or name in extra or name.startswith(("__", "tirx_"))
                or (len(name) > 1 and name[0] == "_" and name[1].isupper())
                or _MACRO_LIKE.match(name) or not _ASCII_IDENT.match(name))


def ascii_name(name: str) -> str:
    """An ASCII spelling of an identifier: other characters as `u` and their code point."""
    if name.isascii():
        return name
    return "".join(c if c.isascii() else f"u{ord(c):04x}" for c in name)


def c_name(name: str, extra: frozenset | set = frozenset()) -> str:
    """The C spelling of a source name before de-duplication: itself when safe,
    else with a `_` suffix (and a `u` prefix for `_X...` and `tirx_...`)."""
    name = ascii_name(name)
    if is_safe(name, extra):
        return name
    if not _ASCII_IDENT.match(name):  # cannot happen for a parsed identifier; stay valid anyway
        name = "v_" + re.sub(r"\W", "_", name)
    elif len(name) > 1 and name[0] == "_" and name[1].isupper() or name.startswith("tirx_"):
        name = "u" + name  # a suffix would leave it reserved (`_X_`) or in tirxc's space (`tirx_x_`)
    name = name + "_"
    while name in RESERVED or name in extra:
        name = name + "_"
    return name


_COMMENT_OR_STRING = r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'"
_DEFINE = r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)"
_TOKEN = r"[A-Za-z_]\w*|[{}()\[\];=,]|#[^\n]*"


def source_code_names(source: str) -> set[str]:
    """Names a piece of inline CUDA (a `T.cuda.func_call` source) may declare at
    file scope: its macros, and the identifiers outside every `{...}` that
    precede `(`, `;`, `=`, `[` or `,` (functions, variables) or follow
    `struct`/`class`/`union`/`enum`/`typedef`. Over-approximate on purpose: a
    parameter name caught as well only costs a `_` suffix."""
    names = set(re.findall(_DEFINE, source, re.M))
    text = re.sub(_COMMENT_OR_STRING, " ", source, flags=re.S)
    depth = 0
    previous = None
    for match in re.finditer(_TOKEN, text):
        token = match.group()
        if token.startswith("#"):
            previous = None
            continue
        if token == "{":
            depth += 1
        elif token == "}":
            depth = max(0, depth - 1)
        elif depth == 0 and previous is not None and token in "([;=,":
            names.add(previous)
        if depth == 0 and (token[0].isalpha() or token[0] == "_"):
            if previous in ("struct", "class", "union", "enum", "typedef"):
                names.add(token)
            previous = token
        else:
            previous = None
    return {n for n in names if n not in _KEYWORDS.split()}


# The fixed-width integer names of <cstdint>, with the dtype each denotes in tirxc's output.
FIXED_WIDTH = {"int8_t": "int8", "uint8_t": "uint8", "int16_t": "int16", "uint16_t": "uint16",
               "int32_t": "int32", "uint32_t": "uint32", "int64_t": "int64", "uint64_t": "uint64"}
_FIXED_WIDTH_USE = re.compile(r"\b(u?int(?:8|16|32|64)_t)\b")


def fixed_width_names(source: str) -> list[str]:
    """The fixed-width integer names a piece of inline CUDA uses (comments and strings
    aside), in FIXED_WIDTH's order."""
    used = set(_FIXED_WIDTH_USE.findall(re.sub(_COMMENT_OR_STRING, " ", source, flags=re.S)))
    return [name for name in FIXED_WIDTH if name in used]
