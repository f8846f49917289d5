"""ir.py's folding constructors: constants fold with C semantics in the
operand dtype (two's-complement wrap, floor vs truncating division, float32
precision), identities drop, and the reassociations that keep unrolled
indices tidy are exact."""
from __future__ import annotations

import math
import struct

import pytest

from tests.lower.evaluate import evaluate
from transpiler import ir
from transpiler.target.dtypes import BOOL, FLOAT32, FLOAT64, INT32, INT64, UINT32, parse_dtype
from transpiler.evaluator.values import POISON

FLOAT16 = parse_dtype("float16")
BFLOAT16 = parse_dtype("bfloat16")
INT8 = parse_dtype("int8")


def i32(v):
    return ir.IntImm(INT32, v)


def f32(v):
    return ir.FloatImm(FLOAT32, v)


X = ir.Var(INT32, "x")
Y = ir.Var(INT32, "y")
F = ir.Var(FLOAT32, "f")


def as_f32(v: float) -> float:
    return struct.unpack("<f", struct.pack("<f", v))[0]


# ---- integer constants -------------------------------------------------------------------------------

@pytest.mark.parametrize("op, a, b, result", [
    ("+", 2, 3, 5), ("-", 2, 3, -1), ("*", -4, 3, -12),
    ("floordiv", -7, 2, -4), ("floormod", -7, 2, 1), ("floordiv", 7, -2, -4), ("floormod", 7, -2, -1),
    ("truncdiv", -7, 2, -3), ("truncmod", -7, 2, -1), ("truncdiv", 7, -2, -3), ("truncmod", 7, -2, 1),
    ("<<", 1, 4, 16), (">>", -16, 2, -4), ("&", 12, 10, 8), ("|", 12, 10, 14), ("^", 12, 10, 6),
    ("min", 3, -2, -2), ("max", 3, -2, 3),
    ("+", 2 ** 31 - 1, 1, -2 ** 31),          # int32 wraps as the C code would
    ("*", 65536, 65536, 0),
])
def test_int_folding(op, a, b, result):
    out = ir.binop(op, i32(a), i32(b))
    assert out == i32(result)


def test_unsigned_wraps():
    assert ir.binop("-", ir.IntImm(UINT32, 0), ir.IntImm(UINT32, 1)) == ir.IntImm(UINT32, 0xFFFFFFFF)


def test_int64_does_not_wrap_at_32_bits():
    big = ir.binop("*", ir.IntImm(INT64, 65536), ir.IntImm(INT64, 65536))
    assert big == ir.IntImm(INT64, 1 << 32)


@pytest.mark.parametrize("op", ["floordiv", "floormod", "truncdiv", "truncmod"])
def test_division_by_zero_is_not_folded(op):
    out = ir.binop(op, i32(1), i32(0))
    assert isinstance(out, ir.BinOp) and out.op == op


@pytest.mark.parametrize("op, b", [("<<", 32), ("<<", -1), (">>", 40)])
def test_out_of_range_shift_is_not_folded(op, b):
    assert isinstance(ir.binop(op, i32(1), i32(b)), ir.BinOp)


def test_comparisons_and_logic_give_bool():
    assert ir.binop("<", i32(1), i32(2)) == ir.IntImm(BOOL, 1)
    assert ir.binop("==", i32(1), i32(2)) == ir.IntImm(BOOL, 0)
    cond = ir.binop("<", X, Y)
    assert cond.dtype == BOOL
    assert ir.binop("&&", ir.IntImm(BOOL, 1), cond) is cond
    assert ir.binop("&&", ir.IntImm(BOOL, 0), cond) == ir.IntImm(BOOL, 0)
    assert ir.binop("||", ir.IntImm(BOOL, 1), cond) == ir.IntImm(BOOL, 1)
    assert ir.binop("||", cond, ir.IntImm(BOOL, 0)) is cond


# ---- identities --------------------------------------------------------------------------------------

