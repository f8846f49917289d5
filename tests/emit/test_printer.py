"""The C printer: literal texts (docs/design.md, decision 11), parenthesisation, and the
statement forms, on hand-built IR."""
from __future__ import annotations

import math
import random
import struct

import pytest

from transpiler import ir
from transpiler.target.dtypes import BOOL, FLOAT32, FLOAT64, INT32, INT64, UINT32, UINT64, parse_dtype
from transpiler.codegen.cuda import CPrinter, decimal_to_float32, float32_text, float64_text, narrow_float_text

FLOAT16 = parse_dtype("float16")
BFLOAT16 = parse_dtype("bfloat16")
INT8 = parse_dtype("int8")

X = ir.Var(INT32, "x")
Y = ir.Var(INT32, "y")
F = ir.Var(FLOAT32, "f")


def p(e: ir.Expr, top: bool = True) -> str:
    return CPrinter().expr(e, top)


def f32_bits(v: float) -> int:
    return struct.unpack("<I", struct.pack("<f", v))[0]


def from_bits(b: int) -> float:
    return struct.unpack("<f", struct.pack("<I", b))[0]


# ---- float32 texts -----------------------------------------------------------------------------------

@pytest.mark.parametrize("value, text", [
    (2.0, "2.0"), (0.1, "0.1"), (-2.5, "-2.5"), (100.0, "100.0"), (0.0, "0.0"), (-0.0, "-0.0"),
    (1.0 / 3.0, "0.33333334"),
    (16777217.0, "16777216.0"),            # rounded to float32 first
    (3.4028234663852886e38, "3.4028235e38"),  # FLT_MAX (no overflow while searching)
    (1e20, "1.0e20"), (1e-30, "1.0e-30"), (1e-5, "1.0e-5"), (0.0001, "0.0001"),
    (2.0 ** -149, "1.0e-45"),             # the smallest subnormal
    (1e10, "10000000000.0"),
])
def test_float32_text(value, text):
    assert float32_text(value) == text


def test_float32_text_round_trips_and_is_shortest():
    rng = random.Random(1234)
    patterns = [rng.getrandbits(32) for _ in range(3000)] + [0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF,
                                                            0x3F800001, 0x4B7FFFFF, 0x33800000]
    for bits in patterns:
        if bits & 0x7F800000 == 0x7F800000:
            continue  # inf / nan are printed as constants
        value = from_bits(bits)
        text = float32_text(value)
        assert "." in text and "e+" not in text and "inf" not in text
        assert decimal_to_float32(text) == value, (hex(bits), text)
        digits = len(text.lstrip("-").split("e")[0].replace(".", "").strip("0"))
        assert digits <= 9
        if digits > 1:  # one digit fewer never round-trips
            shorter = f"{value:.{digits - 2}e}"
            assert decimal_to_float32(shorter) != value, (hex(bits), text, shorter)


def test_decimal_to_float32_avoids_double_rounding():
    # 1 + 2**-24 is the midpoint between 1.0 and the next float32; a hair above it
    # must round up, although through float64 it lands exactly on the midpoint
    # and ties to the even 1.0.
    text = "1.00000005960464477539062500001"
    assert struct.unpack("<f", struct.pack("<f", float(text)))[0] == 1.0  # the double-rounding trap
    assert decimal_to_float32(text) == from_bits(0x3F800001)
    assert decimal_to_float32("1.000000059604644775390625") == 1.0  # the exact tie: even


def test_decimal_to_float32_overflow_edge():
    assert decimal_to_float32("3.4028235e38") == from_bits(0x7F7FFFFF)
    assert decimal_to_float32("3.5e38") == math.inf
    assert decimal_to_float32("-3.5e38") == -math.inf


# ---- float64 and narrow texts ----------------------------------------------------------------------------

