"""The grammar-aware generator: whole `.tx` files built from the TIRx subset
tirxc supports, mostly well typed, so that most of them get through the
checker and lowering and their `.cu` can be compiled with nvcc.

The generator draws every decision through a small `Draw` interface, so the
same code runs under Hypothesis (`kernel_files()`, a strategy: shrinking,
`derandomize=True` in CI) and from a seeded `random.Random` (`RandomDraw`:
fast and reproducible from a number, for the long campaign in campaign.py).

What it makes: one to three kernels per file; buffer parameters as
`T.handle` + `T.match_buffer` or `T.Buffer(...)` annotations, with constant
or symbolic extents, layouts, element offsets and alignments; scalar
parameters; a 1-3 dimensional grid and block, warp and lane ids; bodies of
typed expressions (int, float, half, 64-bit, unsigned, bool; 8- and 16-bit
integers with every operator, casts between all integer widths, clz / popcount /
abs on each, narrowed values widened again, comparisons of narrow sums), buffer loads
and stores, scalars (`x: T.float32 = ...`, `T.let`, `T.local_scalar`),
shared and register arrays, the dynamic shared arena with views, loops
(`range`, `T.serial`, `T.unroll`, `T.grid`, `while` with break/continue),
branches, barriers, printf with hostile format strings, asserts with
hostile messages, atomics, warp shuffles, vector loads and stores, and
`T.cuda.func_call` with inline CUDA. Calls with side effects (atomics, func_call)
also go where a printer might write an operand twice or re-evaluate it: chained
comparisons, T.ceildiv, T.min / T.max, selects, floor division and modulo, abs /
clz / popcount, products with 0, loop bounds (`range`, `T.serial`) and `while`
conditions (harness.check_input counts them in the CUDA: tests/fuzz/effects.py). Names are usually plain and sometimes
hostile (C keywords, CUDA built-ins, generated names). A small fraction of
decisions is deliberately wrong (a dtype mix, an unknown name), to keep
the error paths busy too.
"""
from __future__ import annotations

import random

from hypothesis import strategies as st

from .mutate import HOSTILE_NAMES

# -- the Draw interface ---------------------------------------------------------------------------------


