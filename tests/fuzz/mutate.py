"""The mutation fuzzer: every sample and every `.tx` file of the test suites,
changed in one to four places at a time.

`mutant(rng, seeds)` is a pure function of the random generator's state, so
input number i of a campaign with seed s is `mutant(Random(f"{s}:{i}"), ...)`
and any finding can be regenerated from its number.

Mutations work on tokens (replace with a dictionary entry -- since 2026-12-01 also
8- and 16-bit arithmetic that wraps, clz / popcount / abs of narrow values, folds
with NaN, calls with side effects in chained comparisons, ceildiv, min / max and
loop bounds, dtype strings with a newline -- or another token of the file, drop,
double), on lines (drop, duplicate, swap, re-indent, splice a
line from another seed file), on numbers (boundary values: 0, -1, 2**31 - 1,
2**31, 2**63, 2**64, 10**30 ...), on names (rename every occurrence of a name
to a hostile one: C and CUDA keywords, generated names, Python builtins),
on module constants (doubled by `+` or squared by `*` dozens of times over), and
rarely on bytes (insert, flip, truncate).
"""
from __future__ import annotations

import random
import re

TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|0[xXoObB][0-9A-Fa-f_]+|\d[\d_]*\.?\d*(?:[eE][-+]?\d+)?|\"\"\"|'''"
                   r"|\"[^\"\n]*\"|'[^'\n]*'|\*\*|//|<<|>>|[<>=!]=|\S")
NAME = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
NUMBER = re.compile(r"(?<![\w.])\d[\d_]*(?:\.\d*)?(?:[eE][-+]?\d+)?(?![\w.])")

BOUNDARY_NUMBERS = [
    "0", "1", "-1", "2", "3", "7", "8", "31", "32", "33", "63", "64", "65", "127", "128", "255", "256", "1023",
    "1024", "1025", "4096", "32768", "49152", "65535", "65536", "232448", "2147483647", "2147483648",
    "-2147483648", "-2147483649", "4294967295", "4294967296", "9223372036854775807", "9223372036854775808",
    "18446744073709551615", "18446744073709551616", "10**30", "99999999999999999999999999999999999999",
    "0x7FFFFFFF", "0xFFFFFFFF", "0x80000000", "0b1", "0o777", "1_000", "0.0", "-0.0", "0.5", "1e-45", "1e-46",
    "3.4028235e38", "3.5e38", "1e308", "1e309", "65504.0", "65520.0", "1.0e-8", "2**31", "1 << 31", "1 << 62",
    "46341", "(-1)", "1" + "0" * 400, "-1" + "0" * 400, "0x" + "f" * 1200, "1e400", "-1e400", "0x" + "f" * 17,
]