@pytest.mark.parametrize("value, text", [
    (2.0, "2.0"), (0.1, "0.1"), (1.0 / 3.0, "0.3333333333333333"), (1e300, "1.0e300"), (1e16, "1.0e16"),
    (5e-324, "5.0e-324"), (123456789.0, "123456789.0"),
])
def test_float64_text(value, text):
    assert float64_text(value) == text
    assert float(text) == value


@pytest.mark.parametrize("value, dtype, text", [
    (2.0, FLOAT16, "2.0"), (0.1, FLOAT16, "0.1"), (1.0 / 3.0, FLOAT16, "0.3333"), (65504.0, FLOAT16, "65500.0"),
    (0.1, BFLOAT16, "0.1"), (1.0 / 3.0, BFLOAT16, "0.334"),
])
def test_narrow_float_text(value, dtype, text):
    assert narrow_float_text(value, dtype) == text
    assert ir.round_float(decimal_to_float32(text), dtype) == ir.round_float(value, dtype)


# ---- literal nodes -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("node, top, text", [
    (ir.FloatImm(FLOAT32, 2.0), True, "2.0f"),
    (ir.FloatImm(FLOAT32, -2.0), True, "-2.0f"),
    (ir.FloatImm(FLOAT32, -2.0), False, "(-2.0f)"),
    (ir.FloatImm(FLOAT64, 2.0), True, "2.0"),
    (ir.FloatImm(FLOAT16, 2.0), True, "((half)2.0f)"),
    (ir.FloatImm(BFLOAT16, 0.5), True, "((nv_bfloat16)0.5f)"),
    (ir.FloatImm(FLOAT32, math.inf), True, "CUDART_INF_F"),
    (ir.FloatImm(FLOAT32, -math.inf), False, "(-CUDART_INF_F)"),
    (ir.FloatImm(FLOAT32, math.nan), True, "CUDART_NAN_F"),
    (ir.FloatImm(FLOAT64, math.inf), True, "CUDART_INF"),
    (ir.FloatImm(FLOAT64, math.nan), True, "CUDART_NAN"),
    (ir.FloatImm(FLOAT16, math.inf), True, "((half)CUDART_INF_F)"),
    (ir.FloatImm(FLOAT32, 1e39), True, "CUDART_INF_F"),   # out of float32 range
    (ir.FloatImm(FLOAT16, 70000.0), True, "((half)CUDART_INF_F)"),
    (ir.IntImm(INT32, 5), False, "5"),
    (ir.IntImm(INT32, -5), True, "-5"),
    (ir.IntImm(INT32, -5), False, "(-5)"),
    (ir.IntImm(INT32, -2 ** 31), False, "(-2147483647 - 1)"),
    (ir.IntImm(INT64, 5), True, "5LL"),
    (ir.IntImm(INT64, -5), False, "(-5LL)"),
    (ir.IntImm(INT64, -2 ** 63), True, "(-9223372036854775807LL - 1)"),
    (ir.IntImm(INT8, 5), True, "((signed char)5)"),
    (ir.IntImm(UINT32, 7), True, "7u"),
    (ir.IntImm(UINT32, 100000), True, "100000u"),        # not a mask: decimal
    (ir.IntImm(UINT32, 0xFFFFFFFF), True, "0xffffffffu"),
    (ir.IntImm(UINT32, 0xFFFF0000), True, "0xffff0000u"),
    (ir.IntImm(UINT32, 0x55555555), True, "0x55555555u"),
    (ir.IntImm(UINT32, 0x80000000), True, "0x80000000u"),
    (ir.IntImm(UINT32, 0xFF), True, "255u"),              # small: decimal
    (ir.IntImm(UINT64, 0xFFFFFFFFFFFFFFFF), True, "0xffffffffffffffffull"),
    (ir.IntImm(BOOL, 1), True, "true"),
    (ir.IntImm(BOOL, 0), True, "false"),
])
def test_literal_node(node, top, text):
    assert p(node, top) == text


# ---- parenthesisation ---------------------------------------------------------------------------------------

