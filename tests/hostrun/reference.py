"""TIRx's value semantics for scalar integer and float32 / float64 expressions, as a
Python evaluator, and the expression trees that both it and the test kernels are
made of (`Expr.text()` is TIRx source, `Expr.value()` the reference value).

The semantics: every integer operation wraps to its dtype's width (two's
complement), whatever the width -- an 8-bit sum is an 8-bit sum, not C's promoted
`int`; `//` and `%` (and T.floordiv / T.floormod) are FLOOR division and modulo,
T.truncdiv / T.truncmod truncate; shifts take counts in [0, bits); comparisons
compare the wrapped values; casts between integers wrap, an integer becomes a
float by one correct rounding (never through double first), a float becomes an
integer by truncation (out of range: undefined); T.clz / T.popcount count within the
dtype's own width (an int8's clz of 1 is 7); float32 arithmetic is IEEE single
precision; T.min / T.max of floats are CUDA's fminf / fmaxf (a NaN operand gives the
other operand); `x if c else y`, T.if_then_else, `and`, `or` and chained
comparisons evaluate lazily, each operand at most once, as Python does.

`Undefined` is raised for what has no defined value (division by zero, a shift
count out of range, a float out of an integer's range) and for what the host
cannot run (32- and 64-bit MIN // -1 traps on x86): tests leave such rows out.
"""
from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field

INT_DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
NARROW = ("int8", "uint8", "int16", "uint16")
FLOAT_DTYPES = ("float32", "float64")


class Undefined(Exception):
    pass


def bits(dtype: str) -> int:
    return 1 if dtype == "bool" else int(dtype.lstrip("uintfloat"))


def is_int(dtype: str) -> bool:
    return dtype in INT_DTYPES


def is_signed(dtype: str) -> bool:
    return dtype.startswith("int")


def int_range(dtype: str) -> tuple[int, int]:
    n = bits(dtype)
    return (-(1 << (n - 1)), (1 << (n - 1)) - 1) if is_signed(dtype) else (0, (1 << n) - 1)


def wrap(value: int, dtype: str) -> int:
    if dtype == "bool":
        return int(bool(value))
    n = bits(dtype)
    value &= (1 << n) - 1
    if is_signed(dtype) and value >= 1 << (n - 1):
        value -= 1 << n
    return value


def f32(x: float) -> float:
    """x rounded to float32 (nearest even; beyond the range an infinity)."""
    if math.isnan(x) or math.isinf(x):
        return x
    try:
        return struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def int_to_float(value: int, dtype: str) -> float:
    """One correct rounding of an exact integer (Python's float() is correctly rounded)."""
    if dtype == "float64":
        return float(value)
    m = abs(value)
    n = m.bit_length()
    if n > 24:
        shift = n - 24
        q, r = divmod(m, 1 << shift)
        half = 1 << (shift - 1)
        if r > half or (r == half and q & 1):
            q += 1
        m = q << shift
    return f32(math.copysign(float(m), value) if m else 0.0)


def round_to(x: float, dtype: str) -> float:
    return f32(x) if dtype == "float32" else x


def _ieee_div(a: float, b: float) -> float:
    if b != 0 or math.isnan(b):
        return a / b if not (math.isinf(b) and math.isinf(a)) else math.nan
    if math.isnan(a) or a == 0:
        return math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _fmin(a: float, b: float, op: str) -> float:
    if math.isnan(a):
        return b
    if math.isnan(b):
        return a
    return min(a, b) if op == "min" else max(a, b)


@dataclass
class Env:
    """The values of the variables (by name) and the counters the atomics add to."""
    values: dict
    counters: list = field(default_factory=list)


class Ctx:
    """How leaves are spelled: `var` for a variable, `counter` for the address of counter k."""

    def __init__(self, var, counter=lambda k: f"cnt.ptr_to([{k}])"):
        self.var = var
        self.counter = counter


# ---- the trees ----------------------------------------------------------------------------------

class Expr:
    dtype: str

    def text(self, ctx: Ctx) -> str:
        raise NotImplementedError

    def value(self, env: Env):
        raise NotImplementedError

    def children(self) -> tuple:
        return ()

    def walk(self):
        yield self
        for c in self.children():
            yield from c.walk()


def const_text(value, dtype: str) -> str:
    """A typed constant as TIRx source."""
    if dtype in FLOAT_DTYPES:
        if math.isnan(value):
            return f"(T.{dtype}(1e400) - T.{dtype}(1e400))"
        if math.isinf(value):
            return f"T.{dtype}({'-' if value < 0 else ''}1e400)"
        return f"T.{dtype}({value!r})"
    if dtype == "bool":
        return "True" if value else "False"
    return f"T.{dtype}({value})"


