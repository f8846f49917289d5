"""C forms of operations that CUDA lacks for a dtype: arithmetic on the fp8, fp6 and fp4
formats (through float32, as half math is where cuda_fp16.h has no function), and the
math intrinsics by dtype (clz and popcount within 8 and 16 bits, abs of unsigned values).
Each result is the one folding gives for the same constants (ir/fold.py)."""
from __future__ import annotations

from transpiler import ir
from transpiler.target.cmath import c_math_name, via_float32
from transpiler.target.dtypes import FLOAT32, INT32, DType, parse_dtype


def arith(op: str, a: ir.Expr, b: ir.Expr, span=ir.NOWHERE) -> ir.Expr:
    """`a op b`; on a format without arithmetic, in float32 and converted back (a comparison
    stays a bool). Each operation rounds to its dtype, as folding does."""
    if not via_float32(a.dtype):
        return ir.binop(op, a, b, span)
    value = ir.binop(op, ir.cast(FLOAT32, a), ir.cast(FLOAT32, b), span)
    return value if value.dtype.is_bool else ir.cast(a.dtype, value, span)


def unary(op: str, a: ir.Expr, span=ir.NOWHERE) -> ir.Expr:
    """`op a`, through float32 on a format without arithmetic."""
    if not via_float32(a.dtype):
        return ir.unary(op, a, span)
    value = ir.unary(op, ir.cast(FLOAT32, a), span)
    return value if value.dtype.is_bool else ir.cast(a.dtype, value, span)


def convert(dtype: DType, a: ir.Expr, span=ir.NOWHERE) -> ir.Expr:
    """A conversion; between two formats without arithmetic (which CUDA cannot convert into
    one another), through float32, which holds each of their values exactly."""
    if via_float32(dtype) and via_float32(a.dtype) and dtype != a.dtype:
        return ir.cast(dtype, ir.cast(FLOAT32, a, span), span)
    return ir.cast(dtype, a, span)


def math(name: str, args: tuple, result: DType, span, pure: set) -> ir.Expr:
    """A `T.<name>(...)` intrinsic over lowered arguments as C; the C functions it calls are
    added to `pure` (they have no side effects)."""
    dtype = args[0].dtype
    if name == "sigmoid":
        narrow = dtype.bits < 32  # half and narrower: computed in float32
        x = ir.cast(FLOAT32, args[0]) if narrow else args[0]
        one = ir.const(1, x.dtype)
        exp = math("exp", (ir.unary("-", x),), x.dtype, span, pure)
        return ir.cast(dtype, ir.binop("/", one, ir.binop("+", one, exp)))
    if dtype.is_int:
        special = _integer_math(name, args[0], result, span, pure)
        if special is not None:
            return special
    c_name, via_float = c_math_name(name, dtype)
    pure.add(c_name)
    if via_float:
        widened = tuple(ir.cast(FLOAT32, a) for a in args)
        value = ir.Call(FLOAT32 if result == dtype else result, c_name, widened, span)
        return ir.cast(result, value)
    return ir.Call(result, c_name, args, span)


def _integer_math(name: str, x: ir.Expr, result: DType, span, pure: set) -> ir.Expr | None:
    """abs, clz and popcount where the CUDA function's width or signedness is not the
    dtype's: as TIRx (LLVM's abs, ctlz and ctpop) computes them, on the dtype's own bits.
    None: the plain call is right."""
    dtype = x.dtype
    if name == "abs" and not dtype.is_signed:
        return x  # an unsigned value is its own absolute value (`llabs` would take it as signed)
    if dtype.bits >= 32:
        return None
    c_name = c_math_name(name, dtype)[0]
    pure.add(c_name)
    if name == "abs":
        # `abs` computes in int: abs(-128) is 128, which int8 wraps to -128, as LLVM's abs does
        return ir.cast(dtype, ir.Call(INT32, c_name, (x,), span), span)
    # clz and popcount count the dtype's own bits: its pattern zero-extended to 32 bits
    bits = ir.cast(parse_dtype(f"uint{dtype.bits}"), x, span) if dtype.is_signed else x
    if name == "clz":
        return ir.binop("-", ir.Call(result, c_name, (bits,), span), ir.IntImm(result, 32 - dtype.bits), span)
    if name == "popcount":
        return ir.Call(result, c_name, (bits,), span)
    return None
