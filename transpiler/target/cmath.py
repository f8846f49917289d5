"""The C names of the T.* math intrinsics for each dtype, and which float formats CUDA's
headers give no arithmetic: a table of CUDA facts, used by lowering (which also builds
what a name cannot say: clz within 8 or 16 bits, abs of an unsigned value)."""
from __future__ import annotations

from transpiler.target.dtypes import DType

# half / bfloat16 functions of cuda_fp16.h / cuda_bf16.h; other math on them goes through float
_HALF_MATH = frozenset({"exp", "exp2", "exp10", "log", "log2", "log10", "sqrt", "rsqrt", "sin", "cos", "floor",
                        "ceil", "trunc"})

PREDICATES = frozenset({"isnan", "isinf", "isfinite"})

# The C functions without side effects (the math functions besides): evaluating one twice
# gives the same value and does nothing else, so the checker may repeat it and lowering may
# drop it with an unused value. Any other call (inline CUDA, atomics, PTX helpers, clock
# reads, printf ...) is evaluated exactly as often as the source evaluates it.
PURE_CALLS = frozenset({
    "min", "max", "__hmin", "__hmax", "tirx_floordiv", "tirx_floormod",
    "__shfl_sync", "__shfl_xor_sync", "__shfl_up_sync", "__shfl_down_sync",
    "__ballot_sync", "__any_sync", "__all_sync",
})


def via_float32(dtype: DType) -> bool:
    """Whether values of a float dtype are computed in float32 and converted back: the fp8,
    fp6 and fp4 formats, whose CUDA types have conversions but no arithmetic, comparison,
    min / max or conversion to one another (every value of theirs is a float32, so going
    through float32 adds no rounding of its own)."""
    return dtype.bits < 16 and dtype.is_float


def c_math_name(name: str, dtype: DType) -> tuple[str, bool]:
    """The C function for a math intrinsic on dtype, and whether it is called on float32
    (the arguments converted to float32, the result back to dtype). For integers: `abs` is
    `abs` / `llabs` (an unsigned value is its own absolute value: lowering calls nothing),
    `clz` and `popcount` the 32- or 64-bit CUDA functions (lowering narrows them to 8 and
    16 bits)."""
    if name == "abs":
        if dtype.is_float:
            return c_math_name("fabs", dtype)
        return ("abs" if dtype.bits <= 32 else "llabs"), False
    if name == "clz":
        return ("__clz" if dtype.bits <= 32 else "__clzll"), False
    if name == "popcount":
        return ("__popc" if dtype.bits <= 32 else "__popcll"), False
    if name in PREDICATES:
        return name, dtype.bits < 32
    if dtype.name == "float64":
        return name, False
    if dtype.name == "float32":
        return name + "f", False
    if dtype.bits == 16 and name in _HALF_MATH:
        return "h" + name, False
    if dtype.bits == 16 and name == "fabs":
        return "__habs", False
    return name + "f", True  # other low-precision math: via float32
