"""Encodings of the fifth-generation tensor cores (tcgen05, sm_100a) that the checker and the tile
variants both use: the data types and kinds of an MMA, the shapes each kind allows, the 32-bit
instruction descriptor, how narrow data packs into tensor-memory columns, and the register
fragment one tcgen05.ld / st repetition lays out.

The validity rules (which dtype combination makes which MMA kind, which shapes a kind allows) are
TIRx's, from the PTX ISA's "Instruction descriptor" tables; the descriptor's field layout:

    bit 2 sparse, 3 saturate, 4-5 D format (f16 0, f32 1, s32 2), 7-9 A format, 10-12 B format,
    13 / 14 negate A / B, 15 / 16 A / B MN-major (transposed), 17-22 N >> 3, 23 the scale factors'
    format (block-scaled kinds), 24-28 M >> 4.
"""
from __future__ import annotations

from transpiler.target.ptx.tcgen05 import LD_SHAPES

# names TIRx accepts for each PTX type (its dtype names and PTX's)
TYPE_NAMES = {
    "f16": ("float16", "f16"), "bf16": ("bfloat16", "bf16"), "tf32": ("tf32", "tensorfloat32"),
    "f32": ("float32", "f32"), "s32": ("int32", "s32"), "s8": ("int8", "s8"), "u8": ("uint8", "u8"),
    "e4m3": ("float8_e4m3fn", "float8_e4m3", "e4m3", "float8_e4m3fnuz"), "e5m2": ("float8_e5m2", "e5m2"),
    "e2m3": ("float6_e2m3fn", "e2m3"), "e3m2": ("float6_e3m2fn", "e3m2"), "e2m1": ("float4_e2m1fn", "e2m1"),
    "ue8m0": ("float8_e8m0fnu", "ue8m0", "e8m0"),
}
PTX_TYPE = {name: ptx for ptx, names in TYPE_NAMES.items() for name in names}  # any accepted name -> PTX type
_FP8_FAMILY = {"e4m3", "e5m2", "e2m3", "e3m2", "e2m1"}
D_TYPES = ("f16", "f32", "s32")  # the types an MMA accumulates in (the descriptor's D format)

# the dense kinds: (kind, D types, A/B types), first match wins (as in TIRx)
KINDS = (
    ("f16", {"f16"}, {"f16"}),
    ("f16", {"f32"}, {"f16", "bf16"}),
    ("tf32", {"f32"}, {"tf32"}),
    ("i8", {"s32"}, {"s8", "u8"}),
    ("f8f6f4", {"f32", "f16"}, _FP8_FAMILY),
)
# the block-scaled kinds: (kind, A/B types, scale-factor types), first match wins (as in TIRx)
SCALED_KINDS = (
    ("mxf4", {"e2m1"}, {"ue8m0"}),
    ("mxf4nvf4", {"e2m1"}, {"e4m3"}),
    ("mxf8f6f4", _FP8_FAMILY, {"ue8m0"}),
)
# (kinds, CTA groups, {M: N step}, the extra N values allowed)
SHAPES = (
    ({"f16", "tf32", "f8f6f4"}, 1, {64: 8, 128: 16}, set()),
    ({"f16", "tf32", "f8f6f4"}, 2, {128: 32, 256: 32}, set()),
    ({"i8"}, 1, {64: 16, 128: 16}, {8, 24}),
    ({"i8"}, 2, {128: 32, 256: 32}, set()),
    ({"mxf8f6f4", "mxf4", "mxf4nvf4"}, 1, {128: 8}, set()),
    ({"mxf8f6f4", "mxf4", "mxf4nvf4"}, 2, {128: 16, 256: 16}, set()),
)
K = {"f16": (16, 32), "tf32": (8, 16), "f8f6f4": (32, 64), "i8": (32, 64), "mxf8f6f4": (32, 64),
     "mxf4": (64, 128), "mxf4nvf4": (64, 128)}  # kind -> (dense K, sparse K)
FORMAT = {"f16": 0, "bf16": 1, "tf32": 2, "e4m3": 0, "e5m2": 1, "e2m3": 3, "e3m2": 4, "e2m1": 5, "u8": 0,
          "s8": 1, "f32": 1, "s32": 2}  # a PTX type's number in the descriptor's A, B and D fields
TRANSPOSABLE = {"e4m3", "e5m2", "s8", "u8", "f16", "bf16", "tf32"}  # operand types read MN-major
SCALED_TRANSPOSABLE = {"e4m3", "e5m2"}
SCALE_FORMAT = {"e4m3": 0, "ue8m0": 1}  # the scale factors' type in bit 23