def test_integer_identities():
    assert ir.binop("+", X, i32(0)) is X
    assert ir.binop("+", i32(0), X) is X
    assert ir.binop("-", X, i32(0)) is X
    assert ir.binop("*", X, i32(1)) is X
    assert ir.binop("*", i32(1), X) is X
    assert ir.binop("*", X, i32(0)) == i32(0)
    assert ir.binop("floordiv", X, i32(1)) is X
    assert ir.binop("floormod", X, i32(1)) == i32(0)


def test_float_identities_keep_nan_and_negative_zero():
    assert ir.binop("*", F, f32(1.0)) is F
    assert ir.binop("*", f32(1.0), F) is F
    assert isinstance(ir.binop("+", F, f32(0.0)), ir.BinOp)  # -0.0 + 0.0 is +0.0
    assert isinstance(ir.binop("*", F, f32(0.0)), ir.BinOp)  # NaN * 0 is NaN


# ---- reassociation of constants -----------------------------------------------------------------------

@pytest.mark.parametrize("build, expected", [
    (lambda: ir.binop("+", ir.binop("+", X, i32(3)), i32(4)), ("+", 7)),
    (lambda: ir.binop("+", ir.binop("-", X, i32(3)), i32(5)), ("+", 2)),
    (lambda: ir.binop("+", ir.binop("-", X, i32(5)), i32(3)), ("-", 2)),
    (lambda: ir.binop("-", ir.binop("+", X, i32(5)), i32(7)), ("-", 2)),
    (lambda: ir.binop("-", ir.binop("-", X, i32(3)), i32(4)), ("-", 7)),
    (lambda: ir.binop("+", X, i32(-3)), ("-", 3)),
    (lambda: ir.binop("-", X, i32(-3)), ("+", 3)),
])
def test_constants_gather(build, expected):
    out = build()
    assert isinstance(out, ir.BinOp) and out.a is X and (out.op, out.b.value) == expected


def test_constant_minus_x_plus_constant():
    out = ir.binop("+", ir.binop("-", i32(8191), X), i32(8192))
    assert out == ir.BinOp(INT32, "-", i32(16383), X)


def test_gathered_constants_cancel():
    assert ir.binop("+", ir.binop("-", X, i32(1)), i32(1)) is X


def test_int_min_is_not_negated():
    out = ir.binop("+", X, i32(-2 ** 31))
    assert out == ir.BinOp(INT32, "+", X, i32(-2 ** 31))
    out = ir.binop("-", X, i32(-2 ** 31))
    assert out == ir.BinOp(INT32, "-", X, i32(-2 ** 31))


def test_reassociation_is_exact():
    exprs = [
        ir.binop("+", ir.binop("-", X, i32(3)), i32(5)),
        ir.binop("-", ir.binop("+", X, i32(3)), i32(9)),
        ir.binop("+", ir.binop("-", i32(10), X), i32(-4)),
        ir.binop("-", ir.binop("-", X, i32(2 ** 30)), i32(2 ** 30)),
    ]
    naive = [lambda x: (x - 3) + 5, lambda x: (x + 3) - 9, lambda x: (10 - x) - 4, lambda x: x - 2 ** 31]
    for e, f in zip(exprs, naive):
        for x in (-2 ** 31, -5, 0, 7, 2 ** 31 - 1):
            want = f(x) & 0xFFFFFFFF
            want = want - (1 << 32) if want >= 1 << 31 else want
            assert evaluate(e, {"x": x}) == want


def test_unsigned_subtraction_is_not_turned_into_addition():
    u = ir.Var(UINT32, "u")
    out = ir.binop("-", u, ir.IntImm(UINT32, 3))
    assert out.op == "-" and out.b.value == 3


def test_float_addition_does_not_reassociate():
    out = ir.binop("+", ir.binop("+", F, f32(1.0)), f32(2.0))
    assert out.a.op == "+"  # (f + 1) + 2 is not f + 3 in floating point


# ---- floats -------------------------------------------------------------------------------------------------

