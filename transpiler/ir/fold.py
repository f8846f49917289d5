"""Constructors that fold constants as IR nodes are built, and the facts
(non-negativity, C's integer promotion) that lowering and printing rely on: the
integer and floating-point semantics of a kernel in one place, for folding, for
lowering's C forms and for the launcher's host arithmetic. A constant folded here
equals what the generated CUDA computes at run time; where the run time is not
known exactly (a format without a rounding rule here, a float result the compiler
may compute with an fma), nothing is folded."""
from __future__ import annotations

import math
import struct

from transpiler.ir.nodes import BinOp, Builtin, Call, Cast, Expr, FloatImm, IntImm, Select, UnaryOp, Var
from transpiler.ir.nodes import NOWHERE
from transpiler.target.dtypes import BOOL, DType, float_format, int_range
from transpiler.syntax.source import Span

# ---- floating-point formats ----------------------------------------------------------------

def _round_ratio(num: int, den: int, fmt: tuple) -> float:
    """num / den (den > 0, num != 0) rounded once, to nearest even, to a float format (dtypes.Scalar.float_format):
    the exact value, as the hardware's cvt.rn converts it (no rounding through float64)."""
    p, emin, largest, saturates, _ = fmt
    negative = num < 0
    num = -num if negative else num
    e = num.bit_length() - den.bit_length()  # floor(log2(num / den)) is e or e - 1
    if (num << -e if e < 0 else num) < (den << e if e > 0 else den):
        e -= 1
    q = max(e, emin) - (p - 1)  # the weight of the last significand bit (fixed below the normals)
    n, d = (num, den << q) if q >= 0 else (num << -q, den)
    m, r = divmod(n, d)
    if 2 * r > d or (2 * r == d and m & 1):
        m += 1
    try:
        value = math.ldexp(m, q)
    except OverflowError:
        value = math.inf
    if value > largest:
        value = largest if saturates else math.inf
    return -value if negative else value


def round_float(value, dtype: DType) -> float:
    """An int or a Python float converted to a float dtype as CUDA converts it: rounded
    once to nearest even (an int exactly, never through float64); out of range an infinity,
    or the largest finite value for the saturating fp8 / fp6 / fp4 formats. A format without
    a rule here (float8_e8m0fnu) gets the value unchanged (see float_folds)."""
    fmt = float_format(dtype.name)
    if value.__class__ is not float:  # an int (or bool)
        value = int(value)
        if -(1 << 53) <= value <= 1 << 53:
            value = float(value)  # exact
        elif fmt is None or dtype.bits == 64:
            return float(value)  # Python's int -> float is correctly rounded
        else:
            return _round_ratio(value, 1, fmt)
    if fmt is None or dtype.bits == 64 or value != value:
        return value
    if value in (math.inf, -math.inf):
        return math.copysign(fmt[2], value) if fmt[3] else value
    if dtype.bits == 32:
        try:
            return struct.unpack("<f", struct.pack("<f", value))[0]  # C's (float) of a double: one rounding
        except OverflowError:
            return math.copysign(math.inf, value)
    if value == 0.0:
        return value
    num, den = value.as_integer_ratio()
    return _round_ratio(num, den, fmt)


def float_folds(dtype: DType, value: float | None = None) -> bool:
    """Whether folding knows what the run time makes of a value of this float dtype (of
    `value` in particular, when given): not for a format without a rule, nor for a NaN of
    a format that has none."""
    fmt = float_format(dtype.name)
    return fmt is not None and (value is None or value == value or fmt[4])


# ---- constructors that fold ---------------------------------------------------------

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


def _fold_int(op: str, a: int, b: int, dtype: DType):
    """The value of `a op b` on integer constants of dtype, before the wrap to it; None
    when it is not folded: a zero divisor, a shift count outside 0 .. bits - 1 (checked
    before shifting: `1 << 10**9` would build a number of a billion bits), or an operand
    that is no value of a 64-bit integer, so that nothing folded grows past 128 bits."""
    if op in _DIVISIONS and b == 0:
        return None
    if op in ("<<", ">>") and not 0 <= b < dtype.bits:
        return None
    if not (_INT_LIMIT[0] <= a <= _INT_LIMIT[1] and _INT_LIMIT[0] <= b <= _INT_LIMIT[1]):
        return None
    return _FOLD[op](a, b)


_DIVISIONS = frozenset({"floordiv", "floormod", "truncdiv", "truncmod", "/"})
_INT_LIMIT = (-(1 << 64), 1 << 64)