def instr_descriptor(a_format: int, b_format: int, m: int, n: int, *, d_format: int | None = None,
                     scale_format: int | None = None, sparse: bool = False, saturate: bool = False,
                     neg_a: bool = False, neg_b: bool = False, trans_a: bool = False, trans_b: bool = False) -> int:
    """The 32-bit instruction descriptor: a dense MMA names its D format, a block-scaled one its
    scale factors' format (their ids, bits 4-5 and 29-30, start at 0)."""
    value = (int(sparse) << 2 | a_format << 7 | b_format << 10 | int(neg_a) << 13 | int(neg_b) << 14
             | int(trans_a) << 15 | int(trans_b) << 16 | (n >> 3) << 17 | (m >> 4) << 24)
    if scale_format is not None:
        return value | scale_format << 23
    return value | int(saturate) << 3 | (d_format or 0) << 4


def per_column(dtype) -> int | None:
    """Elements of `dtype` in one 32-bit tensor-memory column: tcgen05.ld / st / cp pack narrower
    data 32 / bits to a column (None: it does not pack into columns)."""
    bits = dtype.bits * dtype.lanes
    return 32 // bits if bits in (4, 8, 16, 32) else None


FP32_COLUMNS = {"32x32b": 1, "16x64b": 2, "16x128b": 4, "16x256b": 8}  # fp32 columns of a warp per repetition


def fragment_iters(shape: str, rows: int, cols: int, bits: int) -> list[tuple[int, int, str]] | str:
    """The register fragment of a warpgroup's tcgen05.ld / st of `shape`, (rows, cols) of `bits`-bit
    data: its layout's shard, outermost first, as (extent, stride, axis); or why the fragment does
    not exist. `.32x32b` gives each thread one row (128 rows, or the 64-row image of a two-CTA
    "datapath B" accumulator, fp32 only), `.16x64b` / `.16x128b` / `.16x256b` a 64-row fragment
    (128 rows: the atom issued twice). 16-bit data is packed two to a 32-bit register."""
    if shape not in FP32_COLUMNS:
        return f"`{shape}` is not a tcgen05.ld / st shape here; the shapes are " + \
            ", ".join(f'"{s}"' for s in FP32_COLUMNS)
    if bits not in (16, 32):
        return "the fragment holds 32- or 16-bit data (float32, float16, bfloat16)"
    if rows not in (64, 128):
        return f"a `{shape}` fragment has 64 or 128 rows, not {rows}"
    most = LD_SHAPES[shape][1]
    if shape == "32x32b" and rows == 64:  # the 64-row image of a CTA pair's accumulator
        if bits != 32:
            return "the 64-row `32x32b` fragment (a CTA pair's accumulator) is float32 only"
        half = cols // 2
        if cols % 2 or half not in _reps(most):
            return f"the 64-row `32x32b` fragment takes N = 2 x a power of two up to {2 * most}, not {cols}"
        return [(64, 1, "tid_in_wg"), (2, 64, "tid_in_wg"), (half, 1, "m")]
    pack = 32 // bits
    per_rep = FP32_COLUMNS[shape] * pack
    if cols % per_rep or cols // per_rep not in _reps(most):
        return f"a `{shape}` fragment of {bits}-bit data has {per_rep} x (a power of two up to {most}) " \
               f"columns, not {cols}"
    n = cols // per_rep
    if shape == "32x32b":
        return [(rows, 1, "tid_in_wg"), (cols, 1, "m")]
    # one warp's 16-row slab, in 32-bit register units: (rows, cols) iters and the registers per rep
    row, col, regs = {
        "16x64b": ([(4, 1, "wid_in_wg"), (2, 1, "laneid"), (8, 4, "laneid")], [(n, 1, "m"), (2, 2, "laneid")], n),
        "16x128b": ([(4, 1, "wid_in_wg"), (2, 1, "m"), (8, 4, "laneid")], [(n, 2, "m"), (4, 1, "laneid")], 2 * n),
        "16x256b": ([(4, 1, "wid_in_wg"), (2, 2, "m"), (8, 4, "laneid")],
                    [(n, 4, "m"), (4, 1, "laneid"), (2, 1, "m")], 4 * n),
    }[shape]
    if rows == 128:  # the second 16-row slab of each warp's 32 lanes: the atom issued again
        row = row[:1] + [(2, regs, "m")] + row[1:]
    scale = lambda iters: [(e, s * pack if a == "m" else s, a) for e, s, a in iters]  # noqa: E731
    return scale(row) + scale(col) + ([(pack, 1, "m")] if pack > 1 else [])


def _reps(most: int) -> tuple[int, ...]:
    return tuple(1 << k for k in range(most.bit_length()) if 1 << k <= most)