def test_float32_constants_fold_in_float32():
    assert ir.binop("/", f32(1.0), f32(3.0)).value == as_f32(1.0 / 3.0)
    assert ir.binop("*", f32(0.1), f32(3.0)).value == as_f32(as_f32(0.1) * 3.0)
    assert ir.binop("+", f32(16777216.0), f32(1.0)).value == 16777216.0  # 2**24 + 1 is not a float32


def test_float64_constants_fold_in_float64():
    a, b = ir.FloatImm(FLOAT64, 0.1), ir.FloatImm(FLOAT64, 0.2)
    assert ir.binop("+", a, b).value == 0.1 + 0.2


def test_float16_constants_fold_in_float16():
    h = ir.binop("+", ir.FloatImm(FLOAT16, 2048.0), ir.FloatImm(FLOAT16, 1.0))
    assert h.value == 2048.0  # 2049 is not a half


def test_float_division_by_zero_is_not_folded():
    assert isinstance(ir.binop("/", f32(1.0), f32(0.0)), ir.BinOp)


@pytest.mark.parametrize("value, dtype, expected", [
    (0.1, FLOAT32, as_f32(0.1)),
    (16777217.0, FLOAT32, 16777216.0),
    (1e39, FLOAT32, math.inf),
    (-1e39, FLOAT32, -math.inf),
    (65520.0, FLOAT16, math.inf),   # rounds past the largest half, 65504
    (65519.0, FLOAT16, 65504.0),
    (1.00390625, BFLOAT16, 1.0),    # 1 + 2**-8: halfway, ties to even
    (1.01171875, BFLOAT16, 1.015625),  # 1 + 3 * 2**-8: halfway, ties to even (up)
    (0.1, FLOAT64, 0.1),
])
def test_round_float(value, dtype, expected):
    assert ir.round_float(value, dtype) == expected


def test_round_float_keeps_nan():
    assert math.isnan(ir.round_float(math.nan, FLOAT32))


def test_const_rounds_to_the_dtype():
    assert ir.const(0.1, FLOAT32).value == as_f32(0.1)
    assert ir.const(3, INT32) == i32(3)


# ---- unary, cast, select ---------------------------------------------------------------------------------

def test_unary_folding():
    assert ir.unary("-", i32(-2 ** 31)) == i32(-2 ** 31)  # wraps, as in C
    assert ir.unary("~", i32(0)) == i32(-1)
    assert ir.unary("!", i32(0)) == ir.IntImm(BOOL, 1)
    assert ir.unary("-", f32(2.5)) == f32(-2.5)
    cond = ir.binop("<", X, Y)
    assert ir.unary("!", ir.unary("!", cond)) is cond


def test_cast_folding():
    assert ir.cast(FLOAT32, i32(16777217)) == f32(16777216.0)
    assert ir.cast(INT32, f32(2.7)) == i32(2)        # C truncates toward zero
    assert ir.cast(INT32, f32(-2.7)) == i32(-2)
    assert isinstance(ir.cast(INT32, f32(3e9)), ir.Cast)  # out of range: undefined in C, left alone
    assert isinstance(ir.cast(INT32, f32(math.nan)), ir.Cast)
    assert ir.cast(INT8, i32(300)) == ir.IntImm(INT8, 44)
    assert ir.cast(BOOL, i32(5)) == ir.IntImm(BOOL, 1)
    assert ir.cast(INT32, X) is X
    assert ir.cast(FLOAT32, X) == ir.Cast(FLOAT32, X)


def test_select_folding():
    assert ir.select(ir.IntImm(BOOL, 1), X, Y) is X
    assert ir.select(ir.IntImm(BOOL, 0), X, Y) is Y
    cond = ir.binop("<", X, Y)
    assert ir.select(cond, X, Y) == ir.Select(INT32, cond, X, Y)


# ---- traversal helpers -----------------------------------------------------------------------------------

def _substitute(e: ir.Expr, mapping: dict[str, ir.Expr]) -> ir.Expr:
    """Variables replaced by name, bottom-up through map_children (as lowering rewrites)."""
    if isinstance(e, ir.Var):
        return mapping.get(e.name, e)
    return ir.map_children(e, lambda child: _substitute(child, mapping))


