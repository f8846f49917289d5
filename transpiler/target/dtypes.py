"""Dtype facts and their CUDA spellings: a table, no logic about the AST."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache


def _int_bounds(kind: str, bits: int) -> tuple[int, int]:
    """The least and greatest integer a dtype holds (void holds none: an empty range)."""
    if kind == "void":
        return 0, -1
    if kind == "bool":
        return 0, 1
    if kind == "uint":
        return 0, (1 << bits) - 1
    return -(1 << (bits - 1)), (1 << (bits - 1)) - 1


@dataclass(frozen=True)
class DType:
    name: str
    kind: str  # "int", "uint", "float", "bool", "handle", "void"
    bits: int
    lanes: int = 1

    # is_float, is_int, is_bool, is_signed, int_bounds: plain attributes set once, and
    # equality that tries identity first (dtypes are interned by parse_dtype) with a hash of
    # the name alone: the checker and the constant folding ask these for every expression node.
    def __post_init__(self):
        object.__setattr__(self, "is_float", self.kind == "float")
        object.__setattr__(self, "is_int", self.kind in ("int", "uint"))
        object.__setattr__(self, "is_bool", self.kind == "bool")
        object.__setattr__(self, "is_signed", self.kind == "int")
        object.__setattr__(self, "int_bounds", _int_bounds(self.kind, self.bits))

    def __eq__(self, other):
        if self is other:
            return True
        if other.__class__ is not DType:
            return NotImplemented
        return (self.name, self.kind, self.bits, self.lanes) == (other.name, other.kind, other.bits, other.lanes)

    def __hash__(self):
        return hash(self.name)

    @property
    def element(self) -> "DType":
        return self if self.lanes == 1 else parse_dtype(self.name.rsplit("x", 1)[0])

    @property
    def nbytes(self) -> int:
        """Storage bytes of one value (sub-byte formats round up per value)."""
        return max((self.bits * self.lanes + 7) // 8, 1)

    def with_lanes(self, lanes: int) -> "DType":
        base = self.element.name
        return parse_dtype(base if lanes == 1 else f"{base}x{lanes}")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Scalar:
    """What tirxc knows of one scalar dtype: its kind and width, its CUDA spelling, and how the
    hardware and CUDA's library take it."""
    kind: str
    bits: int
    c_type: str  # its CUDA type
    header: str | None = None  # the CUDA header that defines the type
    ldg: str | None = None  # the C type of CUDA's `__ldg` overload that loads it (None: no overload)
    ldg_vector: str | None = None  # the CUDA vector type `__ldg` loads 2 or 4 of (`int`: int2, int4)
    tma: int | None = None  # its CUtensorMapDataType (the driver's numbering); None: TMA does not move it
    # A float format as the constant folding rounds into it: (significand bits p, the implicit one
    # included; the exponent of the least normal value; the largest finite value; whether overflow
    # saturates to it rather than giving an infinity; whether the format has a NaN). Conversions
    # into fp8, fp6 and fp4 are the CUDA headers' constructors, all round-to-nearest-even with
    # __NV_SATFINITE (infinities too become the largest finite value); fp6 and fp4 have no NaN, and
    # what a NaN becomes there is not folded. float8_e8m0fnu (a scale, rounded toward +inf by its
    # constructor) has none: nothing of that dtype folds.
    float_format: tuple[int, int, float, bool, bool] | None = None