def _fold_float(op: str, a: FloatImm, b: FloatImm):
    """The value of `a op b` on float constants as the generated CUDA computes it, rounded
    to the result's dtype (a bool for a comparison); None when it is not folded. Every
    operation is computed in float64 and rounded once to the dtype: for + - * / that is
    the correctly rounded result in float32 and every narrower format (float64 carries
    more than twice their precision plus two bits, so the double rounding is innocuous),
    which is what the hardware computes (the fp8 formats through float32, the same)."""
    dtype = a.dtype
    av, bv = round_float(a.value, dtype), round_float(b.value, b.dtype)
    if not (float_folds(dtype, av) and float_folds(b.dtype, bv)):
        return None
    if op in _DIVISIONS and bv == 0:
        return None
    if op in ("min", "max"):
        # what the printed min / max (fminf, fmin, __hmin ...) return: the other operand
        # when one is a NaN; zeros of different signs are left to the run time
        if av != av or bv != bv:
            return bv if av != av else av
        if av == bv == 0 and math.copysign(1, av) != math.copysign(1, bv):
            return None
        return min(av, bv) if op == "min" else max(av, bv)
    if op == "floordiv" or op == "floormod":
        return _fold_float_floor(op, av, bv, dtype)
    fold = _FOLD.get(op)
    if fold is None:
        return None
    try:
        value = fold(av, bv)
    except (OverflowError, ValueError, ZeroDivisionError):
        return None
    if op in _BOOL_RESULT:
        return value
    value = round_float(value, dtype)
    return value if float_folds(dtype, value) else None


def _fold_float_floor(op: str, a: float, b: float, dtype: DType):
    """`T.floordiv` / `T.floormod` on floats as lowering prints them: floor(a / b), and
    a - b * floor(a / b), each operation rounded to the dtype. The latter is folded only
    when the product and difference rounded apart agree with one fused multiply-add,
    which nvcc may use instead; non-finite values are not folded."""
    q = round_float(a / b, dtype)
    if not math.isfinite(q) or not math.isfinite(a):
        return None
    floor = q if q == math.floor(q) else float(math.floor(q))  # floor(-0.0) is -0.0
    if op == "floordiv":
        return floor
    from fractions import Fraction  # only a folded float floormod needs it

    apart = round_float(a - round_float(b * floor, dtype), dtype)
    exact = Fraction(a) - Fraction(b) * Fraction(floor)
    fused = 0.0 if exact == 0 else _round_ratio(exact.numerator, exact.denominator, float_format(dtype.name))
    if apart != fused or math.copysign(1, apart) != math.copysign(1, fused) or not float_folds(dtype, apart):
        return None
    return apart


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

# The operations the generated launcher evaluates on the host (grids, buffer shapes and
# strides, workspace sizes), keyed by BinOp.op or Call.func, with their Python spelling:
# an operator where Python's gives C's result, else a function of the launcher's runtime
# (transpiler/runtime/launch.py, "host arithmetic") that computes C's result or refuses the
# arguments (a zero divisor). codegen/launcher.py (py_expr) adds what no table can say: the
# check of each result that could leave its dtype's range, and of each shift count.
HOST_OPS = {"+": "+", "-": "-", "*": "*", "floordiv": "floordiv", "floormod": "floormod",
            "truncdiv": "truncdiv", "truncmod": "truncmod", "<<": "<<", ">>": ">>", "&": "&", "|": "|", "^": "^",
            "min": "min", "max": "max", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "==": "==", "!=": "!=",
            "&&": "and", "||": "or", "math:abs": "abs", "math:clz": "clz", "math:popcount": "popcount"}


def is_host_node(e: Expr) -> bool:
    """Whether the launcher evaluates this node itself (its operands aside), exactly as the
    kernel's C would: integer and bool constants and variables, the HOST_OPS, `-`, `~` and
    `!`, selects, and conversions, all over integer and bool scalars. No floating-point
    value: nvcc's rounding (contracted multiply-adds) is not the host's to repeat."""
    cls = e.__class__
    if cls is IntImm or cls is Var:
        operands = ()
    elif cls is BinOp and e.op in HOST_OPS:
        operands = (e.a, e.b)
    elif cls is Call and e.func in HOST_OPS:
        operands = e.args
    elif cls is UnaryOp or cls is Cast:
        operands = (e.a,)
    elif cls is Select:
        operands = (e.cond, e.a, e.b)
    else:
        return False
    return all((x.dtype.is_int or x.dtype.is_bool) and x.dtype.lanes == 1 for x in (e, *operands))


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
        value = _fold_float(op, a, b) if a.dtype.is_float else _fold_int(op, a.value, b.value, a.dtype)
        if value is None:
            return BinOp(dtype, op, a, b, span)
        if dtype.is_float:
            return FloatImm(dtype, value, span)
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
        if op == "-" and a.dtype.is_float:
            value = -round_float(a.value, a.dtype)
            if float_folds(a.dtype, value):
                return FloatImm(a.dtype, value, span)
        elif op == "-":
            return IntImm(a.dtype, _wrap(-a.value, a.dtype), span)
        elif op == "!" and (not a.dtype.is_float or float_folds(a.dtype, round_float(a.value, a.dtype))):
            return IntImm(BOOL, int(not a.value), span)
        elif op == "~" and a.dtype.is_int:
            return IntImm(a.dtype, _wrap(~a.value, a.dtype), span)
    if op == "!" and isinstance(a, UnaryOp) and a.op == "!":
        return a.a
    return UnaryOp(BOOL if op == "!" else a.dtype, op, a, span)


