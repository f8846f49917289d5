"""Constructors that fold constants as IR nodes are built, and the facts
(non-negativity) that printing division relies on: the integer semantics of a
kernel in one place, for folding and for the launcher's host arithmetic."""
from __future__ import annotations

import math
import struct

from transpiler.ir.nodes import BinOp, Builtin, Call, Cast, Expr, FloatImm, IntImm, Select, UnaryOp, Var
from transpiler.ir.nodes import NOWHERE
from transpiler.target.dtypes import BOOL, DType, int_range
from transpiler.syntax.source import Span

# ---- constructors that fold ---------------------------------------------------------

def round_float(value: float, dtype: DType) -> float:
    """A Python float rounded to the precision of a float dtype (nearest even;
    out of range gives an infinity). float64 and formats without a rounding rule
    here (fp8 and narrower) are returned unchanged."""
    value = float(value)
    if math.isnan(value) or math.isinf(value):
        return value
    if dtype.bits == 32 or dtype.name == "bfloat16":
        try:
            value = struct.unpack("<f", struct.pack("<f", value))[0]
        except OverflowError:
            return math.copysign(math.inf, value)
        if dtype.name == "bfloat16":
            bits = struct.unpack("<I", struct.pack("<f", value))[0]
            bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
            if bits & 0x7F800000 == 0x7F800000:
                return math.copysign(math.inf, value)
            value = struct.unpack("<f", struct.pack("<I", bits))[0]
        return value
    if dtype.bits == 16:
        try:
            return struct.unpack("<e", struct.pack("<e", value))[0]
        except OverflowError:
            return math.copysign(math.inf, value)
    return value


def const(value, dtype: DType) -> Expr:
    if dtype.is_float:
        return FloatImm(dtype, round_float(value, dtype))
    return IntImm(dtype, int(value))


def is_const(e: Expr, value=None) -> bool:
    if e.__class__ in _IMMEDIATES:
        return value is None or e.value == value
    return False


def _wrap(value: int, dtype: DType) -> int:
    """Two's-complement wrap of a folded integer to the dtype's width."""
    if dtype.is_bool:
        return int(bool(value))
    bits = dtype.bits
    value &= (1 << bits) - 1
    if dtype.kind == "int" and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def _floordiv(a: int, b: int) -> int:
    return a // b


def _truncdiv(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_FOLD = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "floordiv": _floordiv, "floormod": lambda a, b: a % b,
    "truncdiv": _truncdiv, "truncmod": lambda a, b: a - _truncdiv(a, b) * b,
    "<<": lambda a, b: a << b, ">>": lambda a, b: a >> b,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
    "&&": lambda a, b: bool(a) and bool(b), "||": lambda a, b: bool(a) or bool(b),
    "min": min, "max": max, "/": lambda a, b: a / b,
}
COMPARISONS = ("<", "<=", ">", ">=", "==", "!=")
_BOOL_RESULT = frozenset(COMPARISONS + ("&&", "||"))  # operations whose value is a bool
_IMMEDIATES = frozenset({IntImm, FloatImm})  # the classes is_const accepts

# The integer operations the generated launcher evaluates on the host (grid extents,
# workspace sizes), with their Python spelling; min and max are calls there. Host
# values are non-negative, so truncating division prints as `//` too.
HOST_OPS = {"+": "+", "-": "-", "*": "*", "floordiv": "//", "floormod": "%", "truncdiv": "//", "truncmod": "%",
            "<<": "<<", ">>": ">>", "&": "&", "|": "|", "^": "^"}


def is_host_node(e: Expr) -> bool:
    """Whether the launcher evaluates this node itself (its operands aside): integer
    constants, variables, the HOST_OPS, min and max, and integer casts."""
    if isinstance(e, (IntImm, Var)):
        return True
    if isinstance(e, BinOp):
        return e.op in HOST_OPS or e.op in ("min", "max")
    return isinstance(e, Cast) and e.dtype.is_int


_QUOTIENT_OF = {"floormod": "floordiv", "truncmod": "truncdiv"}