@dataclass(eq=False)
class Var(Expr):
    name: str
    dtype: str

    def text(self, ctx):
        return ctx.var(self)

    def value(self, env):
        return env.values[self.name]


@dataclass(eq=False)
class Lit(Expr):
    """A Python literal: it takes the dtype of the other operand."""
    val: int
    dtype: str

    def text(self, ctx):
        return f"({self.val})" if self.val < 0 else str(self.val)

    def value(self, env):
        return self.val


@dataclass(eq=False)
class Const(Expr):
    val: object
    dtype: str

    def text(self, ctx):
        return const_text(self.val, self.dtype)

    def value(self, env):
        return self.val


@dataclass(eq=False)
class Counter(Expr):
    """`T.cuda.atomic_add(<counter k>, 1)`: counter k's old value, and one added to it."""
    slot: int
    dtype: str = "int32"

    def text(self, ctx):
        return f"T.cuda.atomic_add({ctx.counter(self.slot)}, 1)"

    def value(self, env):
        old = env.counters[self.slot]
        env.counters[self.slot] = wrap(old + 1, "int32")
        return old


INFIX = ("+", "-", "*", "//", "%", "<<", ">>", "&", "|", "^")
CALLED = ("floordiv", "floormod", "truncdiv", "truncmod", "min", "max", "ceildiv")


