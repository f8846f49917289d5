"""Shared-memory operands of the asynchronous tensor cores (wgmma, tcgen05.mma): the swizzle
mode of a buffer's layout, the checks that an operand region is a canonical K-major layout the
matrix descriptors can name, and the descriptor of one instruction tile.

tirxc reads the canonical layout off the buffer's own layout: a `ComposeLayout(per_element,
swizzle_len, 3, S[...])` whose 16-byte units (`per_element` = log2 of the elements in 16 bytes)
are swizzled in 8-row atoms of 32, 64 or 128 bytes (`swizzle_len` 1, 2, 3), over a row-major
tile whose innermost extent is one row of the atom (the layout TMA writes with the same
swizzle). The descriptor starts at the tile's unswizzled address: the hardware applies the
swizzle to address bits, so the buffer must be aligned to the atom (8 rows)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from math import prod

from transpiler import ir
from transpiler.target.dtypes import HANDLE, INT32, UINT64
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.gemm_frag import NoMatch

SWIZZLE_BYTES = {1: 32, 2: 64, 3: 128}


@dataclass(frozen=True)
class SharedOperand:
    """A K-major shared operand region (rows = M or N, cols = K)."""
    name: str
    region: ir.TileRegion
    view: ir.Buffer  # the buffer without its swizzle: addresses of tile starts
    dims: tuple[int, int]  # the buffer dims of (rows, K)
    rows: int
    cols: int
    swizzle: int  # 1, 2, 3: 32, 64, 128-byte swizzle
    sbo: int  # 16-byte units between 8-row groups

    def address(self, row: int, k: int) -> ir.Expr:
        coords = list(self.region.starts)
        coords[self.dims[0]] = ir.add(coords[self.dims[0]], c(row))
        coords[self.dims[1]] = ir.add(coords[self.dims[1]], c(k))
        return ir.BufferAddress(HANDLE, self.view, tuple(coords))


def shared_operand(name: str, region: ir.TileRegion, transposed: bool) -> SharedOperand:
    """`region` (rows, K) as a K-major operand; NoMatch with the reason otherwise (a transposed,
    MN-major operand is not supported yet)."""
    buf = region.buffer
    if regions.memory(region) != "shared":
        raise NoMatch(f"{name} is in {regions.memory(region)} memory, not shared")
    extents = regions.const_extents(region)
    shape = buf.const_shape()
    if extents is None or shape is None:
        raise NoMatch(f"{name}'s shape or region is not constant")
    dims = [d for d, e in enumerate(extents) if e != 1]
    if len(dims) != 2:
        raise NoMatch(f"{name} is not a 2-D region")
    if transposed:
        raise NoMatch(f"{name} is transposed (MN-major in shared memory): not supported yet, store it K-major")
    layout = buf.layout
    if layout is None or layout.swizzle is None:
        raise NoMatch(f"{name} has no swizzled layout: wgmma / tcgen05 operands without a swizzle are not "
                      f"supported yet (use `ComposeLayout(p, 3, 3, S[...])`, the layout TMA writes)")
    per_element, length, atom, inner = layout.swizzle
    eb = buf.dtype.nbytes
    if not inner or atom != 3 or length not in SWIZZLE_BYTES or eb << per_element != 16:
        raise NoMatch(f"{name}'s swizzle is not a 32, 64 or 128-byte tensor-core swizzle of 16-byte units "
                      f"(`ComposeLayout({(16 // eb).bit_length() - 1}, 1 to 3, 3, ...)` for {buf.dtype.name})")
    width = SWIZZLE_BYTES[length]
    running = 1
    for it in reversed(layout.shard):
        if not (isinstance(it.extent, ir.IntImm) and isinstance(it.stride, ir.IntImm)) or it.axis != "m":
            raise NoMatch(f"{name}'s layout is not constant memory")
        if it.extent.value != 1 and it.stride.value != running:
            raise NoMatch(f"{name}'s swizzled tile is not row-major")
        running *= it.extent.value
    if running != prod(shape):
        raise NoMatch(f"{name}'s layout does not cover its shape")
    if dims[1] != len(shape) - 1 or shape[-1] * eb != width:
        raise NoMatch(f"{name}'s rows are {shape[-1] * eb} bytes; a {width}-byte swizzle wants K-major rows of "
                      f"{width} bytes ({width // eb} elements)")
    offset = buf.elem_offset
    if isinstance(offset, ir.IntImm) and (offset.value * eb) % (8 * width):
        raise NoMatch(f"{name} starts {offset.value * eb} bytes into its storage, not at a multiple of the "
                      f"{8 * width}-byte swizzle atom")
    view = replace(buf, layout=replace(layout, swizzle=None))
    return SharedOperand(name, region, view, (dims[0], dims[1]), extents[dims[0]], extents[dims[1]], length,
                         8 * width // 16)


def wgmma_descriptor(op: SharedOperand, row: int, k: int) -> ir.Expr:
    """The wgmma matrix descriptor of the tile starting at (row, k)."""
    return ir.Call(UINT64, "tirx_cuda_wgmma_make_desc",
                   (op.address(row, k), ir.IntImm(INT32, 1), ir.IntImm(INT32, op.sbo), ir.IntImm(INT32, op.swizzle)))


def tcgen05_descriptor(op: SharedOperand, row: int, k: int) -> ir.Expr:
    return ir.Call(UINT64, "tirx_cuda_tcgen05_make_desc",
                   (op.address(row, k), ir.IntImm(INT32, 1), ir.IntImm(INT32, op.sbo), ir.IntImm(INT32, op.swizzle)))