def test_map_children_refolds():
    e = ir.binop("+", ir.binop("*", X, i32(4)), Y)
    assert _substitute(e, {"x": i32(2), "y": i32(1)}) == i32(9)


def test_map_children_rebuilds_bottom_up():
    e = ir.binop("+", ir.binop("+", X, i32(1)), i32(2))  # already x + 3
    assert _substitute(e, {"x": ir.binop("-", Y, i32(3))}) is Y


def test_map_children_keeps_a_node_whose_children_are_unchanged():
    e = ir.Select(INT32, ir.binop("<", X, Y), ir.Call(INT32, "f", (X,)), i32(0))
    assert ir.map_children(e, lambda child: child) is e
    assert _substitute(e, {"z": i32(1)}) is e
    assert ir.map_children(X, lambda child: i32(1)) is X  # a leaf has no children


# ---- quotient and remainder rejoined -------------------------------------------------------------------

def _split(op_div: str, op_mod: str, x: ir.Expr, c: int) -> tuple[ir.Expr, ir.Expr]:
    if op_div == ">>":
        return ir.BinOp(INT32, ">>", x, i32(c.bit_length() - 1)), ir.BinOp(INT32, "&", x, i32(c - 1))
    return ir.BinOp(INT32, op_div, x, i32(c)), ir.BinOp(INT32, op_mod, x, i32(c))


@pytest.mark.parametrize("op_div, op_mod", [("floordiv", "floormod"), ("truncdiv", "truncmod"), (">>", "&")])
def test_a_row_major_index_of_quotient_and_remainder_is_the_flat_index(op_div, op_mod):
    # A[x // 64, x % 64] of a (.., 64) buffer is element x; with a block offset p in the
    # first coordinate, p * 64 + x.
    q, r = _split(op_div, op_mod, X, 64)
    assert ir.binop("+", ir.binop("*", q, i32(64)), r) == X
    assert ir.binop("+", r, ir.binop("*", q, i32(64))) == X
    offset = ir.binop("*", ir.binop("+", Y, q), i32(64))
    expected = ir.binop("+", ir.binop("*", Y, i32(64)), X)
    assert ir.binop("+", offset, r) == expected
    for x in (-130, -64, -1, 0, 1, 63, 64, 1000):
        for y in (-3, 0, 5):
            env = {"x": x, "y": y}
            unfolded = ir.BinOp(INT32, "+", ir.BinOp(INT32, "*", ir.BinOp(INT32, "+", Y, q), i32(64)), r)
            assert evaluate(expected, env) == evaluate(unfolded, env)


@pytest.mark.parametrize("q, r", [
    (ir.BinOp(INT32, "floordiv", X, i32(64)), ir.BinOp(INT32, "truncmod", X, i32(64))),  # mixed semantics
    (ir.BinOp(INT32, "floordiv", X, i32(32)), ir.BinOp(INT32, "floormod", X, i32(32))),  # scaled by 64, not 32
    (ir.BinOp(INT32, "floordiv", Y, i32(64)), ir.BinOp(INT32, "floormod", X, i32(64))),  # different dividends
    (ir.BinOp(INT32, ">>", X, i32(6)), ir.BinOp(INT32, "&", X, i32(31))),               # mask of 32, not 64
])
def test_other_quotient_remainder_sums_stay(q, r):
    summed = ir.binop("+", ir.binop("*", q, i32(64)), r)
    assert isinstance(summed, ir.BinOp) and summed.op == "+"


def test_constant_factors_multiply_together():
    assert ir.binop("*", ir.binop("*", X, i32(128)), i32(64)) == ir.binop("*", X, i32(8192))


# ---- traversal -------------------------------------------------------------------------------------------

def _node_classes(base):
    return [cls for cls in vars(ir).values()
            if isinstance(cls, type) and issubclass(cls, base) and cls not in (ir.Expr, ir.Stmt)]