# Signed 8-bit elements travel through TMA as UINT8 (a copy moves bits); int16 has no TMA type.
SCALARS: dict[str, Scalar] = {
    "bool": Scalar("bool", 8, "bool"),
    "int8": Scalar("int", 8, "signed char", ldg="signed char", tma=0),
    "int16": Scalar("int", 16, "short", ldg="short"),
    "int32": Scalar("int", 32, "int", ldg="int", ldg_vector="int", tma=3),
    "int64": Scalar("int", 64, "long long", ldg="long long", tma=5),
    "uint8": Scalar("uint", 8, "unsigned char", ldg="unsigned char", tma=0),
    "uint16": Scalar("uint", 16, "unsigned short", ldg="unsigned short", tma=1),
    "uint32": Scalar("uint", 32, "unsigned int", ldg="unsigned int", ldg_vector="uint", tma=2),
    "uint64": Scalar("uint", 64, "unsigned long long", ldg="unsigned long long", tma=4),
    "float16": Scalar("float", 16, "half", "cuda_fp16.h", ldg="half", tma=6,
                      float_format=(11, -14, 65504.0, False, True)),
    "bfloat16": Scalar("float", 16, "nv_bfloat16", "cuda_bf16.h", ldg="__nv_bfloat16", tma=9,
                       float_format=(8, -126, 3.3895313892515355e38, False, True)),
    "float32": Scalar("float", 32, "float", ldg="float", ldg_vector="float", tma=7,
                      float_format=(24, -126, 3.4028234663852886e38, False, True)),
    "float64": Scalar("float", 64, "double", ldg="double", tma=8,
                      float_format=(53, -1022, 1.7976931348623157e308, False, True)),
    "float8_e4m3fn": Scalar("float", 8, "__nv_fp8_e4m3", "cuda_fp8.h", tma=0, float_format=(4, -6, 448.0, True, True)),
    "float8_e5m2": Scalar("float", 8, "__nv_fp8_e5m2", "cuda_fp8.h", tma=0, float_format=(3, -14, 57344.0, True, True)),
    "float8_e8m0fnu": Scalar("float", 8, "__nv_fp8_e8m0", "cuda_fp8.h"),
    "float6_e2m3fn": Scalar("float", 6, "__nv_fp6_e2m3", "cuda_fp6.h", float_format=(4, 0, 7.5, True, False)),
    "float6_e3m2fn": Scalar("float", 6, "__nv_fp6_e3m2", "cuda_fp6.h", float_format=(3, -2, 28.0, True, False)),
    "float4_e2m1fn": Scalar("float", 4, "__nv_fp4_e2m1", "cuda_fp4.h", float_format=(2, 0, 6.0, True, False)),
    # TIRx's 128-bit scalars (a PTX .b128 value, bound with the "q" constraint): nvcc has
    # `__int128` in device code on the 64-bit hosts it supports
    "int128": Scalar("int", 128, "__int128"),
    "uint128": Scalar("uint", 128, "unsigned __int128"),
    "handle": Scalar("handle", 64, "void*"),
}


def float_format(name: str) -> tuple[int, int, float, bool, bool] | None:
    """The float format of a scalar dtype (Scalar.float_format), None for the others."""
    scalar = SCALARS.get(name)
    return None if scalar is None else scalar.float_format


@dataclass(frozen=True)
class MmaInput:
    """A dtype as an input of the warp-level and warpgroup tensor-core MMAs (mma.sync, wgmma)."""
    ptx: str  # its PTX type there (float32 goes in as tf32)
    family: str  # the inputs that multiply together: f16, bf16, tf32, int (s8 by u8), fp8 (e4m3 by e5m2)
    accumulator: str  # the dtype the products accumulate in
    per_register: int  # elements per 32-bit register
    sync_k: tuple[int, ...]  # the K of each m16n8 mma.sync shape, largest first
    wgmma_k: int  # the K of one wgmma
    wgmma_transposable: bool  # wgmma reads it MN-major from shared memory (tnspA / tnspB)


MMA_INPUTS: dict[str, MmaInput] = {
    "float16": MmaInput("f16", "f16", "float32", 2, (16, 8), 16, True),
    "bfloat16": MmaInput("bf16", "bf16", "float32", 2, (16, 8), 16, True),
    "float32": MmaInput("tf32", "tf32", "float32", 1, (8, 4), 8, False),
    "int8": MmaInput("s8", "int", "int32", 4, (32, 16), 32, False),
    "uint8": MmaInput("u8", "int", "int32", 4, (32, 16), 32, False),
    "float8_e4m3fn": MmaInput("e4m3", "fp8", "float32", 4, (32, 16), 32, False),
    "float8_e5m2": MmaInput("e5m2", "fp8", "float32", 4, (32, 16), 32, False),
}