def test_binary_operations_are_parenthesised_below_the_top():
    e = ir.BinOp(INT32, "+", ir.BinOp(INT32, "*", X, ir.IntImm(INT32, 8)), Y)
    assert p(e, True) == "(x * 8) + y"
    assert p(e, False) == "((x * 8) + y)"


def test_unary_minus_needs_no_parentheses_but_never_doubles():
    neg = ir.UnaryOp(INT32, "-", Y)
    assert p(ir.BinOp(BOOL, "<=", X, neg)) == "x <= -y"
    assert p(ir.UnaryOp(INT32, "-", neg)) == "-(-y)"
    assert p(ir.UnaryOp(INT32, "-", ir.BinOp(INT32, "+", X, Y))) == "-(x + y)"
    assert p(ir.UnaryOp(INT32, "~", X)) == "~x"
    assert p(ir.UnaryOp(INT32, "-", ir.IntImm(INT32, -3)), True) == "-(-3)"


def test_not():
    cond = ir.BinOp(BOOL, ">", X, ir.IntImm(INT32, 3))
    assert p(ir.UnaryOp(BOOL, "!", cond)) == "!(x > 3)"
    assert p(ir.UnaryOp(BOOL, "!", ir.Var(BOOL, "b"))) == "!b"


def test_cast_parentheses_only_below_the_top():
    c = ir.Cast(FLOAT32, X)
    assert p(c, True) == "(float)x"
    assert p(ir.BinOp(FLOAT32, "*", c, F)) == "((float)x) * f"
    assert p(ir.Cast(FLOAT32, ir.Cast(INT32, F))) == "(float)((int)f)"
    assert p(ir.Call(FLOAT32, "expf", (c,))) == "expf((float)x)"


def test_select():
    e = ir.Select(INT32, ir.BinOp(BOOL, ">=", X, ir.IntImm(INT32, 0)), X, Y)
    assert p(e) == "(x >= 0) ? x : y"
    assert p(ir.BinOp(INT32, "+", e, Y)) == "((x >= 0) ? x : y) + y"


def test_min_max_spellings():
    assert p(ir.BinOp(INT32, "min", X, ir.IntImm(INT32, -100))) == "min(x, -100)"
    h = ir.Var(FLOAT16, "h")
    assert p(ir.BinOp(FLOAT16, "max", h, h)) == "__hmax(h, h)"


def test_division_operators():
    assert p(ir.BinOp(INT32, "truncdiv", X, Y)) == "x / y"
    assert p(ir.BinOp(INT32, "truncmod", X, Y)) == "x % y"


def test_string_literal_escapes():
    assert p(ir.StrImm(INT32, 'a"b\\c\n\t\x01')) == '"a\\"b\\\\c\\n\\t\\001"'


# ---- statements ----------------------------------------------------------------------------------------------

def lines_of(stmt: ir.Stmt) -> list[str]:
    printer = CPrinter()
    printer.level = 0
    printer.stmt(stmt)
    return printer.lines


def loop(start, stop, step, direction=0):
    k = ir.Var(INT32, "k")
    as_expr = (lambda v: ir.IntImm(INT32, v) if isinstance(v, int) else v)
    return ir.For(k, as_expr(start), as_expr(stop), as_expr(step), ir.Evaluate(ir.Call(INT32, "f", (k,))),
                  direction=direction)


@pytest.mark.parametrize("args, header", [
    ((0, 8, 1), "for (int k = 0; k < 8; ++k) {"),
    ((0, 8, 2), "for (int k = 0; k < 8; k += 2) {"),
    ((10, 0, -1), "for (int k = 10; k > 0; --k) {"),
    ((10, 0, -3), "for (int k = 10; k > 0; k -= 3) {"),
    ((0, Y, X), "for (int k = 0; (x > 0) ? (k < y) : (k > y); k += x) {"),  # sign unknown: as range()
    ((0, Y, X, 1), "for (int k = 0; k < y; k += x) {"),                     # proved positive by lowering
    ((Y, 0, X, -1), "for (int k = y; k > 0; k += x) {"),
])
def test_for_headers(args, header):
    assert lines_of(loop(*args))[0] == header