def _rejoin(scaled: Expr, rest: Expr, span: Span) -> Expr | None:
    """`(x / c) * c + x % c` -> `x` and `(p + x / c) * c + x % c` -> `p * c + x`, for
    floor and truncating division alike and for `>>` / `&` by a power of two: the
    index of a row-major buffer addressed as `[x // c, x % c]` is `x` itself."""
    if not (isinstance(scaled, BinOp) and scaled.op == "*" and is_const(scaled.b)
            and isinstance(rest, BinOp) and is_const(rest.b)):
        return None
    x, c = rest.a, scaled.b.value
    if rest.op in _QUOTIENT_OF and rest.b.value == c:
        quotient = (_QUOTIENT_OF[rest.op], c)
    elif rest.op == "&" and rest.b.value == c - 1 and c > 1 and c & (c - 1) == 0:
        quotient = (">>", c.bit_length() - 1)
    else:
        return None

    def is_quotient(q: Expr) -> bool:
        return isinstance(q, BinOp) and (q.op, q.b.value if is_const(q.b) else None) == quotient and q.a == x

    inner = scaled.a
    if is_quotient(inner):
        return x
    if isinstance(inner, BinOp) and inner.op == "+":
        for p, q in ((inner.a, inner.b), (inner.b, inner.a)):
            if is_quotient(q):
                return binop("+", binop("*", p, scaled.b, span), x, span)
    return None


def binop(op: str, a: Expr, b: Expr, span: Span = NOWHERE) -> Expr:
    """Build a binary operation, folding constants and identities."""
    dtype = BOOL if op in _BOOL_RESULT else a.dtype
    a_const, b_const = a.__class__ in _IMMEDIATES, b.__class__ in _IMMEDIATES  # is_const, for every node built
    if a_const and b_const:
        if op in ("floordiv", "floormod", "truncdiv", "truncmod", "/") and b.value == 0:
            return BinOp(dtype, op, a, b, span)
        av, bv = a.value, b.value
        if a.dtype.is_float:  # fold in the operands' own precision
            av, bv = round_float(av, a.dtype), round_float(bv, b.dtype)
        try:
            value = _FOLD[op](av, bv)
        except (OverflowError, ValueError, ZeroDivisionError):
            return BinOp(dtype, op, a, b, span)
        if dtype.is_float:
            return FloatImm(dtype, round_float(value, dtype), span)
        if op in ("<<", ">>") and not 0 <= b.value < dtype.bits:
            return BinOp(dtype, op, a, b, span)
        return IntImm(dtype, _wrap(int(value), dtype), span)
    if dtype.is_float and op not in COMPARISONS:
        # Floating-point identities are only safe for exact cases that keep NaN and -0.0 behaviour.
        if op == "*" and b_const and b.value == 1.0:
            return a
        if op == "*" and a_const and a.value == 1.0:
            return b
        return BinOp(dtype, op, a, b, span)
    if op == "+":
        if b_const and b.value == 0:
            return a
        if a_const and a.value == 0:
            return b
        if a.__class__ is BinOp and b.__class__ is BinOp:  # what _rejoin looks for
            whole = _rejoin(a, b, span) or _rejoin(b, a, span)
            if whole is not None:
                return whole
        if b_const and dtype.is_int:
            # Keep unrolled indices tidy: (x + c1) + c2 -> x + (c1 + c2),
            # (x - c1) + c2 -> x + (c2 - c1), (c1 - x) + c2 -> (c1 + c2) - x.
            if isinstance(a, BinOp) and a.op == "+" and is_const(a.b):
                return binop("+", a.a, _iconst(a.b.value + b.value, dtype), span)
            if isinstance(a, BinOp) and a.op == "-" and is_const(a.b):
                return binop("+", a.a, _iconst(b.value - a.b.value, dtype), span)
            if isinstance(a, BinOp) and a.op == "-" and is_const(a.a):
                return binop("-", _iconst(a.a.value + b.value, dtype), a.b, span)
            if b.value < 0 and dtype.is_signed and -b.value <= int_range(dtype)[1]:
                return binop("-", a, _iconst(-b.value, dtype), span)  # x + -c -> x - c
    elif op == "-":
        if b_const and b.value == 0:
            return a
        if b_const and dtype.is_int:
            if b.value < 0 and dtype.is_signed and -b.value <= int_range(dtype)[1]:
                return binop("+", a, _iconst(-b.value, dtype), span)  # x - -c -> x + c
            if isinstance(a, BinOp) and a.op in ("+", "-") and is_const(a.b):
                # (x + c1) - c2 -> x + (c1 - c2); (x - c1) - c2 -> x + (-c1 - c2)
                c1 = a.b.value if a.op == "+" else -a.b.value
                return binop("+", a.a, _iconst(c1 - b.value, dtype), span)
    elif op == "*":
        if b_const and b.value == 1:
            return a
        if a_const and a.value == 1:
            return b
        if (a_const and a.value == 0) or (b_const and b.value == 0):
            return const(0, dtype)
        if b_const and dtype.is_int and isinstance(a, BinOp) and a.op == "*" and is_const(a.b):
            return binop("*", a.a, _iconst(a.b.value * b.value, dtype), span)  # (x * c1) * c2 -> x * (c1 * c2)
    elif op in ("floordiv", "truncdiv"):
        if b_const and b.value == 1:
            return a
    elif op in ("floormod", "truncmod"):
        if b_const and b.value == 1:
            return const(0, dtype)
    elif op == "&&":
        if a_const:
            return b if a.value else const(0, BOOL)
        if b_const and b.value:
            return a
    elif op == "||":
        if a_const:
            return const(1, BOOL) if a.value else b
        if b_const and not b.value:
            return a
    return BinOp(dtype, op, a, b, span)


