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


# name -> (kind, bits, CUDA type, header that defines it)
_SCALARS: dict[str, tuple[str, int, str, str | None]] = {
    "bool": ("bool", 8, "bool", None),
    "int8": ("int", 8, "signed char", None),
    "int16": ("int", 16, "short", None),
    "int32": ("int", 32, "int", None),
    "int64": ("int", 64, "long long", None),
    "uint8": ("uint", 8, "unsigned char", None),
    "uint16": ("uint", 16, "unsigned short", None),
    "uint32": ("uint", 32, "unsigned int", None),
    "uint64": ("uint", 64, "unsigned long long", None),
    "float16": ("float", 16, "half", "cuda_fp16.h"),
    "bfloat16": ("float", 16, "nv_bfloat16", "cuda_bf16.h"),
    "float32": ("float", 32, "float", None),
    "float64": ("float", 64, "double", None),
    "float8_e4m3fn": ("float", 8, "__nv_fp8_e4m3", "cuda_fp8.h"),
    "float8_e5m2": ("float", 8, "__nv_fp8_e5m2", "cuda_fp8.h"),
    "float8_e8m0fnu": ("float", 8, "__nv_fp8_e8m0", "cuda_fp8.h"),
    "float6_e2m3fn": ("float", 6, "__nv_fp6_e2m3", "cuda_fp6.h"),
    "float6_e3m2fn": ("float", 6, "__nv_fp6_e3m2", "cuda_fp6.h"),
    "float4_e2m1fn": ("float", 4, "__nv_fp4_e2m1", "cuda_fp4.h"),
    "handle": ("handle", 64, "void*", None),
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
    if name in _SCALARS:
        kind, bits, _, _ = _SCALARS[name]
        return DType(name, kind, bits)
    match = _VECTOR_RE.fullmatch(name)
    if match and match.group(1) in _SCALARS and int(match.group(2)) in VECTOR_LANES:
        base = match.group(1)
        kind, bits, _, _ = _SCALARS[base]
        if kind in ("handle",):
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
    if text in _SCALARS and text != name:
        return text
    base = ALIASES.get(text)
    if base is not None:
        return base
    match = _LOOSE_VECTOR_RE.fullmatch(text)
    if match is not None:
        element, lanes = ALIASES.get(match.group(1), match.group(1)), int(match.group(2))
        if element in _SCALARS and lanes in VECTOR_LANES and f"{element}x{lanes}" != name:
            return f"{element}x{lanes}"
    return None


_LOOSE_VECTOR_RE = re.compile(r"(.*?)x([0-9]+)", re.ASCII)  # `float32x04` too, for dtype_alias


def known_dtype_names() -> list[str]:
    return list(_SCALARS) + list(SHORTHANDS)


def c_type(dtype: DType) -> str:
    """The CUDA spelling of a dtype."""
    if dtype.lanes == 1:
        return _SCALARS[dtype.name][2]
    if dtype.name in _VECTOR_CTYPES:
        return _VECTOR_CTYPES[dtype.name]
    packed = _PACKED.get(dtype.nbytes)
    if packed is None:
        raise ValueError(f"no CUDA type moves {dtype.nbytes} bytes at once ({dtype.name})")
    return packed


def has_c_vector(dtype: DType) -> bool:
    return dtype.lanes == 1 or dtype.name in _VECTOR_CTYPES or dtype.nbytes in _PACKED


def header(dtype: DType) -> str | None:
    return _SCALARS[dtype.element.name][3]


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