# The reference lists these formats; CUDA has no type for them, so they are
# recognised (a precise error) but not lowered.
UNLOWERABLE = {"float8_e4m3", "float8_e3m4", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e4m3b11fnuz"}

SHORTHANDS = {"f16": "float16", "f32": "float32", "f64": "float64", "bf16": "bfloat16",
              "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
              "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64"}

VECTOR_LANES = (2, 4, 8, 16, 32, 64)

# CUDA's own vector types; other vector widths are moved as packed unsigned words.
_VECTOR_CTYPES = {
    "float32x2": "float2", "float32x4": "float4", "float64x2": "double2",
    "int32x2": "int2", "int32x4": "int4", "uint32x2": "uint2", "uint32x4": "uint4",
    "int8x4": "char4", "uint8x4": "uchar4", "int16x2": "short2", "int16x4": "short4",
    "float16x2": "half2", "bfloat16x2": "nv_bfloat162", "int64x2": "longlong2", "uint64x2": "ulonglong2",
}
_PACKED = {4: "unsigned int", 8: "uint2", 16: "uint4"}

_VECTOR_RE = re.compile(r"(.*?)x([1-9][0-9]*)", re.ASCII)  # fullmatch: no trailing newline, no `x04`


@lru_cache(maxsize=None)
def parse_dtype(name: str) -> DType | None:
    """The DType for a TIRx dtype string, or None when it is not one."""
    if name in SHORTHANDS:
        return parse_dtype(SHORTHANDS[name])  # the same object as the full name's (equality tries identity first)
    if name in SCALARS:
        scalar = SCALARS[name]
        return DType(name, scalar.kind, scalar.bits)
    match = _VECTOR_RE.fullmatch(name)
    if match and match.group(1) in SCALARS and int(match.group(2)) in VECTOR_LANES:
        base = match.group(1)
        kind, bits = SCALARS[base].kind, SCALARS[base].bits
        if kind in ("handle",) or bits == 128:  # (no vector of 128-bit lanes: a vector register is 128 bits)
            return None
        return DType(name, kind, bits, int(match.group(2)))
    return None


# Spellings of other tools and languages, for a hint naming the TIRx dtype (never accepted).
ALIASES = {"fp64": "float64", "fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "half": "float16",
           "float": "float32", "double": "float64", "f16": "float16", "f32": "float32", "f64": "float64",
           "fp8": "float8_e4m3fn", "e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2", "fp8_e4m3": "float8_e4m3fn",
           "fp8_e5m2": "float8_e5m2", "int": "int32", "uint": "uint32", "long": "int64", "short": "int16",
           "char": "int8", "byte": "uint8", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
           "u8": "uint8", "u16": "uint16", "u32": "uint32", "u64": "uint64", "s32": "int32", "s64": "int64",
           "s16": "int16", "s8": "int8", "b16": "uint16", "b32": "uint32", "b64": "uint64", "pred": "bool",
           "boolean": "bool", "bfloat": "bfloat16", "bfloat16_t": "bfloat16", "float32_t": "float32",
           "float16_t": "float16", "int32_t": "int32", "int64_t": "int64", "uint32_t": "uint32",
           "uint64_t": "uint64", "int8_t": "int8", "uint8_t": "uint8", "int16_t": "int16", "uint16_t": "uint16",
           "__half": "float16", "__nv_bfloat16": "bfloat16", "nv_bfloat16": "bfloat16", "tf32": "float32"}


def dtype_alias(name: str) -> str | None:
    """The TIRx dtype a string that is not one most likely means (`fp32` -> float32, `"float32\\n"`
    -> float32, `Float32` -> float32), or None."""
    text = name.strip().lower()
    if text in SCALARS and text != name:
        return text
    base = ALIASES.get(text)
    if base is not None:
        return base
    match = _LOOSE_VECTOR_RE.fullmatch(text)
    if match is not None:
        element, lanes = ALIASES.get(match.group(1), match.group(1)), int(match.group(2))
        if element in SCALARS and lanes in VECTOR_LANES and f"{element}x{lanes}" != name:
            return f"{element}x{lanes}"
    return None


_LOOSE_VECTOR_RE = re.compile(r"(.*?)x([0-9]+)", re.ASCII)  # `float32x04` too, for dtype_alias


def known_dtype_names() -> list[str]:
    return list(SCALARS) + list(SHORTHANDS)


def c_type(dtype: DType) -> str:
    """The CUDA spelling of a dtype."""
    if dtype.lanes == 1:
        return SCALARS[dtype.name].c_type
    if dtype.name in _VECTOR_CTYPES:
        return _VECTOR_CTYPES[dtype.name]
    packed = _PACKED.get(dtype.nbytes)
    if packed is None:
        raise ValueError(f"no CUDA type moves {dtype.nbytes} bytes at once ({dtype.name})")
    return packed


def has_c_vector(dtype: DType) -> bool:
    return dtype.lanes == 1 or dtype.name in _VECTOR_CTYPES or dtype.nbytes in _PACKED


def header(dtype: DType) -> str | None:
    return SCALARS[dtype.element.name].header


INT32 = parse_dtype("int32")
UINT32 = parse_dtype("uint32")
INT64 = parse_dtype("int64")
UINT64 = parse_dtype("uint64")
FLOAT32 = parse_dtype("float32")
FLOAT64 = parse_dtype("float64")
BOOL = parse_dtype("bool")
HANDLE = parse_dtype("handle")
VOID = DType("void", "void", 0)


def promoted(a: DType, b: DType) -> DType | None:
    """The dtype two operands of different scalar dtypes are converted to, as TIRx's
    BinaryOpMatchTypes promotes them: a float over an integer or bool, the wider of two floats or of
    two integers of one signedness (the left one at equal width); of a signed and an unsigned
    integer the wider, or the unsigned at equal width (as C does); an integer over a bool. None
    where there is no promotion (vectors of different lanes, handles)."""
    if a.lanes != b.lanes or "handle" in (a.kind, b.kind) or "void" in (a.kind, b.kind):
        return None
    if a.is_float or b.is_float:
        if a.is_float and b.is_float:
            return b if a.bits < b.bits else a
        return a if a.is_float else b
    if a.is_bool or b.is_bool:
        return b if a.is_bool else a
    if a.kind == b.kind or a.bits != b.bits:
        return b if a.bits < b.bits else a
    return a if a.kind == "uint" else b


def int_range(dtype: DType) -> tuple[int, int]:
    return dtype.int_bounds  # computed once per dtype (DType.__post_init__)


# How a host passes an element of each scalar dtype (the launch description carries these to every
# host interface; the launcher's runtime keeps no table of its own): the __cuda_array_interface__
# typestr an argument array has (kind and size), the NumPy scalar type a scalar argument becomes
# (None where NumPy has none: the bits travel as the unsigned integer of the typestr), and the
# array dtypes that name the format but store it otherwise, with why they are refused. tirxc
# stores a sub-byte element (fp4, fp6) one to a byte, in the byte's low bits, so such a buffer
# takes a uint8 array of one element per byte; a format packing two to a byte is not it.
_ONE_PER_BYTE = "tirxc stores one element per byte (in its low bits): pass a uint8 array of one element per byte"
HOST_ARRAYS: dict[str, tuple[str, str | None, tuple[tuple[str, str], ...]]] = {
    "bool": ("b1", "bool_", ()), "int8": ("i1", "int8", ()), "int16": ("i2", "int16", ()),
    "int32": ("i4", "int32", ()), "int64": ("i8", "int64", ()), "uint8": ("u1", "uint8", ()),
    "uint16": ("u2", "uint16", ()), "uint32": ("u4", "uint32", ()), "uint64": ("u8", "uint64", ()),
    "float16": ("f2", "float16", ()), "float32": ("f4", "float32", ()), "float64": ("f8", "float64", ()),
    "bfloat16": ("u2", None, ()), "float8_e4m3fn": ("u1", None, ()), "float8_e5m2": ("u1", None, ()),
    "float8_e8m0fnu": ("u1", None, ()),
    "float6_e2m3fn": ("u1", None, ()), "float6_e3m2fn": ("u1", None, ()),
    "float4_e2m1fn": ("u1", None, (("float4_e2m1fn_x2", f"it packs two elements per byte; {_ONE_PER_BYTE}"),)),
    "handle": ("u8", "uint64", ()),
}

# The <cstdint> type (in namespace std) a C++ host interface declares an integer scalar or extent
# with: a fixed width whatever the platform's int and long.
FIXED_WIDTH_CPP = {name: f"{name}_t" for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                                     "uint64")}