HOSTILE_NAMES = [
    # C, C++ and CUDA keywords and types
    "int", "float", "double", "char", "long", "short", "unsigned", "signed", "void", "const", "static",
    "struct", "union", "enum", "typedef", "sizeof", "goto", "switch", "case", "default", "do", "auto",
    "register", "volatile", "extern", "inline", "restrict", "new", "delete", "this", "template", "typename",
    "namespace", "class", "operator", "friend", "virtual", "using", "asm", "typeof", "decltype", "nullptr",
    "constexpr", "alignas", "alignof", "noexcept", "throw", "try", "catch", "xor", "bitand", "bitor", "compl",
    "and_eq", "or_eq", "xor_eq", "not_eq", "char8_t", "concept", "requires", "co_await", "co_yield",
    "co_return", "consteval", "constinit", "_Bool", "_Pragma", "_Alignas", "_Complex", "_Atomic",
    "float4", "float2", "float3", "float1", "int4", "uint4", "double2", "char4", "uchar4", "short2", "ushort4",
    "longlong2", "ulonglong4", "dim3", "half", "half2", "nv_bfloat16", "nv_bfloat162", "bool", "true", "false",
    "uint32_t", "int64_t", "size_t", "ptrdiff_t", "uint", "ulong", "ushort", "uchar",
    # CUDA built-ins and functions the printer emits
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "printf", "main", "assert", "min", "max",
    "abs", "expf", "exp", "sqrtf", "sqrt", "floorf", "fabsf", "hexp", "atomicAdd", "atomicCAS", "atomicMax",
    "__syncthreads", "__shfl_sync", "__shfl_xor_sync", "__trap", "__float2half", "make_float4", "memcpy",
    "__clz", "__popc", "llabs", "tanhf", "powf", "fmaf", "isnan", "isinf", "signbit",
    # macros of the C library and the CUDA headers (and GNU's predefined ones)
    "NULL", "EOF", "INFINITY", "NAN", "CHAR_BIT", "INT_MAX", "FLT_MAX", "CUDART_INF_F", "CUDART_NAN_F",
    "CUDART_PI_F", "offsetof", "stdout", "stderr", "errno", "linux", "unix", "alloca", "HUGE_VAL", "M_PI",
    # generated names
    "tirx_floordiv", "tirx_floormod", "tirx_bits", "tirx_elect_sync", "tirx_x", "A_ptr", "B_ptr", "sm_ptr",
    "k_kernel", "tx", "bx", "__half", "__x",
    # Python and launcher internals
    "os", "tempfile", "threading", "annotations", "KERNELS", "SOURCE_FILE", "CUDA_SOURCE", "MIN_ARCH",
    "ARCH_SUFFIX", "_Kernel", "_DTYPES", "_describe", "_module", "_modules", "_as_stream", "_NullContext",
    "cupy", "numpy", "__all__", "__name__", "__doc__", "__builtins__", "__getattr__", "self", "args",
    "stream", "len", "int_", "tuple", "isinstance", "getattr", "TypeError", "ValueError", "range", "print",
    "exec", "eval", "open", "__import__", "match", "type", "_",
    # unicode
    "\u00e9t\u00e9", "\u6838", "\u03b1", "\uff21",
]

STRINGS = [
    '"float32"', '"float16"', '"bfloat16"', '"float64"', '"int8"', '"uint8"', '"int16"', '"int32"', '"int64"',
    '"uint32"', '"uint64"', '"bool"', '"float32x4"', '"float16x2"', '"int32x4"', '"float8_e4m3fn"',
    '"float4_e2m1fn"', '"handle"', '"void"', '"shared"', '"shared.dyn"', '"local"', '"global"', '"tmem"',
    '"warp"', '""', '"%d\\n"', '"%s"', '"%f %d"', '"%n"', '"\\\\"', '"\\n\\r\\t"', '"*/"', '"\\x00"', '"??/"',
    '"\\ud800"', '"\\U0010ffff"', '"\u202e"', '"a\\\nb"', "'\"\"\"'", '"__device__ void f() {}"',
    'r"""\n#include <x>\n"""', '"default"', '"int8\\n"', '"float32\n"', '"uint8 "', '"int16\\x00"',
]

EXPRESSIONS = [
    "None", "True", "False", "T", "T.cuda", "T.int32", "T.float32", "T.float16", "T.let", "T.handle",
    "T.float32(1)", "T.int64(5)", "T.uint32(7)", "T.bool(True)", "(1, 2)", "[]", "()", "[0]", "{}", "(1,)",
    "A", "A.data", "A[0]", "A.view(-1)", "A.ptr_to([0])", "x", "n", "i", "tx", "bx", "1 // 0", "1 % 0",
    "1 << 40", "-(-2147483648)", "layout=None", "T.cast(tx, \"float16\")", "T.reinterpret(tx, \"float32\")",
    "T.exp(1.0)", "T.max(1, 2)", "T.floordiv(tx, 0)", "T.ceildiv(tx, 3)", "T.if_then_else(tx < 1, 1, 2)",
    "lambda: 0", "f(x)", "x if x else y", "not x", "x and y", "-x", "~x", "x ** 2", "x @ y",
    "T.uint8(200) + T.uint8(100)", "(T.uint8(200) + T.uint8(100)) // 2", "~T.uint8(0) >> 4", "T.int8(-128) // -1",
    "T.int16(-32768) % T.int16(-1)", "T.int32(T.uint32(4294967295)) // 2", "T.clz(T.int8(1))",
    "T.popcount(T.int16(-1))",
    "T.abs(T.uint32(5))", "T.abs(T.int8(-128))", "T.cast(T.int64(1152921573326323713), \"float32\")",
    "T.min(T.float32(1e400) - T.float32(1e400), 1.0)", "T.truncdiv(T.int8(-7), 2)", "T.uint16(65535) * T.uint16(65535)",
    "0 < T.cuda.atomic_add(A.ptr_to([0]), 1) < 10", "T.ceildiv(tx, T.cuda.atomic_add(A.ptr_to([0]), 1))",
    "T.max(T.cuda.atomic_add(A.ptr_to([0]), 1), tx)", "T.cuda.atomic_add(A.ptr_to([0]), 1) * 0",
    "T.thread_id([32])", "T.cta_id([2])", "T.alloc_shared((64,), \"float32\")", "T.alloc_local((4,))",
    "T.decl_buffer((4,), \"float32\", data=A.data)", "T.device_entry()", "T.cuda.cta_sync()", "T.grid(2, 2)",
    "T.unroll(4)", "T.serial(3)", "range(10)", "range(0, 10, -1)", "range(5, 0, -2)", "T.meta_var(3)",
    "TileLayout(S[(4, 8):(1, 4)])", "S[4:1]", "T.cuda.printf(\"%d\", tx)", "T.tvm_warp_shuffle(0, tx, 1, 32, 32)",
]

OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "~", "<", "<=", ">", ">=", "==",
             "!=", "and", "or", "not", "in", "is", "=", ":", ",", ".", "(", ")", "[", "]", ":=", "->", "@",
             "+=", "-=", "*=", "//=", "lambda", "yield", "return", "pass", "break", "continue", "global", "del",
             "if", "else", "elif", "for", "while", "with", "def", "class", "import", "from", "as", "assert"]

STATEMENTS = [
    "pass", "break", "continue", "return", "T.device_entry()", "T.cuda.cta_sync()", "T.cuda.warp_sync()",
    "assert tx < 100000, \"message with \\\\ and \\n and */ */\"", "assert False", "assert 1 == 1, \"ok\"",
    "T.cuda.printf(\"%d %f\\n\", tx, T.float32(1))", "T.cuda.printf(\"%s\", tx)", "x: T.float32 = 0.0",
    "y: T.int32 = tx", "z: T.let = tx * 2", "w = T.alloc_local((4,), \"float32\")",
    "s = T.alloc_shared((1 << 20,), \"float32\")", "q = T.alloc_shared((64,), \"float32\", scope=\"shared.dyn\")",
    "for i in range(4):\n        pass", "while True:\n        break", "if tx < 1:\n        pass\n    else:\n        pass",
    "with T.block():\n        pass", "T.evaluate(0)", "T.func_attr({\"global_symbol\": \"main\"})",
    "T.hint(\"*/ #include <stdio.h>\")", "import os", "os.system(\"touch /tmp/pwned\")", "print(1)",
    "exec(\"print(1)\")", "__import__(\"os\").system(\"echo pwned\")", "del x", "global g", "x = yield",
    "lambda: 0", "class C:\n        pass", "def f():\n        pass", "async def f():\n        pass",
    "T.static_assert(1 == 2, \"no\")", "T.cuda.atomic_add(A.ptr_to([0]), T.float32(1))",
    "for i in range(T.cuda.atomic_add(A.ptr_to([0]), 1)):\n        pass",
    "if 0 <= T.cuda.atomic_add(A.ptr_to([0]), 1) < 4:\n        pass", "t: T.uint8 = T.uint8(250) + T.uint8(10)",
    "u: T.int16 = T.int16(-32768) - T.int16(1)",
]