def cast(dtype: DType, a: Expr, span: Span = NOWHERE) -> Expr:
    """A conversion, folded as CUDA converts: integers wrap to the width; an integer or
    float becomes a float rounded once (round_float); a float becomes an integer only
    when its truncation is in the dtype's range (out of range, or a NaN, the hardware
    saturates where C leaves it undefined: not folded)."""
    if a.dtype == dtype:
        return a
    if is_const(a) and dtype.lanes == 1 and a.dtype.lanes == 1:
        value = a.value
        if a.dtype.is_float:
            value = round_float(value, a.dtype)  # the value the run time holds
            if not float_folds(a.dtype, value):
                return Cast(dtype, a, span)
        if dtype.is_float:
            value = round_float(value, dtype)
            if float_folds(dtype, value):
                return FloatImm(dtype, value, span)
        elif dtype.is_bool:
            return IntImm(dtype, int(bool(value)), span)
        elif dtype.is_int and a.__class__ is IntImm:
            return IntImm(dtype, _wrap(value, dtype), span)
        elif dtype.is_int and math.isfinite(value):
            lo, hi = int_range(dtype)
            if lo <= math.trunc(value) <= hi:  # C truncates toward zero
                return IntImm(dtype, math.trunc(value), span)
    return Cast(dtype, a, span)


def select(cond: Expr, a: Expr, b: Expr, span: Span = NOWHERE) -> Expr:
    if is_const(cond):
        return a if cond.value else b
    return Select(a.dtype, cond, a, b, span)


# ---- facts --------------------------------------------------------------------------------

def nonneg(e: Expr, facts: set[str]) -> bool:
    """Whether e is provably >= 0 (docs/design.md, decision 7); `facts` names the variables known to be.
    Sums and products of non-negative values count as non-negative in 32 and 64 bits (index
    arithmetic does not overflow), never in 8 or 16, where `100 + 100` is an int8's -56."""
    kind = e.dtype.kind
    if kind == "uint" or kind == "bool":
        return True
    cls = e.__class__
    if cls is BinOp:
        op = e.op
        if op in _NONNEG_IF_BOTH:
            return nonneg(e.a, facts) and nonneg(e.b, facts)
        if op in _NONNEG_IF_BOTH_WIDE:
            return e.dtype.bits >= 32 and nonneg(e.a, facts) and nonneg(e.b, facts)
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
        # A non-negative integer keeps its value in a wider type, or in a signed one of its
        # own width when it was signed; an unsigned one of the same width (`T.int32(u)` of
        # a uint32) or a narrowing may come out negative.
        src = e.a.dtype
        if src.is_bool:
            return True
        return src.is_int and nonneg(e.a, facts) and (src.bits < e.dtype.bits or
                                                      (src.bits == e.dtype.bits and src.is_signed))
    if cls is Select:
        return nonneg(e.a, facts) and nonneg(e.b, facts)
    if cls is Call and e.func == "__shfl_sync":
        return nonneg(e.args[1], facts)
    return False


_NONNEG_IF_BOTH = frozenset({"floordiv", "truncdiv", "truncmod", "min", "max", ">>", "|", "^"})
_NONNEG_IF_BOTH_WIDE = frozenset({"+", "*"})  # and no wrap: at 32 bits and more (see nonneg)


# ---- C's integer promotion --------------------------------------------------------------------
# C computes nothing narrower than int: the operands of an 8- or 16-bit operation are
# widened to int (an unsigned constant, printed `3u`, to unsigned int), and so is the result.
# The IR's value of such an operation is its exact result wrapped to the dtype (as folding
# computes it); C's is the exact result itself, which for the operations of leaves_range
# can leave the dtype's range (uint8 `200 + 100` is 300, not 44; `~b` is negative). It is
# still congruent to the wrapped value modulo 2**bits, so it serves wherever only the low
# bits count: a store or a `let` of the dtype, a conversion to a type no wider, and the
# operands of an operation that takes congruent operands (modular_operands). Anywhere else
# (a division, a shift right, a comparison, a call, a wider conversion) lowering converts it
# back to its dtype (lower/narrow.py). The other operations keep operands that hold their
# exact values in range: `&`, `|`, `^` of two values in range are in range (for signed
# types too: they are sign-extended alike), as are `>>`, min, max, the remainders and the
# unsigned quotients; a comparison gives 0 or 1.