def test_every_node_class_lists_its_expressions():
    assert set(ir.NODE_EXPRS) == set(_node_classes(ir.Expr)) | set(_node_classes(ir.Stmt))


def test_node_expressions_are_the_expression_fields_in_order():
    i, j = ir.Var(INT32, "i"), ir.Var(INT32, "j")
    load = ir.BufferLoad(INT32, None, (i, j))
    store = ir.BufferStore(None, (j, i), load)
    loop = ir.For(i, i32(0), j, i32(1), store)
    for node, expected in ((ir.binop("+", i, j), [i, j]), (load, [i, j]), (ir.Select(INT32, X, i, j), [X, i, j]),
                           (ir.Call(INT32, "f", (j, i)), [j, i]), (ir.Address(INT32, None, None), []),
                           (store, [j, i, load]), (loop, [i, i32(0), j, i32(1)]), (ir.LetStmt(j, load), [j, load])):
        assert ir.stmt_exprs(node) == expected


def test_the_walks_skip_what_is_not_an_expression():
    # the checker's IR of a failed expression may hold a Poison where an expression belongs
    assert ir.stmt_exprs(ir.BufferStore(None, (X, POISON), POISON)) == [X]
    add, call = ir.BinOp(INT32, "+", X, POISON), ir.Call(INT32, "f", (POISON, Y))
    assert list(ir.walk_expr(add)) == [add, X]
    assert list(ir.walk_expr(call)) == [call, Y]


def test_walk_expr_visits_parents_before_children():
    inner = ir.binop("*", X, Y)
    e = ir.Select(INT32, ir.binop("<", X, i32(0)), inner, i32(1))
    nodes = list(ir.walk_expr(e))
    assert nodes[0] is e and nodes.index(inner) < nodes.index(Y)
    assert sorted(map(repr, nodes)) == sorted(map(repr, [e, e.cond, X, i32(0), inner, X, Y, i32(1)]))


# ---- folding equals run time: conversions, NaN, large counts -------------------------------------------

FP8 = parse_dtype("float8_e4m3fn")
E5M2 = parse_dtype("float8_e5m2")
FP4 = parse_dtype("float4_e2m1fn")
E8M0 = parse_dtype("float8_e8m0fnu")
UINT8 = parse_dtype("uint8")
INT16 = parse_dtype("int16")
UINT16 = parse_dtype("uint16")
UINT64 = parse_dtype("uint64")


@pytest.mark.parametrize("value, dtype, expected", [
    (2 ** 60 + 2 ** 36 + 1, FLOAT32, 2.0 ** 60 + 2.0 ** 37),   # through float64: 2**60 (a tie, to even)
    (-(2 ** 60 + 2 ** 36 + 1), FLOAT32, -(2.0 ** 60 + 2.0 ** 37)),
    (2 ** 64 - 1, FLOAT32, 2.0 ** 64),
    (2 ** 60 + 2 ** 52 + 1, BFLOAT16, 2.0 ** 60 + 2.0 ** 53),   # through float32: 2**60
    (2 ** 63 + 1, FLOAT64, 2.0 ** 63),
    (65520, FLOAT16, math.inf),
    (1 + 2 ** -8 + 2 ** -30, BFLOAT16, 1 + 2 ** -7),            # float64 -> bfloat16 rounds once
    (0.3, FP8, 0.3125), (1000.0, FP8, 448.0), (464.0, FP8, 448.0), (math.inf, FP8, 448.0),
    (-math.inf, E5M2, -57344.0), (61440.0, E5M2, 57344.0), (0.1, E5M2, 0.09375),
    (2 ** -10, FP8, 0.0), (3 * 2 ** -11, FP8, 2 ** -9),          # subnormals, ties to even
    (-2 ** -12, FP8, -0.0), (2.6, FP4, 3.0), (100.0, FP4, 6.0),
])
def test_round_float_rounds_once_as_cuda_converts(value, dtype, expected):
    got = ir.round_float(value, dtype)
    assert got == expected and math.copysign(1, got) == math.copysign(1, expected)