class RandomDraw:
    def __init__(self, rng: random.Random):
        self.rng = rng

    def int(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def choice(self, seq):
        return seq[self.rng.randrange(len(seq))]

    def bool(self, p: float = 0.5) -> bool:
        return self.rng.random() < p


class HypothesisDraw:
    """Decisions drawn through Hypothesis (`draw` of `st.composite`, or
    `data.draw` of `st.data()`), so that failures shrink."""

    def __init__(self, draw):
        self.draw = draw

    def int(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def choice(self, seq):
        return seq[self.draw(st.integers(0, len(seq) - 1))]

    def bool(self, p: float = 0.5) -> bool:
        # integers shrink towards 0, i.e. towards "no": the smaller program
        return self.draw(st.integers(0, 999)) >= 1000 - int(p * 1000)


# -- tables ----------------------------------------------------------------------------------------------

FLOATS = ("float32", "float16", "float64", "bfloat16")
INTS = ("int32", "int64", "uint32", "int8", "uint8", "int16", "uint16", "uint64")
NARROW = ("int8", "uint8", "int16", "uint16")
_BITS = {"int8": 8, "uint8": 8, "int16": 16, "uint16": 16, "int32": 32, "uint32": 32, "int64": 64, "uint64": 64}
BUFFER_DTYPES = ("float32",) * 6 + ("int32",) * 4 + ("float16",) * 2 + FLOATS + INTS
PLAIN_NAMES = ("a", "b", "c", "v", "w", "acc", "tmp", "s", "t0", "t1", "val", "res", "x", "y", "z", "k2", "idx",
               "q", "r", "m0")
# Hostile names that the parser accepts as identifiers (Python keywords are rejected before checking).
_PY_KEYWORDS = {"False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
                "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in",
                "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"}
NAMES_HOSTILE = tuple(n for n in HOSTILE_NAMES if n.isidentifier() and n not in _PY_KEYWORDS and n != "T")
MATH1 = ("exp", "exp2", "log", "log2", "sqrt", "rsqrt", "sin", "cos", "tanh", "fabs", "floor", "ceil", "round",
         "trunc", "sigmoid", "erf", "log1p", "abs")
MATH2 = ("pow", "atan2", "fmod", "hypot", "copysign")
FORMAT_PIECES = ("%d", "%f", "%%", "\\n", "\\t", "\\\\", "\\\"", "'", "*/", "/*", "//", "??/", "??=", "\\x01",
                 "\u00e9", "\u4e2d", "\U0001F600", " ", "x", "#include <stdio.h>", "\\u202e", "%5d", "%-8.3f",
                 "\\\nnext", "\\r", "\\0")
# Source text inside a double-quoted literal (so `\\"` is an escaped quote).
MESSAGE_PIECES = ("ok", "*/", "/*", "\\\\", "\\n", "\\r", "\\t", "\\x00", "\\\"", "'", "??/", "\u00e9", "}", "{",
                  ";", "__trap();", "#define x", "\\u2028", "\\x85", "\\x0c", "end\\\\", " ", "\\x1b[2J", "\\ud800")


def _float_text(draw) -> str:
    if draw.bool(0.01):  # an integer beyond the double range, in a float context
        return draw.choice(("1" + "0" * 400, "-1" + "0" * 310, "0x" + "f" * 300))
    return draw.choice(("0.0", "1.0", "2.0", "0.5", "-1.5", "3.25", "1e-3", "65504.0", "1e30", "1e-40",
                        "3.4028235e38", "0.1", "-0.0", "100.0", "1e308", "7.0"))


def _int_text(draw, wide: bool = False) -> str:
    if draw.bool(0.85):
        return str(draw.int(0, 9) if draw.bool(0.6) else draw.int(-64, 300))
    values = ["0", "1", "-1", "31", "32", "255", "1024", "65535", "2147483647", "-2147483648", "0x7FFFFFFF",
              "0xFF", "0b101", "0o17", "1_000"]
    if wide:
        values += ["4294967295", "9223372036854775807", "-9223372036854775808", "2147483648"]
    return draw.choice(values)


class Scope:
    def __init__(self, parent=None):
        self.parent = parent
        self.vars: list[tuple[str, str, bool]] = []  # (name, dtype, mutable)
        self.bufs: list[dict] = []

    def all_vars(self):
        scope, out = self, []
        while scope is not None:
            out = scope.vars + out
            scope = scope.parent
        return out

    def all_bufs(self):
        scope, out = self, []
        while scope is not None:
            out = scope.bufs + out
            scope = scope.parent
        return out


class KernelGen:
    def __init__(self, draw, module: "FileGen", name: str):
        self.d = draw
        self.module = module
        self.name = name
        self.lines: list[str] = []
        self.used: set[str] = {"T", "range", name}
        self.scope = Scope()
        self.threads = 1
        self.arena = None
        self.loop_depth = 0
        self.unrolled = 0  # enclosing T.unroll loops: no break / continue there
        self.statements = 0
        self.top = True

    # -- names ------------------------------------------------------------------------------------------
    def fresh(self, base: str | None = None) -> str:
        d = self.d
        for _ in range(20):
            if d.bool(0.08):
                name = d.choice(NAMES_HOSTILE)
            else:
                name = base or d.choice(PLAIN_NAMES)
                if name in self.used:
                    name = f"{name}{d.int(0, 99)}"
            if name not in self.used and name not in self.module.globals:
                self.used.add(name)
                return name
        name = f"v{len(self.used)}"
        self.used.add(name)
        return name

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    # -- expressions ------------------------------------------------------------------------------------
    def vars_of(self, dtype: str, mutable: bool | None = None):
        return [n for n, t, m in self.scope.all_vars() if t == dtype and (mutable is None or m == mutable)]

    def bufs(self, *, dtype: str | None = None, writable: bool | None = None, direct: bool = True):
        out = []
        for b in self.scope.all_bufs():
            if dtype is not None and b["dtype"] != dtype:
                continue
            if writable is not None and b["writable"] != writable:
                continue
            out.append(b)
        return out

    def index(self, buf: dict, depth: int) -> str:
        parts = []
        for extent in buf["shape"]:
            if self.d.bool(0.7):
                base = self.int_expr(depth + 1)
                parts.append(f"({base}) % {extent}" if self.d.bool(0.9) else base)
            elif isinstance(extent, int) and self.d.bool(0.9):
                parts.append(str(self.d.int(0, extent - 1)))
            else:
                parts.append(_int_text(self.d) if self.d.bool(0.5) else "0")
        return ", ".join(parts)

    def load(self, buf: dict, depth: int) -> str:
        return f"{buf['name']}[{self.index(buf, depth)}]"

    def named_leaf(self, dtype: str, depth: int) -> str | None:
        """A variable or a buffer element of `dtype` for a leaf, or None for a literal."""
        d = self.d
        options = self.vars_of(dtype)
        bufs = self.bufs(dtype=dtype)
        roll = d.int(0, 9)
        if options and roll < 5:
            return d.choice(options)
        if bufs and roll < 7 and depth < 4:
            return self.load(d.choice(bufs), depth + 1)
        return None

    def int_expr(self, depth: int = 0, dtype: str = "int32") -> str:
        d = self.d
        leaf = depth >= 3 or d.bool(0.35)
        if leaf:
            named = self.named_leaf(dtype, depth)
            if named is not None:
                return named
            text = _int_text(d, wide=dtype in ("int64", "uint64"))
            if dtype in NARROW or dtype.startswith("uint"):
                text = str(d.int(0, 100)) if d.bool(0.95) else text
            if dtype != "int32" and d.bool(0.7):
                return f"T.{dtype}({text})"
            return text
        roll = d.int(0, 17)
        if roll < 7:
            op = d.choice(("+", "-", "*", "//", "%", "&", "|", "^", "<<", ">>", "+", "*", "-"))
            if op in ("<<", ">>") and not d.bool(0.3):  # a count in range, mostly
                right = str(d.int(0, _BITS[dtype] - 1) if d.bool(0.95) else d.int(0, 31))
            else:
                right = self.int_expr(depth + 1, dtype)
            if op in ("//", "%") and d.bool(0.8):
                right = str(d.choice((1, 2, 3, 4, 7, 8, 16, 32, -3) if dtype[0] == "i" else (1, 2, 3, 4, 7, 8, 16)))
            return f"({self.int_expr(depth + 1, dtype)} {op} {right})"
        if roll == 7:
            return f"T.{d.choice(('min', 'max'))}({self.int_expr(depth + 1, dtype)}, {self.int_expr(depth + 1, dtype)})"
        if roll == 8:
            f = d.choice(("floordiv", "floormod", "truncdiv", "truncmod", "ceildiv"))
            divisor = d.choice(("3", "4", "-2", "16") if dtype[0] == "i" else ("3", "4", "16"))
            return f"T.{f}({self.int_expr(depth + 1, dtype)}, {divisor})"
        if roll == 9:
            src = d.choice(FLOATS[:3] + INTS + ("int32", "int32"))
            inner = self.float_expr(depth + 1, src) if src in FLOATS else self.int_expr(depth + 1, src)
            return f"T.cast({inner}, \"{dtype}\")" if d.bool(0.5) else f"T.{dtype}({inner})"
        if roll == 10:
            return f"({self.int_expr(depth + 1, dtype)} if {self.bool_expr(depth + 1)} else {self.int_expr(depth + 1, dtype)})"
        if roll == 11:
            return f"T.if_then_else({self.bool_expr(depth + 1)}, {self.int_expr(depth + 1, dtype)}, " \
                   f"{self.int_expr(depth + 1, dtype)})"
        if roll == 12:
            op = "~" if dtype.startswith("uint") else d.choice(("-", "~"))
            return f"{op}{self.int_expr(depth + 1, dtype)}"
        if roll == 13:
            # clz / popcount count within the operand's width (int32 results); abs keeps the dtype
            src = d.choice(INTS) if d.bool(0.5) else dtype
            if dtype == "int32" or d.bool(0.5):
                inner = self.int_expr(depth + 1, src)
                call = f"T.{d.choice(('clz', 'popcount'))}({inner})"
                return call if dtype == "int32" else f"T.{dtype}({call})"
            if dtype[0] == "i":
                return f"T.abs({self.int_expr(depth + 1, dtype)})"
        if roll == 14 and dtype in NARROW:  # arithmetic on narrowed values, widened again
            narrow = d.choice(NARROW)
            op = d.choice(("+", "-", "*", "//", "%", "<<", ">>", "&"))
            right = str(d.int(1, _BITS[narrow] - 1)) if op in ("<<", ">>", "//", "%") else \
                f"T.{narrow}({self.int_expr(depth + 2)})"
            return f"T.{dtype}(T.{narrow}({self.int_expr(depth + 2)}) {op} {right})"
        if roll >= 15:
            effect = self.effect_expr(depth, dtype)
            if effect is not None:
                return effect
        return f"T.{dtype}({self.int_expr(depth + 1, 'int32')})" if dtype != "int32" else self.int_expr(depth + 1)

    def effect_call(self) -> str | None:
        """An int32 expression with a side effect: an atomic add on an int32 buffer element."""
        bufs = [b for b in self.bufs(writable=True) if b["dtype"] == "int32"]
        if not bufs:
            return None
        buf = self.d.choice(bufs)
        op = self.d.choice(("atomic_add", "atomic_add", "atomic_max", "atomic_min"))
        value = self.d.choice(("1", "2", "-1") + tuple(self.vars_of("int32")[:2]))
        return f"T.cuda.{op}({buf['name']}.ptr_to([{self.index(buf, 2)}]), {value})"

    def effect_expr(self, depth: int, dtype: str = "int32") -> str | None:
        """A call with side effects where a printer might write an operand twice: ceildiv,
        min / max, a select, floor division and modulo, abs, a chained comparison."""
        call = self.effect_call()
        if call is None:
            return None
        d = self.d
        other = self.int_expr(depth + 2)
        how = d.int(0, 9)
        if how == 0:
            text = f"T.ceildiv({other}, {call})" if d.bool(0.5) else f"T.ceildiv({call}, {d.choice(('3', '-4', '8'))})"
        elif how == 1:
            text = f"T.{d.choice(('min', 'max'))}({call}, {other})" if d.bool(0.5) else \
                f"T.{d.choice(('min', 'max'))}({other}, {call})"
        elif how == 2:
            text = f"T.if_then_else({self.bool_expr(depth + 2)}, {call}, {other})"
        elif how == 3:
            text = f"({other} if {self.bool_expr(depth + 2)} else {call})"
        elif how == 4:
            text = f"({call} {d.choice(('//', '%'))} {d.choice(('3', '-3', '4', '-8', '7'))})"
        elif how == 5:
            fn = d.choice(("floordiv", "floormod", "truncdiv", "truncmod"))
            text = f"T.{fn}({call}, {d.choice(('3', '-2', '16'))})"
        elif how == 6:
            text = f"T.{d.choice(('abs', 'clz', 'popcount'))}({call})"
        elif how == 7:
            text = f"T.int32({self.chain(depth + 1, call)})"
        elif how == 8:
            text = f"({call} {d.choice(('*', '&', '%', '//'))} {d.choice(('0', '1'))})" if d.bool(0.5) else \
                f"(0 * {call})"
        else:
            text = call
        return text if dtype == "int32" else f"T.{dtype}({text})"

    def chain(self, depth: int, middle: str | None = None) -> str:
        """A chained comparison `a < b <= c` (each operand evaluated once, lazily)."""
        d = self.d
        dtype = "int32" if middle is not None else d.choice(("int32",) * 3 + INTS)
        parts = [self.int_expr(depth + 1, dtype), middle or self.int_expr(depth + 1, dtype)]
        if d.bool(0.4):
            parts.append(self.effect_call() or self.int_expr(depth + 1, dtype) if dtype == "int32"
                         else self.int_expr(depth + 1, dtype))
        else:
            parts.append(self.int_expr(depth + 1, dtype))
        ops = [d.choice(("<", "<=", ">", ">=", "==", "!=")) for _ in parts[1:]]
        return "(" + parts[0] + "".join(f" {op} {p}" for op, p in zip(ops, parts[1:])) + ")"

    def float_expr(self, depth: int = 0, dtype: str = "float32") -> str:
        d = self.d
        leaf = depth >= 3 or d.bool(0.35)
        if leaf:
            named = self.named_leaf(dtype, depth)
            if named is not None:
                return named
            text = _float_text(d)
            return f"T.{dtype}({text})" if dtype != "float32" or d.bool(0.3) else text
        roll = d.int(0, 11)
        if roll < 5:
            op = d.choice(("+", "-", "*", "/", "+", "*"))
            return f"({self.float_expr(depth + 1, dtype)} {op} {self.float_expr(depth + 1, dtype)})"
        if roll == 5:
            return f"T.{d.choice(MATH1)}({self.float_expr(depth + 1, dtype)})"
        if roll == 6:
            return f"T.{d.choice(MATH2)}({self.float_expr(depth + 1, dtype)}, {self.float_expr(depth + 1, dtype)})"
        if roll == 7:
            return f"T.{d.choice(('min', 'max'))}({self.float_expr(depth + 1, dtype)}, {self.float_expr(depth + 1, dtype)})"
        if roll == 8:
            src = d.choice(("int32", "float32", "float16", "int64", "uint8", "float64"))
            inner = self.float_expr(depth + 1, src) if src in FLOATS else self.int_expr(depth + 1, src)
            return f"T.cast({inner}, \"{dtype}\")" if d.bool(0.7) else f"T.{dtype}({inner})"
        if roll == 9:
            return f"({self.float_expr(depth + 1, dtype)} if {self.bool_expr(depth + 1)} else {self.float_expr(depth + 1, dtype)})"
        if roll == 10:
            if dtype == "float32" and d.bool(0.2):  # a call with side effects inside an expression
                fname, src_name = self.module.device_function(d)
                call = (f"T.cuda.func_call(\"{fname}\", {self.float_expr(depth + 2)}, source_code={src_name}, "
                        f"return_type=\"float32\")")
                other = self.float_expr(depth + 1)
                return d.choice((f"T.{d.choice(('min', 'max'))}({call}, {other})",
                                 f"({call} if {self.bool_expr(depth + 1)} else {other})",
                                 f"T.if_then_else({self.bool_expr(depth + 1)}, {other}, {call})",
                                 f"({call} * {other})"))
            return f"-{self.float_expr(depth + 1, dtype)}"
        return f"T.fma({self.float_expr(depth + 1, dtype)}, {self.float_expr(depth + 1, dtype)}, " \
               f"{self.float_expr(depth + 1, dtype)})" if dtype in ("float32", "float64") else \
            self.float_expr(depth + 1, dtype)

    def bool_expr(self, depth: int = 0) -> str:
        d = self.d
        roll = d.int(0, 10)
        if roll == 10 and depth < 3:
            return self.chain(depth, self.effect_call() if d.bool(0.3) else None)
        if depth >= 3 or roll < 5:
            cmp = d.choice(("<", "<=", ">", ">=", "==", "!="))
            if d.bool(0.7):
                dtype = "int32" if d.bool(0.6) else d.choice(INTS)  # narrow sums compared, too
                return f"{self.int_expr(depth + 1, dtype)} {cmp} {self.int_expr(depth + 1, dtype)}"
            dtype = d.choice(("float32", "float16", "float64"))
            return f"{self.float_expr(depth + 1, dtype)} {cmp} {self.float_expr(depth + 1, dtype)}"
        if roll < 8:
            op = d.choice(("and", "or"))
            return f"({self.bool_expr(depth + 1)} {op} {self.bool_expr(depth + 1)})"
        if roll == 8:
            return f"not ({self.bool_expr(depth + 1)})"
        return f"T.{d.choice(('isnan', 'isinf', 'isfinite'))}({self.float_expr(depth + 1)})"

    def expr(self, dtype: str, depth: int = 0) -> str:
        if self.d.bool(0.03):  # deliberately wrong: another dtype, or an unknown name
            return self.d.choice((self.float_expr(depth, "float64"), self.int_expr(depth, "int64"), "undefined_name",
                                  "A_missing[0]", "T.float32(1) + T.int64(1)"))
        if dtype in FLOATS:
            return self.float_expr(depth, dtype)
        if dtype == "bool":
            return self.bool_expr(depth)
        return self.int_expr(depth, dtype)

    # -- statements -------------------------------------------------------------------------------------
    def block(self, indent: int, budget: int) -> None:
        count = self.d.int(1, max(1, budget))
        before = len(self.lines)
        for _ in range(count):
            self.statement(indent, budget - 1)
        if len(self.lines) == before:
            self.emit(indent, "pass")

    def statement(self, indent: int, budget: int) -> None:
        d = self.d
        self.statements += 1
        roll = d.int(0, 29) if budget > 0 and self.statements < 60 else d.int(0, 9)
        writable = self.bufs(writable=True)
        if roll < 4 and writable:  # store
            buf = d.choice(writable)
            self.emit(indent, f"{self.load(buf, 0)} = {self.expr(buf['dtype'])}")
        elif roll < 6:  # scalar
            dtype = d.choice(("float32", "int32", "float32", "int32", "float16", "float64", "int64", "uint32") +
                             NARROW + ("uint64",))
            name = self.fresh()
            how = d.int(0, 3)
            if how == 0:
                self.emit(indent, f"{name}: T.let = {self.expr(dtype)}")
                self.scope.vars.append((name, dtype if d.bool(0.9) else "int32", False))
            elif how == 1 and dtype in ("float32", "int32"):
                self.emit(indent, f"{name} = T.local_scalar(\"{dtype}\")")
                self.emit(indent, f"{name} = {self.expr(dtype)}")
                self.scope.vars.append((name, dtype, True))
            else:
                self.emit(indent, f"{name}: T.{dtype} = {self.expr(dtype)}")
                self.scope.vars.append((name, dtype, True))
        elif roll < 8:  # assignment to a mutable scalar
            mutable = [(n, t) for n, t, m in self.scope.all_vars() if m]
            if mutable:
                name, dtype = d.choice(mutable)
                op = d.choice(("=", "+=", "-=", "*=", "="))
                self.emit(indent, f"{name} {op} {self.expr(dtype)}")
            else:
                self.emit(indent, "T.cuda.cta_sync()")
        elif roll == 8:
            self.emit(indent, d.choice(("T.cuda.cta_sync()", "T.cuda.warp_sync()", "T.cuda.thread_fence()",
                                        "pass")))
        elif roll == 9:
            self.printf(indent)
        elif roll < 13 and budget > 0:
            self.loop(indent, budget)
        elif roll < 16 and budget > 0:
            self.emit(indent, f"if {self.bool_expr()}:")
            self.nested(indent + 1, budget)
            while d.bool(0.3):
                self.emit(indent, f"elif {self.bool_expr()}:")
                self.nested(indent + 1, budget)
            if d.bool(0.4):
                self.emit(indent, "else:")
                self.nested(indent + 1, budget)
        elif roll < 18:
            self.allocation(indent)
        elif roll == 18:
            message = "".join(d.choice(MESSAGE_PIECES) for _ in range(d.int(0, 5)))
            self.emit(indent, f"assert {self.bool_expr()}, \"{message}\"" if d.bool(0.8) else
                      f"assert {self.bool_expr()}")
        elif roll == 19:
            bufs = [b for b in self.bufs(writable=True) if b["dtype"] in ("float32", "int32", "uint32")]
            if bufs:
                buf = d.choice(bufs)
                op = d.choice(("atomic_add", "atomic_add", "atomic_max", "atomic_min"))
                if op != "atomic_add" and buf["dtype"] == "float32":
                    op = "atomic_add"
                self.emit(indent, f"T.cuda.{op}({buf['name']}.ptr_to([{self.index(buf, 1)}]), "
                                  f"{self.expr(buf['dtype'], 1)})")
        elif roll == 20:
            floats = self.vars_of("float32", mutable=True) + self.vars_of("int32", mutable=True)
            if floats:
                name = d.choice(floats)
                kind = d.choice(("tvm_warp_shuffle_xor", "tvm_warp_shuffle_down", "tvm_warp_shuffle_up",
                                 "tvm_warp_shuffle"))
                self.emit(indent, f"{name} = T.{kind}(0xFFFFFFFF, {name}, {d.choice(('1', '2', '16', '0'))}, 32, 32)")
        elif roll == 21:
            self.func_call(indent)
        elif roll == 22:
            self.vector(indent)
        elif roll == 23 and self.loop_depth and not self.unrolled:
            self.emit(indent, f"if {self.bool_expr(1)}:")
            self.emit(indent + 1, d.choice(("break", "continue")))
        elif roll == 24:
            self.emit(indent, f"T.static_assert({d.choice(('1 == 1', 'True', '2 > 1'))}, \"{d.choice(MESSAGE_PIECES)}\")")
        elif roll == 25:
            self.view(indent)
        elif roll == 26 and d.bool(0.3):  # a chain of nested unrolled loops (their copies multiply)
            depth = d.int(2, 16)
            for level in range(depth):
                var = self.fresh("u")
                self.emit(indent + level, f"for {var} in T.unroll({d.choice((2, 2, 3, 4, 8))}):")
            buf = d.choice(writable) if writable else None
            self.emit(indent + depth, f"{self.load(buf, 1)} = {self.expr(buf['dtype'], 2)}" if buf else "pass")
        else:
            buf = d.choice(writable) if writable else None
            if buf is not None:
                self.emit(indent, f"{self.load(buf, 0)} = {self.expr(buf['dtype'])}")

    def nested(self, indent: int, budget: int) -> None:
        self.scope = Scope(self.scope)
        self.block(indent, budget - 1)
        self.scope = self.scope.parent

    def loop(self, indent: int, budget: int) -> None:
        d = self.d
        var = self.fresh(d.choice(("i", "j", "k", "it", "step")))
        how = d.int(0, 5)
        if how in (0, 2) and d.bool(0.4) and self.effect_call() is not None:
            # bounds with side effects: evaluated once, before the first iteration
            call = self.effect_call()
            bound = d.choice((f"T.min({call}, {d.int(1, 8)})", call, f"T.ceildiv({d.int(1, 64)}, {call})",
                              f"T.max({call} % 8, 1)"))
            header = d.choice((f"for {var} in range({bound}):", f"for {var} in T.serial({bound}):",
                               f"for {var} in range({d.int(-2, 2)}, {bound}):",
                               f"for {var} in range({call}, {bound}):"))
        elif how == 0:
            header = f"for {var} in range({d.int(1, 8)}):"
        elif how == 1:
            start, stop = d.int(-4, 4), d.int(-4, 16)
            header = f"for {var} in range({start}, {stop}, {d.choice((1, 2, 3, -1, -2))}):"
        elif how == 2:
            header = f"for {var} in T.serial({d.int(1, 6)}):"
        elif how == 3:
            header = f"for {var} in T.unroll({d.int(1, 6)}):"
            self.unrolled += 1
        elif how == 4:
            var2 = self.fresh("j")
            header = f"for {var}, {var2} in T.grid({d.int(1, 3)}, {d.int(1, 3)}):"
            self.scope = Scope(self.scope)
            self.scope.vars.append((var2, "int32", False))
            self.scope.vars.append((var, "int32", False))
            self.emit(indent, header)
            self.loop_depth += 1
            self.block(indent + 1, budget - 1)
            self.loop_depth -= 1
            self.scope = self.scope.parent
            return
        else:
            counter = var
            self.emit(indent, f"{counter}: T.int32 = 0")
            self.scope.vars.append((counter, "int32", False))
            call = self.effect_call() if d.bool(0.2) else None
            if call is not None:  # a condition with a side effect, evaluated each time round
                self.emit(indent, f"while {counter} < {d.int(0, 6)} and {call} > -1000:")
            else:
                self.emit(indent, f"while {counter} < {d.int(0, 6)}:")
            self.emit(indent + 1, f"{counter} += 1")
            self.loop_depth += 1
            self.nested(indent + 1, budget)
            self.loop_depth -= 1
            return
        self.emit(indent, header)
        self.scope = Scope(self.scope)
        self.scope.vars.append((var, "int32", False))
        self.loop_depth += 1
        self.block(indent + 1, budget - 1)
        self.loop_depth -= 1
        if how == 3:
            self.unrolled -= 1
        self.scope = self.scope.parent

    def allocation(self, indent: int) -> None:
        d = self.d
        name = self.fresh(d.choice(("sm", "buf", "regs", "tile", "r")))
        dtype = d.choice(BUFFER_DTYPES)
        shape = tuple(d.choice((1, 2, 4, 8, 16, 32, 64, 128)) for _ in range(d.int(1, 2)))
        shape_text = "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
        kind = d.int(0, 3)
        if kind == 0:
            self.emit(indent, f"{name} = T.alloc_shared({shape_text}, \"{dtype}\")")
        elif kind == 1:
            self.emit(indent, f"{name} = T.alloc_local({shape_text}, \"{dtype}\")")
        elif kind == 2:
            self.emit(indent, f"{name} = T.alloc_buffer({shape_text}, \"{dtype}\", scope=\"{d.choice(('shared', 'local'))}\")")
        else:
            layout = self.module.layout_for(shape) if len(shape) <= 2 else ""
            self.emit(indent, f"{name} = T.alloc_shared({shape_text}, \"{dtype}\"{layout})")
        self.scope.bufs.append({"name": name, "dtype": dtype, "shape": shape, "writable": True})

    def view(self, indent: int) -> None:
        d = self.d
        if self.arena is None:
            if indent != 1 and self.d.bool(0.95):
                return
            self.arena = self.fresh("arena")
            self.emit(indent, f"{self.arena} = T.alloc_buffer(({d.choice((256, 512, 1024))},), \"uint8\", "
                              f"scope=\"shared.dyn\")")
            self.scope.bufs.append({"name": self.arena, "dtype": "uint8", "shape": (256,), "writable": True})
            self.arena_scope = self.scope
        if self.scope is not self.arena_scope and not self._visible(self.arena):
            return
        name = self.fresh("view")
        dtype = d.choice(("float32", "int32", "float16", "uint8"))
        count = d.choice((4, 8, 16, 32))
        offset = d.choice((0, 4, 16, 64, 3))
        self.emit(indent, f"{name} = T.decl_buffer(({count},), \"{dtype}\", data={self.arena}.data, "
                          f"{d.choice(('elem_offset', 'byte_offset'))}={offset}, scope=\"shared.dyn\")")
        self.scope.bufs.append({"name": name, "dtype": dtype, "shape": (count,), "writable": True})

    def _visible(self, name: str) -> bool:
        return any(b["name"] == name for b in self.scope.all_bufs())

    def printf(self, indent: int) -> None:
        d = self.d
        pieces, args = [], []
        for _ in range(d.int(0, 5)):
            piece = d.choice(FORMAT_PIECES)
            if piece == "%d":
                args.append(self.int_expr(1))
            elif piece == "%f":
                args.append(self.float_expr(1, d.choice(("float32", "float64"))))
            elif piece in ("%5d",):
                args.append(self.int_expr(1))
            elif piece == "%-8.3f":
                args.append(self.float_expr(1))
            pieces.append(piece)
        quote = d.choice(('"', "'"))
        fmt = "".join(p if not (quote == "'" and p == "'") else "\\'" for p in pieces)
        self.emit(indent, f"T.cuda.printf({quote}{fmt}{quote}{''.join(', ' + a for a in args)})")

    def func_call(self, indent: int) -> None:
        d = self.d
        fname, src_name = self.module.device_function(d)
        floats = self.bufs(dtype="float32", writable=True)
        if floats and d.bool(0.5):
            buf = d.choice(floats)
            self.emit(indent, f"{self.load(buf, 0)} = T.cuda.func_call(\"{fname}\", {self.float_expr(1)}, "
                              f"source_code={src_name}, return_type=\"float32\")")
        else:
            self.emit(indent, f"T.cuda.func_call(\"{fname}\", {self.float_expr(1)}, source_code={src_name}, "
                              f"return_type=\"float32\")")

    def vector(self, indent: int) -> None:
        d = self.d
        vec = [b for b in self.bufs() if b.get("align16") and b["dtype"] == "float32" and len(b["shape"]) == 1
               and isinstance(b["shape"][0], int)]
        if len(vec) < 1:
            return
        src, dst = d.choice(vec), d.choice(vec)
        if not dst["writable"]:
            return
        i = f"({self.int_expr(1)}) % {max(1, dst['shape'][0] // 4)} * 4" if len(dst["shape"]) == 1 else None
        j = f"({self.int_expr(1)}) % {max(1, src['shape'][0] // 4)} * 4" if len(src["shape"]) == 1 else None
        if i is None or j is None:
            return
        self.emit(indent, f"{dst['name']}.vstore([{i}], {src['name']}.vload([{j}], dtype=\"float32x4\"))")

    # -- the kernel -------------------------------------------------------------------------------------
    def generate(self) -> str:
        d = self.d
        params, binds = [], []
        extents = []
        if d.bool(0.3):
            extents.append(self.fresh("n"))
        for _ in range(d.int(1, 4)):
            dtype = d.choice(BUFFER_DTYPES)
            dims = d.int(1, 3 if d.bool(0.3) else 1)
            shape = []
            annotated = d.bool(0.3)
            for dim in range(dims):
                if extents and not annotated and (d.bool(0.4) or (dim == 0 and not binds)):
                    shape.append(d.choice(extents))
                else:
                    shape.append(d.choice((1, 4, 16, 32, 64, 128, 256, 1024) if not d.bool(0.03) else
                                          (65536, 46341, 2147483647, 100000)))
            shape_text = "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"
            name = self.fresh(d.choice(("A", "B", "C", "D", "X", "Y", "Out", "In")))
            extra = ""
            align16 = False
            if d.bool(0.15) and dtype == "float32":
                extra += ", align=16"
                align16 = True
            elif d.bool(0.05):
                extra += f", align={d.choice((1, 4, 8, 32, 3, 128))}"
            if d.bool(0.07):
                extra += f", elem_offset={d.choice((0, 1, 4, 64))}"
            elif all(isinstance(s, int) for s in shape) and len(shape) <= 2 and d.bool(0.08):
                extra += self.module.layout_for(tuple(shape))
            if annotated:
                params.append(f"{name}: T.Buffer({shape_text}, \"{dtype}\"{extra})")
            else:
                handle = self.fresh(name + "_ptr" if d.bool(0.8) else None)
                params.append(f"{handle}: T.handle")
                binds.append(f"{name} = T.match_buffer({handle}, {shape_text}, \"{dtype}\"{extra})")
            self.scope.bufs.append({"name": name, "dtype": dtype, "shape": tuple(shape), "writable": d.bool(0.85),
                                    "align16": align16})
        for _ in range(d.int(0, 2)):
            dtype = d.choice(("int32", "float32", "float32", "int64", "float16", "uint32", "bool", "float64", "int8",
                              "uint8", "int16", "uint16"))
            name = self.fresh(d.choice(("alpha", "beta", "m", "count", "scale")))
            params.append(f"{name}: T.{dtype}")
            self.scope.vars.append((name, dtype, False))
        for ext in extents:
            self.scope.vars.append((ext, "int32", False))
        if d.bool(0.5):
            params = [params[i] for i in sorted(range(len(params)), key=lambda _: d.int(0, 9))]
        self.emit(0, "@T.prim_func" if d.bool(0.95) else "@T.prim_func(private=True)")
        self.emit(0, f"def {self.name}({', '.join(params)}):")
        for ext in extents:
            self.emit(1, f"{ext} = T.int32()")
        for line in binds:
            self.emit(1, line)
        self.emit(1, "T.device_entry()")
        grid = [d.choice((1, 2, 4, 16, 128, 65535)) for _ in range(d.int(1, 3))]
        if extents and d.bool(0.5):
            grid[0] = f"T.ceildiv({extents[0]}, {d.choice((32, 128, 256))})"
        block = [d.choice((1, 32, 64, 128, 256)) for _ in range(d.int(1, 2))]
        if len(block) == 2 and block[0] * block[1] > 1024:
            block[1] = 1
        self.threads = 1
        for b in block:
            self.threads *= b
        bids = [self.fresh(n) for n in ("bx", "by", "bz")[:len(grid)]]
        tids = [self.fresh(n) for n in ("tx", "ty", "tz")[:len(block)]]
        self.emit(1, f"{', '.join(bids)} = T.cta_id([{', '.join(map(str, grid))}])")
        self.emit(1, f"{', '.join(tids)} = T.thread_id([{', '.join(map(str, block))}])")
        for n in bids + tids:
            self.scope.vars.append((n, "int32", False))
        if len(block) == 1 and block[0] % 32 == 0 and d.bool(0.3):
            warp, lane = self.fresh("warp"), self.fresh("lane")
            self.emit(1, f"{warp} = T.warp_id([{block[0] // 32}])")
            self.emit(1, f"{lane} = T.lane_id([32])")
            self.scope.vars += [(warp, "int32", False), (lane, "int32", False)]
        self.scope = Scope(self.scope)
        self.block(1, d.int(2, 6))
        return "\n".join(self.lines)


class FileGen:
    def __init__(self, draw):
        self.d = draw
        self.globals: set[str] = {"T", "TileLayout", "S"}
        self.header: list[str] = ["from tvm.script import tirx as T"]
        self.consts: list[str] = []
        self.sources: dict[str, str] = {}  # function name -> module-level string name
        self.uses_layout = False

    def layout_for(self, shape: tuple) -> str:
        """`, layout=TileLayout(S[...])` for a constant shape: column-major or padded strides."""
        self.uses_layout = True
        if len(shape) == 1:
            return f", layout=TileLayout(S[({shape[0]},):({self.d.choice((1, 2))},)])"
        a, b = shape[0], shape[1]
        if self.d.bool(0.5):
            return f", layout=TileLayout(S[({a}, {b}):(1, {a})])"
        return f", layout=TileLayout(S[({a}, {b}):({b + self.d.choice((0, 1, 4))}, 1)])"

    def device_function(self, d) -> tuple[str, str]:
        if self.sources and d.bool(0.6):
            name = d.choice(sorted(self.sources))
            return name, self.sources[name]
        fname = d.choice(("my_relu", "scale2", "clampf", "f_" + str(d.int(0, 99))))
        if fname in self.sources:
            return fname, self.sources[fname]
        var = f"SRC{len(self.sources)}"
        body = d.choice(("return x > 0.f ? x : 0.f;", "return 2.0f * x;", "return fminf(fmaxf(x, 0.f), 1.f);"))
        comment = d.choice(("", "// a \"comment\" with */ and \\\\ inside\n", "/* block */\n"))
        self.consts.append(f'{var} = r"""\n{comment}__device__ __forceinline__ float {fname}(float x) {{ {body} }}\n"""')
        self.sources[fname] = var
        self.globals.add(var)
        return fname, var

    def generate(self) -> str:
        d = self.d
        if d.bool(0.3):
            self.consts.append(f"N = {d.choice((64, 128, 256))}")
            self.globals.add("N")
        kernels = []
        names: set[str] = set()
        for i in range(d.int(1, 3)):
            name = f"kernel_{i}" if not d.bool(0.1) else d.choice(NAMES_HOSTILE)
            if name in names or name in self.globals:
                name = f"kernel_{i}"
            names.add(name)
            kernels.append(KernelGen(d, self, name).generate())
        if self.uses_layout:
            self.header.append("from tvm.tirx.layout import TileLayout, S")
        parts = ["\n".join(self.header)]
        if self.consts:
            parts.append("\n".join(self.consts))
        parts += kernels
        return "\n\n\n".join(parts) + "\n"


def kernel_file(draw) -> str:
    return FileGen(draw).generate()


def random_kernel_file(rng: random.Random) -> str:
    return kernel_file(RandomDraw(rng))


@st.composite
def kernel_files(draw):
    """A Hypothesis strategy of generated `.tx` files."""
    return kernel_file(HypothesisDraw(draw))