def promoted(dtype: DType) -> bool:
    """Whether C computes on values of this dtype as int: the 8- and 16-bit integers."""
    return dtype.bits < 32 and dtype.is_int and dtype.lanes == 1


_LEAVES_RANGE = frozenset({"+", "-", "*", "<<", "~"})
_CONGRUENT = frozenset({"+", "-", "&", "|", "^", "~"})


def leaves_range(e: Expr) -> bool:
    """Whether the C value of e, an operation of a promoted dtype whose operands hold their
    exact values, may lie outside the dtype's range: + - * << and unary - ~, and a signed
    truncating division by what may be -1 (`-128 / -1` is 128)."""
    cls = e.__class__
    if cls is BinOp:
        if e.op in _LEAVES_RANGE:
            return True
        return e.op == "truncdiv" and e.dtype.is_signed and not (e.b.__class__ is IntImm and e.b.value != -1)
    return cls is UnaryOp and e.op != "!"


def modular_operands(e: Expr) -> bool:
    """Whether an operation of a promoted dtype gives the right low bits from operands that
    are only congruent to their values modulo 2**bits (the left one, for `<<`): + - & | ^ and
    unary - ~, whose C values grow at most linearly; a product or left shift only where it is
    computed in unsigned int (an unsigned constant operand, or overflows_int), since one of
    values already outside the range could overflow int."""
    cls = e.__class__
    if cls is UnaryOp:
        return e.op != "!"
    if cls is not BinOp:
        return False
    op = e.op
    if op in _CONGRUENT:
        return True
    if op == "*":
        return overflows_int(e) or any(x.__class__ is IntImm and not x.dtype.is_signed for x in (e.a, e.b))
    return op == "<<" and overflows_int(e)


def overflows_int(e: BinOp) -> bool:
    """Whether an operation of a promoted dtype could make C's int arithmetic overflow
    (undefined), so that lowering computes it in unsigned int: a 16-bit product (65535 *
    65535 overflows int, and so does the sum of two int16 products, 2**30 each), a left
    shift of a signed value (negative: undefined before C++20) or of a uint16 (65535 << 15);
    not where an unsigned constant operand makes it unsigned already, nor for uint8, whose
    products and shifts stay far from int's limits."""
    op, dtype = e.op, e.dtype
    if op == "<<":
        if not dtype.is_signed and dtype.bits == 8:
            return False
        return not (e.a.__class__ is IntImm and not dtype.is_signed)
    if op == "*" and dtype.bits == 16:
        return dtype.is_signed or not (e.a.__class__ is IntImm or e.b.__class__ is IntImm)
    return False


def difference(a: Expr, b: Expr, span: Span = NOWHERE) -> Expr:
    """`a - b`, a constant where the two integer expressions differ by one: the extent of a slice
    `A[m0:m0 + 64]` is 64 whatever m0 is (equal terms cancel: the same in wrapping arithmetic)."""
    terms = _affine(binop("-", a, b, span)) if a.dtype.is_int and b.dtype.is_int else None
    if terms is None or set(terms) - {None}:
        return binop("-", a, b, span)
    return IntImm(a.dtype, _wrap(terms.get(None, 0), a.dtype), span)


def _affine(e: Expr) -> dict | None:
    """e as {term: coefficient} (the key None: the constant) over + - and products with a
    constant; None when it is not that."""
    if isinstance(e, IntImm):
        return {None: e.value}
    if isinstance(e, BinOp) and e.op in ("+", "-"):
        a, b = _affine(e.a), _affine(e.b)
        if a is None or b is None:
            return None
        sign = 1 if e.op == "+" else -1
        for key, coeff in b.items():
            a[key] = a.get(key, 0) + sign * coeff
        return {k: v for k, v in a.items() if v or k is None}
    if isinstance(e, BinOp) and e.op == "*" and (isinstance(e.a, IntImm) or isinstance(e.b, IntImm)):
        factor, rest = (e.a.value, e.b) if isinstance(e.a, IntImm) else (e.b.value, e.a)
        inner = _affine(rest)
        return None if inner is None else {k: v * factor for k, v in inner.items()}
    return {e: 1}