def test_formats_without_a_rule_do_not_fold():
    e = ir.FloatImm(E8M0, 2.0)
    assert isinstance(ir.binop("*", e, e), ir.BinOp)
    assert isinstance(ir.cast(E8M0, f32(3.0)), ir.Cast) and isinstance(ir.cast(FLOAT32, e), ir.Cast)
    nan4 = ir.FloatImm(FP4, math.nan)  # fp4 has no NaN: what the run time makes of it is not folded
    assert isinstance(ir.cast(FLOAT32, nan4), ir.Cast) and isinstance(ir.cast(FP4, f32(math.nan)), ir.Cast)
    assert ir.cast(FP8, f32(math.nan)).value != ir.cast(FP8, f32(math.nan)).value  # e4m3 has one


def test_fp8_arithmetic_folds_rounded_to_fp8():
    a, b = ir.FloatImm(FP8, 0.3125), ir.FloatImm(FP8, 448.0)
    assert ir.binop("+", a, ir.FloatImm(FP8, 0.3125)).value == 0.625
    assert ir.binop("*", b, b).value == 448.0  # saturates
    assert ir.binop("+", ir.FloatImm(FP8, 1.0), ir.FloatImm(FP8, 0.0625)).value == 1.0  # 1.0625: tie, even
    assert ir.const(0.3, FP8).value == 0.3125


@pytest.mark.parametrize("dtype", [FLOAT32, FLOAT64, FLOAT16, BFLOAT16, FP8])
def test_min_max_with_a_nan_fold_to_the_other_operand(dtype):
    nan, one = ir.FloatImm(dtype, math.nan), ir.FloatImm(dtype, 1.0)
    for op in ("min", "max"):
        assert ir.binop(op, nan, one).value == 1.0 and ir.binop(op, one, nan).value == 1.0
        assert math.isnan(ir.binop(op, nan, nan).value)
        zeros = ir.binop(op, ir.FloatImm(dtype, -0.0), ir.FloatImm(dtype, 0.0))
        assert isinstance(zeros, ir.BinOp)  # which zero is the run time's (fminf) to say


def test_float_floor_division_folds_as_lowering_prints_it():
    # floor(a / b) with the quotient rounded first, as `floorf(a / b)`; Python's 1.0 // 0.1 is 9.0
    assert ir.binop("floordiv", f32(1.0), f32(0.1)).value == 10.0
    assert ir.binop("floordiv", f32(-7.5), f32(2.0)).value == -4.0
    assert math.copysign(1, ir.binop("floordiv", f32(-0.0), f32(2.0)).value) == -1
    assert ir.binop("floormod", f32(-7.5), f32(2.0)).value == 0.5
    # a - b * floor(a / b) whose product does not round exactly: an fma could differ, not folded
    odd = ir.binop("floormod", f32(1.0), f32(0.1))
    assert isinstance(odd, ir.BinOp) or odd.value == as_f32(1.0 - as_f32(as_f32(0.1) * 10.0))


def test_a_large_shift_count_is_refused_before_shifting():
    import time
    start = time.perf_counter()
    for op in ("<<", ">>"):
        for count in (10 ** 9, 2 ** 62, 64, -1):
            assert isinstance(ir.binop(op, ir.IntImm(INT64, 1), ir.IntImm(INT64, count)), ir.BinOp)
    assert ir.binop("<<", ir.IntImm(INT64, 1), ir.IntImm(INT64, 63)).value == -2 ** 63
    huge = ir.IntImm(INT64, 1 << 100_000)  # no IntImm of the checker is this large; none folds if it were
    assert isinstance(ir.binop("*", huge, huge), ir.BinOp)
    assert time.perf_counter() - start < 0.5