def _tokens(text: str):
    return [m.span() for m in TOKEN.finditer(text)]


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def mutate_once(rng: random.Random, text: str, seeds: list[tuple[str, str]]) -> str:
    roll = rng.random()
    lines = text.split("\n")
    if roll < 0.40:  # token level
        spans = _tokens(text)
        if not spans:
            return text + rng.choice(STATEMENTS)
        start, end = rng.choice(spans)
        how = rng.random()
        if how < 0.25:
            new = rng.choice(EXPRESSIONS)
        elif how < 0.35:
            new = rng.choice(OPERATORS)
        elif how < 0.45:
            new = rng.choice(STRINGS)
        elif how < 0.55:
            new = rng.choice(HOSTILE_NAMES)
        elif how < 0.7:
            new = ""
        elif how < 0.85:
            other = rng.choice(spans)
            new = text[other[0]:other[1]]
        else:
            new = text[start:end] * 2
        return text[:start] + new + text[end:]
    if roll < 0.50:  # numbers
        numbers = list(NUMBER.finditer(text))
        if not numbers:
            return text
        m = rng.choice(numbers)
        return text[:m.start()] + rng.choice(BOUNDARY_NUMBERS) + text[m.end():]
    if roll < 0.60:  # rename a name everywhere
        names = sorted(set(NAME.findall(text)))
        if not names:
            return text
        old = rng.choice(names)
        new = rng.choice(HOSTILE_NAMES) if rng.random() < 0.8 else rng.choice(names)
        return re.sub(rf"\b{re.escape(old)}\b", lambda _: new, text)
    if roll < 0.85:  # lines
        if not lines:
            return text
        i = rng.randrange(len(lines))
        how = rng.random()
        if how < 0.2:
            del lines[i]
        elif how < 0.35:
            lines.insert(i, lines[i])
        elif how < 0.45:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif how < 0.55:
            lines[i] = rng.choice(["", " ", "  ", "    ", "\t", "        "]) + lines[i].lstrip()
        elif how < 0.8:  # splice a line from another seed at this line's indentation
            _, other = rng.choice(seeds)
            other_lines = [l for l in other.split("\n") if l.strip()]
            if other_lines:
                count = 1 if rng.random() < 0.7 else rng.randint(2, 8)
            else:
                count = 0
            if count:
                k = rng.randrange(len(other_lines))
                chunk = other_lines[k:k + count]
                base = _indent_of(chunk[0])
                here = _indent_of(lines[i])
                chunk = [here + l[len(base):] if l.startswith(base) else here + l.lstrip() for l in chunk]
                lines[i:i] = chunk
        else:  # a statement from the dictionary at this line's indentation
            lines.insert(i, _indent_of(lines[i]) + rng.choice(STATEMENTS))
        return "\n".join(lines)
    if roll < 0.87:  # amplify a module-level constant: doubling lines (`S1 = S0 + S0` ...)
        assigns = [i for i, l in enumerate(lines) if re.match(r"^[A-Za-z_]\w* = ", l)]
        if not assigns:
            return text
        i = rng.choice(assigns)
        name = lines[i].split(" = ", 1)[0]
        op = rng.choice(("+", "*"))
        extra = [f"{name}_{k + 1} = {name}_{k} {op} {name}_{k}" for k in range(rng.randint(5, 45))]
        lines[i + 1:i + 1] = [f"{name}_0 = {name}"] + extra + [f"{name} = {name}_{len(extra)}"
                                                           if rng.random() < 0.5 else ""]
        return "\n".join(lines)
    if roll < 0.92:  # repeat a block of lines (many kernels, long bodies)
        if len(lines) < 2:
            return text
        i = rng.randrange(len(lines))
        j = min(len(lines), i + rng.randint(1, 12))
        lines[j:j] = lines[i:j] * rng.randint(1, 20)
        return "\n".join(lines)
    # bytes / characters
    how = rng.random()
    if how < 0.3:
        cut = rng.randrange(len(text) + 1)
        return text[:cut]
    pos = rng.randrange(len(text) + 1)
    if how < 0.7:
        junk = rng.choice(["\x00", "\t", "\r", "\r\n", "\\", "\\\n", "\x0c", "\x1b[2J", "\u00a0", "\u202e", "\ufeff",
                           "#", "'", '"', '"""', "(", ")", "[", "]", "{", "}", ":", "\n", "\n\n", "    ", "$",
                           "`", "\u2028", "\U0001F600", chr(rng.randrange(0x20, 0x7f))])
        return text[:pos] + junk + text[pos:]
    if text:
        pos = min(pos, len(text) - 1)
        return text[:pos] + chr((ord(text[pos]) ^ (1 << rng.randrange(7))) or 1) + text[pos + 1:]
    return text


def mutant(rng: random.Random, seeds: list[tuple[str, str]]) -> tuple[str, str]:
    """(seed file name, mutated text)."""
    name, text = rng.choice(seeds)
    for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4))):
        text = mutate_once(rng, text, seeds)
    return name, text