@dataclass(eq=False)
class Bin(Expr):
    op: str
    a: Expr
    b: Expr

    def __post_init__(self):
        self.dtype = self.b.dtype if isinstance(self.a, Lit) else self.a.dtype

    def children(self):
        return (self.a, self.b)

    def text(self, ctx):
        if self.op in CALLED:
            return f"T.{self.op}({self.a.text(ctx)}, {self.b.text(ctx)})"
        return f"({self.a.text(ctx)} {self.op} {self.b.text(ctx)})"

    def value(self, env):
        a, b = self.a.value(env), self.b.value(env)
        d, op = self.dtype, self.op
        if d in FLOAT_DTYPES:
            if op in ("min", "max"):
                return _fmin(a, b, op)
            if op == "/":
                return round_to(_ieee_div(a, b), d)
            if op in ("+", "-", "*"):
                r = a + b if op == "+" else a - b if op == "-" else a * b
                return round_to(r, d)
            raise Undefined(f"{op} on {d} is not modelled")
        n = bits(d)
        if op in ("//", "%", "floordiv", "floormod", "truncdiv", "truncmod", "ceildiv"):
            if b == 0:
                raise Undefined("division by zero")
            if n >= 32 and b == -1 and a == int_range(d)[0]:
                raise Undefined("MIN // -1 traps on the host")
            if op in ("//", "floordiv"):
                return wrap(a // b, d)
            if op in ("%", "floormod"):
                return wrap(a % b, d)
            if op == "truncdiv":
                return wrap(_trunc_div(a, b), d)
            if op == "truncmod":
                return wrap(a - _trunc_div(a, b) * b, d)
            top = wrap(a + b - 1, d)  # TIRx's ceildiv: floordiv(a + b - 1, b), wrapped
            if n >= 32 and b == -1 and top == int_range(d)[0]:
                raise Undefined("MIN // -1 traps on the host")
            return wrap(top // b, d)
        if op in ("<<", ">>"):
            if not 0 <= b < n:
                raise Undefined("shift count out of range")
            return wrap(a << b, d) if op == "<<" else wrap(a >> b, d)
        if op in ("min", "max"):
            return min(a, b) if op == "min" else max(a, b)
        r = {"+": a + b, "-": a - b, "*": a * b, "&": a & b, "|": a | b, "^": a ^ b}[op]
        return wrap(r, d)


@dataclass(eq=False)
class Cmp(Expr):
    """`a op b`, or a chain `a op b op2 c ...` (`more` holds (op, operand) pairs)."""
    op: str
    a: Expr
    b: Expr
    more: tuple = ()
    dtype: str = "bool"

    def children(self):
        return (self.a, self.b) + tuple(e for _, e in self.more)

    def text(self, ctx):
        rest = "".join(f" {op} {e.text(ctx)}" for op, e in self.more)
        return f"({self.a.text(ctx)} {self.op} {self.b.text(ctx)}{rest})"

    def value(self, env):
        left = self.a.value(env)
        for op, operand in ((self.op, self.b),) + tuple(self.more):
            right = operand.value(env)
            if not _compare(op, left, right):
                return 0
            left = right
        return 1


def _compare(op, a, b) -> bool:
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "==": a == b, "!=": a != b}[op]


@dataclass(eq=False)
class Un(Expr):
    op: str  # - ~ not
    a: Expr

    def __post_init__(self):
        self.dtype = "bool" if self.op == "not" else self.a.dtype

    def children(self):
        return (self.a,)

    def text(self, ctx):
        return f"(not {self.a.text(ctx)})" if self.op == "not" else f"({self.op}{self.a.text(ctx)})"

    def value(self, env):
        a = self.a.value(env)
        if self.op == "not":
            return int(not a)
        if self.dtype in FLOAT_DTYPES:
            return -a
        return wrap(-a if self.op == "-" else ~a, self.dtype)


@dataclass(eq=False)
class BoolOp(Expr):
    op: str  # and / or
    a: Expr
    b: Expr
    dtype: str = "bool"

    def children(self):
        return (self.a, self.b)

    def text(self, ctx):
        return f"({self.a.text(ctx)} {self.op} {self.b.text(ctx)})"

    def value(self, env):
        a = self.a.value(env)
        if self.op == "and":
            return int(bool(self.b.value(env))) if a else 0
        return 1 if a else int(bool(self.b.value(env)))


@dataclass(eq=False)
class Cast(Expr):
    dtype: str
    a: Expr
    spelling: str = "ctor"  # ctor: T.int8(x); cast: T.cast(x, "int8")

    def children(self):
        return (self.a,)

    def text(self, ctx):
        if self.spelling == "cast":
            return f"T.cast({self.a.text(ctx)}, \"{self.dtype}\")"
        return f"T.{self.dtype}({self.a.text(ctx)})"

    def value(self, env):
        return convert(self.a.value(env), self.a.dtype, self.dtype)


def convert(v, source: str, target: str):
    if target == "bool":
        return int(bool(v))
    if source in FLOAT_DTYPES:
        if target in FLOAT_DTYPES:
            return round_to(v, target)
        if math.isnan(v) or math.isinf(v):
            raise Undefined("a non-finite float to an integer")
        t = math.trunc(v)
        lo, hi = int_range(target)
        if not lo <= t <= hi:
            raise Undefined("a float out of the integer's range")
        return t
    if target in FLOAT_DTYPES:
        return int_to_float(v, target)
    return wrap(v, target)


@dataclass(eq=False)
class Call(Expr):
    fn: str  # clz popcount abs
    a: Expr

    def __post_init__(self):
        self.dtype = "int32" if self.fn in ("clz", "popcount") else self.a.dtype

    def children(self):
        return (self.a,)

    def text(self, ctx):
        return f"T.{self.fn}({self.a.text(ctx)})"

    def value(self, env):
        a = self.a.value(env)
        d = self.a.dtype
        if self.fn == "abs":
            return abs(a) if d in FLOAT_DTYPES else wrap(abs(a), d)
        unsigned = a & ((1 << bits(d)) - 1)
        if self.fn == "clz":
            return bits(d) - unsigned.bit_length()
        return bin(unsigned).count("1")


@dataclass(eq=False)
class Select(Expr):
    cond: Expr
    a: Expr
    b: Expr
    spelling: str = "if_then_else"  # or ifexp: `a if cond else b`

    def __post_init__(self):
        self.dtype = self.b.dtype if isinstance(self.a, Lit) else self.a.dtype

    def children(self):
        return (self.cond, self.a, self.b)

    def text(self, ctx):
        if self.spelling == "ifexp":
            return f"({self.a.text(ctx)} if {self.cond.text(ctx)} else {self.b.text(ctx)})"
        return f"T.if_then_else({self.cond.text(ctx)}, {self.a.text(ctx)}, {self.b.text(ctx)})"

    def value(self, env):
        return self.a.value(env) if self.cond.value(env) else self.b.value(env)


def variables(e: Expr) -> dict[str, str]:
    """name -> dtype of the variables of e, in order of first appearance."""
    out = {}
    for node in e.walk():
        if isinstance(node, Var):
            out.setdefault(node.name, node.dtype)
    return out


def counters(e: Expr) -> int:
    return max((node.slot + 1 for node in e.walk() if isinstance(node, Counter)), default=0)


def evaluate(e: Expr, values: dict, counter_values=()) -> tuple[object, list]:
    """(value, counters afterwards); raises Undefined."""
    env = Env(dict(values), list(counter_values))
    return e.value(env), env.counters


def same_value(a, b) -> bool:
    """Equal, for floats bit for bit (the sign of zero included); NaN equals NaN."""
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b