def test_non_negativity_of_conversions():
    u = ir.Var(UINT32, "u")
    n = ir.Var(INT32, "n")  # known non-negative below
    assert not ir.nonneg(ir.cast(INT32, u), set())          # T.int32(u) of a uint32 may be negative
    assert ir.nonneg(ir.cast(INT64, u), set())               # widened: keeps its value
    assert ir.nonneg(ir.cast(INT64, n), {"n"})
    assert not ir.nonneg(ir.cast(INT8, n), {"n"})            # narrowed: may wrap negative
    assert ir.nonneg(ir.cast(INT32, ir.binop("<", n, n)), set())
    assert not ir.nonneg(ir.cast(INT16, ir.Var(UINT16, "h")), set())
    assert ir.nonneg(ir.cast(INT32, ir.Var(UINT16, "h")), set())


def test_sums_of_narrow_non_negative_values_may_wrap():
    a, b = ir.Var(INT8, "a"), ir.Var(INT8, "b")
    assert not ir.nonneg(ir.binop("+", a, b), {"a", "b"})    # 100 + 100 is -56 in int8
    assert not ir.nonneg(ir.binop("*", a, b), {"a", "b"})
    assert ir.nonneg(ir.binop(">>", a, b), {"a", "b"}) and ir.nonneg(ir.binop("truncdiv", a, b), {"a", "b"})
    assert ir.nonneg(ir.binop("+", X, Y), {"x", "y"})        # 32-bit index arithmetic does not overflow


def test_promotion_facts():
    a, b = ir.Var(UINT8, "a"), ir.Var(UINT8, "b")
    assert ir.promoted(UINT8) and ir.promoted(INT16) and not ir.promoted(INT32) and not ir.promoted(BOOL)
    assert ir.leaves_range(ir.binop("+", a, b)) and ir.leaves_range(ir.unary("~", a))
    assert not ir.leaves_range(ir.binop(">>", a, b)) and not ir.leaves_range(ir.binop("&", a, b))
    s = ir.Var(INT8, "s")
    assert ir.leaves_range(ir.binop("truncdiv", s, ir.Var(INT8, "t")))      # -128 / -1
    assert not ir.leaves_range(ir.binop("truncdiv", s, ir.IntImm(INT8, 3)))
    assert not ir.leaves_range(ir.binop("truncdiv", a, b))                  # unsigned: in range
    h = ir.Var(UINT16, "h")
    assert ir.overflows_int(ir.binop("*", h, h)) and not ir.overflows_int(ir.binop("*", h, ir.IntImm(UINT16, 3)))
    assert ir.overflows_int(ir.binop("<<", s, s)) and not ir.overflows_int(ir.binop("<<", a, b))
    assert ir.overflows_int(ir.binop("*", ir.Var(INT16, "i"), ir.IntImm(INT16, 3)))  # two such sum past int
    assert not ir.overflows_int(ir.binop("*", a, b))  # uint8 products are far from int's limits
    # congruent operands serve + - & | ^ ~, and a product only where it is computed unsigned
    assert ir.modular_operands(ir.binop("+", a, b)) and ir.modular_operands(ir.unary("~", a))
    assert not ir.modular_operands(ir.binop("*", a, b))                     # (a * b) * c could overflow
    assert ir.modular_operands(ir.binop("*", h, h)) and ir.modular_operands(ir.binop("*", a, ir.IntImm(UINT8, 3)))
    assert ir.modular_operands(ir.binop("<<", s, s)) and not ir.modular_operands(ir.binop("<<", a, b))
    assert not ir.modular_operands(ir.binop(">>", a, b)) and not ir.modular_operands(ir.unary("!", a))


def test_difference_of_slice_bounds_is_constant_when_the_terms_cancel():
    from transpiler import ir
    from transpiler.target.dtypes import INT32
    x, y = ir.Var(INT32, "x"), ir.Var(INT32, "y")
    c = lambda v: ir.IntImm(INT32, v)  # noqa: E731
    start = ir.mul(x, c(128))
    assert ir.difference(ir.add(start, c(128)), start) == c(128)
    assert ir.difference(ir.mul(ir.add(x, c(1)), c(128)), start) == c(128)
    assert not ir.is_const(ir.difference(ir.add(y, c(4)), x))  # different terms stay `a - b`