def test_if_else_if_chain():
    def cond(v):
        return ir.BinOp(BOOL, "<", X, ir.IntImm(INT32, v))

    def call(n):
        return ir.Evaluate(ir.Call(INT32, n, ()))
    chain = ir.If(cond(0), call("a"), ir.If(cond(10), call("b"), call("c")))
    assert lines_of(chain) == ["if (x < 0) {", "  a();", "} else if (x < 10) {", "  b();", "} else {", "  c();",
                               "}"]
    assert lines_of(ir.If(cond(0), call("a"), ir.Seq(()))) == ["if (x < 0) {", "  a();", "}"]


def test_trap():
    assert lines_of(ir.Trap(ir.BinOp(BOOL, "<", X, Y), "x out of range")) == [
        "if (!(x < y)) {", "  __trap();  // x out of range", "}"]


def test_array_declarations():
    def decl(scope, align, dtype=FLOAT32):
        return lines_of(ir.ArrayDecl(ir.Storage("r_ptr", dtype, scope, "array", 4, align)))[0]
    assert decl("local", 0) == "float r_ptr[4];"
    assert decl("local", 4) == "float r_ptr[4];"     # natural alignment: nothing to say
    assert decl("local", 16) == "alignas(16) float r_ptr[4];"
    assert decl("shared", 64) == "__shared__ alignas(64) float r_ptr[4];"


def test_vector_access():
    a = ir.Storage("A_ptr", FLOAT32, "global", "param")
    b = ir.Storage("B_ptr", FLOAT32, "global", "param")
    f4 = parse_dtype("float32x4")
    idx = ir.BinOp(INT32, "*", X, ir.IntImm(INT32, 4))
    store = ir.VecStore(b, idx, ir.VecLoad(f4, a, ir.IntImm(INT32, 0)))
    assert lines_of(store) == ["*(float4*)(B_ptr + (x * 4)) = *(float4*)A_ptr;"]
    a.readonly = True   # lowering marks a never-written parameter: `const float* __restrict__ A_ptr`
    assert lines_of(store) == ["*(float4*)(B_ptr + (x * 4)) = *(const float4*)A_ptr;"]


# ---- T.reinterpret -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("src, dst, text", [
    (FLOAT32, UINT32, "__float_as_uint(f * 2.0f)"),
    (FLOAT32, INT32, "__float_as_int(f * 2.0f)"),
    (FLOAT64, INT64, "__double_as_longlong(f * 2.0)"),
    (FLOAT16, parse_dtype("uint16"), "__half_as_ushort(f * ((half)2.0f))"),
    (BFLOAT16, parse_dtype("int16"), "__bfloat16_as_short(f * ((nv_bfloat16)2.0f))"),
    (INT32, UINT32, "(unsigned int)(f * 2)"),
])
def test_reinterpret_of_an_rvalue_uses_bit_cast_intrinsics(src, dst, text):
    f = ir.Var(src, "f")
    two = ir.FloatImm(src, 2.0) if src.is_float else ir.IntImm(src, 2)
    assert p(ir.Reinterpret(dst, ir.BinOp(src, "*", f, two))) == text


def test_reinterpret_without_an_intrinsic():
    a = ir.Storage("A_ptr", UINT32, "global", "param")
    load = ir.Load(UINT32, a, X)
    f16x2 = parse_dtype("float16x2")
    assert p(ir.Reinterpret(f16x2, load)) == "(*reinterpret_cast<const half2*>(&A_ptr[x]))"  # an lvalue
    rvalue = ir.BinOp(UINT32, "+", load, ir.IntImm(UINT32, 1))
    assert p(ir.Reinterpret(f16x2, rvalue)) == (
        "([&]() { const unsigned int tirx_bits = A_ptr[x] + 1u; "
        "return *reinterpret_cast<const half2*>(&tirx_bits); }())")
