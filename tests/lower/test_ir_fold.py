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
from transpiler.sema.values import POISON

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
