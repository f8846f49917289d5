"""Facts about TMA tensor maps (`CUtensorMap`, made by the driver's cuTensorMapEncodeTiled):
the driver's enumerations and the limits the driver enforces. The checker uses them for what
is known at compile time, and the launchers (through their program data) for the rest."""
from __future__ import annotations

from transpiler.target.dtypes import SCALARS

# CUtensorMapDataType, by the element dtype of the mapped buffer (dtypes.Scalar.tma)
DATA_TYPES = {name: scalar.tma for name, scalar in SCALARS.items() if scalar.tma is not None}
# The bits one element of each CUtensorMapDataType takes in global memory (10 .. 12: FLOAT32_FTZ and
# TFLOAT32(_FTZ); 13, 14: 16 packed 4-bit elements; 15: 16 packed 6-bit elements): a map's reach.
DATA_TYPE_BITS = {0: 8, 1: 16, 2: 32, 3: 32, 4: 64, 5: 64, 6: 16, 7: 32, 8: 64, 9: 16, 10: 32, 11: 32, 12: 32,
                  13: 4, 14: 4, 15: 6}
# The types a trailing `force_cu_dtype` may name instead: FLOAT32_FTZ, TFLOAT32(_FTZ) and the
# packed sub-byte forms (10 .. 15).
FORCED_DATA_TYPES = range(0, 16)

# CUtensorMapSwizzle -> the bytes of one swizzle span (0: no swizzle).
SWIZZLE_BYTES = {0: 0, 1: 32, 2: 64, 3: 128}
INTERLEAVES = {0: 0, 1: 16, 2: 32}  # CUtensorMapInterleave -> bytes (0: none)
L2_PROMOTIONS = range(0, 4)  # none, 64B, 128B, 256B
OOB_FILLS = range(0, 2)  # zeros, NaN (as a request-zero-FMA)

MAX_RANK = 5
MAX_BOX = 256  # elements per box dimension
MAX_ELEMENT_STRIDE = 8
GLOBAL_ALIGN = 16  # bytes: the address and every stride
MAX_DIM = 1 << 32
MAX_STRIDE = 1 << 40
BYTES = 128  # sizeof(CUtensorMap); it is passed as a 64-byte aligned __grid_constant__ parameter
ALIGN = 64

# The C type of a tensor-map kernel parameter: an opaque, suitably aligned copy of the
# driver's CUtensorMap, so that the .cu needs no driver header (NVRTC has none).
C_TYPE = "tirx_tensor_map"
C_DEFINITION = f"struct __align__({ALIGN}) {C_TYPE} {{ unsigned long long opaque[{BYTES // 8}]; }};"


def typestr_data_types() -> dict[str, int]:
    """CUtensorMapDataType by the __cuda_array_interface__ typestr (kind and size) of an array whose
    element NumPy has (target/dtypes.py HOST_ARRAYS), for a host given an array and no dtype."""
    from transpiler.target.dtypes import HOST_ARRAYS
    return {typestr: DATA_TYPES[name] for name, (typestr, scalar, _) in HOST_ARRAYS.items()
            if scalar is not None and name in DATA_TYPES}


def limits() -> dict:
    """The launcher's copy of these facts (its runtime imports nothing of tirxc)."""
    return {"max_box": MAX_BOX, "align": GLOBAL_ALIGN, "max_dim": MAX_DIM, "max_stride": MAX_STRIDE,
            "swizzle_bytes": SWIZZLE_BYTES, "interleave_bytes": INTERLEAVES, "bytes": BYTES,
            "data_types": dict(DATA_TYPES), "typestr_data_types": typestr_data_types()}


def swizzle_address(byte: int, mode: int) -> int:
    """The swizzle TMA and the tensor cores' matrix descriptors apply to a shared byte address
    (mode 1, 2, 3: the 32-, 64-, 128-byte swizzle; 0: none): bits [4, 4 + mode) are XORed with
    bits [7, 7 + mode). It is its own inverse; it repeats every 128 << mode bytes."""
    return byte ^ (((byte >> 7) & ((1 << mode) - 1)) << 4)