def _iconst(value: int, dtype: DType) -> IntImm:
    return IntImm(dtype, _wrap(value, dtype))


def add(a: Expr, b: Expr) -> Expr:
    return binop("+", a, b)


def mul(a: Expr, b: Expr) -> Expr:
    return binop("*", a, b)


def unary(op: str, a: Expr, span: Span = NOWHERE) -> Expr:
    if is_const(a):
        if op == "-":
            return const(-a.value, a.dtype) if a.dtype.is_float else IntImm(a.dtype, _wrap(-a.value, a.dtype), span)
        if op == "!":
            return IntImm(BOOL, int(not a.value), span)
        if op == "~" and a.dtype.is_int:
            return IntImm(a.dtype, _wrap(~a.value, a.dtype), span)
    if op == "!" and isinstance(a, UnaryOp) and a.op == "!":
        return a.a
    return UnaryOp(BOOL if op == "!" else a.dtype, op, a, span)


def cast(dtype: DType, a: Expr, span: Span = NOWHERE) -> Expr:
    if a.dtype == dtype:
        return a
    if is_const(a) and dtype.lanes == 1 and a.dtype.lanes == 1:
        if dtype.is_float:
            return FloatImm(dtype, round_float(a.value, dtype), span)
        if dtype.is_bool:
            return IntImm(dtype, int(bool(a.value)), span)
        if dtype.is_int and isinstance(a, IntImm):
            return IntImm(dtype, _wrap(a.value, dtype), span)
        if dtype.is_int and isinstance(a, FloatImm) and math.isfinite(a.value):
            lo, hi = int_range(dtype)
            if lo <= math.trunc(a.value) <= hi:  # C truncates toward zero; out of range is undefined
                return IntImm(dtype, math.trunc(a.value), span)
    return Cast(dtype, a, span)


def select(cond: Expr, a: Expr, b: Expr, span: Span = NOWHERE) -> Expr:
    if is_const(cond):
        return a if cond.value else b
    return Select(a.dtype, cond, a, b, span)


# ---- facts --------------------------------------------------------------------------------

def nonneg(e: Expr, facts: set[str]) -> bool:
    """Whether e is provably >= 0 (DECISIONS 7); `facts` names the variables known to be."""
    kind = e.dtype.kind
    if kind == "uint" or kind == "bool":
        return True
    cls = e.__class__
    if cls is BinOp:
        op = e.op
        if op in _NONNEG_IF_BOTH:
            return nonneg(e.a, facts) and nonneg(e.b, facts)
        if op == "floormod":
            return nonneg(e.b, facts)
        if op == "&":
            return nonneg(e.a, facts) or nonneg(e.b, facts)
        return op in _BOOL_RESULT
    if cls is Var:
        return e.name in facts
    if cls is IntImm or cls is FloatImm:
        return e.value >= 0
    if cls is Builtin:
        return True
    if cls is Cast:
        return e.a.dtype.is_int and nonneg(e.a, facts) and e.a.dtype.bits <= e.dtype.bits
    if cls is Select:
        return nonneg(e.a, facts) and nonneg(e.b, facts)
    if cls is Call and e.func == "__shfl_sync":
        return nonneg(e.args[1], facts)
    return False


_NONNEG_IF_BOTH = frozenset({"+", "*", "floordiv", "truncdiv", "truncmod", "min", "max", ">>", "|", "^"})
