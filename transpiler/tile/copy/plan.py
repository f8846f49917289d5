"""What the vectorizing copy variants know of an operand: where each element of a region lies in
memory (an affine map over the region's non-unit dimensions, when the buffer's layout is one),
and which vector widths keep every vector contiguous and aligned on both sides.

A side is *affine* when the element at region multi-index (i0, i1, ...) lies at
`base + i0*s0 + i1*s1 + ...` of its storage (before the buffer's swizzle, which maps aligned
chunks of 2**per_element elements onto aligned chunks): row-major buffers, and layouts whose
shard has one memory iter per dimension. Other layouts are copied element by element, through
the buffer's own indexing (lowering applies the layout)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from math import prod

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.ir.analysis import modular
from transpiler.target.dtypes import DType, has_c_vector
from transpiler.tile import regions
from transpiler.tile.context import c
from transpiler.tile.registry import Check

VECTOR_BYTES = (16, 8, 4, 2)  # widest first: 128-, 64-, 32- and 16-bit accesses


@dataclass(frozen=True)
class Side:
    """An affine operand: `flat` is a 1-D view of its storage (carrying the buffer's swizzle and
    element offset), `base` the index in it of the region's first element, `strides` those of the
    region's non-unit dimensions, `chunk` the elements a swizzle keeps together (0: no swizzle)."""
    region: ir.TileRegion
    flat: ir.Buffer
    base: ir.Expr
    strides: tuple[ir.Expr, ...]
    chunk: int


def dim_strides(buf: ir.Buffer) -> tuple[list[ir.Expr], ir.Expr, tuple | None] | None:
    """(a stride per dimension, the layout's constant memory offset, its swizzle), or None when
    the buffer's layout is not one memory iter per dimension."""
    layout = buf.layout
    if layout is None:
        return layouts.row_major_strides(buf.shape), c(0), None
    if layout.replica or layouts.thread_axes(layout) or len(layout.shard) != len(buf.shape):
        return None
    strides = []
    for it, extent in zip(layout.shard, buf.shape):
        if it.axis != "m" or not (it.extent == extent or ir.is_const(extent, 1)):
            return None
        strides.append(c(0) if ir.is_const(extent, 1) else it.stride)
    offset: ir.Expr = c(0)
    for axis, value in layout.offset:
        if axis == "m":
            offset = ir.add(offset, value)
        else:
            return None
    return strides, offset, layout.swizzle


def affine(region: ir.TileRegion) -> Side | None:
    buf = region.buffer
    found = dim_strides(buf)
    if found is None or buf.scope == "tmem":
        return None
    strides, offset, swizzle = found
    base = layouts.linear_index(list(zip(region.starts, strides)), offset)
    size = prod(buf.const_shape()) if buf.const_shape() else 1
    flat_layout = None
    if swizzle is not None:
        flat_layout = ir.Layout((layouts.Iter(c(size), c(1), "m"),), (), (), swizzle)
    flat = replace(buf, shape=(c(size),), layout=flat_layout, scalar=False)
    kept = tuple(s for s, e in zip(strides, region.extents) if not ir.is_const(e, 1))
    return Side(region, flat, base, kept, (1 << swizzle[0]) if swizzle is not None else 0)


def multiple_of(e: ir.Expr, n: int) -> bool:
    """Whether e is a multiple of n for every value of its variables (as far as can be told)."""
    if n <= 1:
        return True
    m, r = modular(e)
    return (m % n == 0 if m else True) and r % n == 0


@dataclass(frozen=True)
class Runs:
    """The region's elements as nested runs: `extents` outermost first, and per side the
    stride of each run (adjacent dimensions merged where both sides continue contiguously)."""
    extents: tuple[int, ...]
    strides: tuple[tuple[ir.Expr, ...], ...]  # per side


def merge(extents: tuple[int, ...], sides: list[tuple[ir.Expr, ...]]) -> Runs:
    ext = list(extents)
    strides = [list(s) for s in sides]
    d = len(ext) - 2
    while d >= 0:
        if all(s[d] == ir.mul(c(ext[d + 1]), s[d + 1]) for s in strides):
            ext[d] *= ext[d + 1]
            del ext[d + 1]
            for s in strides:
                del s[d]
        d -= 1
    return Runs(tuple(ext), tuple(tuple(s) for s in strides))


def split(flat: ir.Expr, extents: tuple[int, ...]) -> list[ir.Expr]:
    """The multi-index (outermost first) of a flat row-major index over extents."""
    out = []
    rest = prod(extents)
    for k, extent in enumerate(extents):
        rest //= extent
        part = ir.binop("floordiv", flat, c(rest)) if rest != 1 else flat
        out.append(ir.binop("floormod", part, c(extent)) if k else part)
    return out


def offset(side_base: ir.Expr, index: list[ir.Expr], strides: tuple[ir.Expr, ...]) -> ir.Expr:
    return layouts.linear_index(list(zip(index, strides)), side_base)


def vector_fits(cx, dtype: DType, lanes: int, runs: Runs, sides: list[Side], inner_extent: int | None = None) -> str | None:
    """None when vectors of `lanes` elements at multiples of `lanes` along the runs are contiguous
    and aligned on every side, else why not."""
    nbytes = lanes * dtype.nbytes
    if not has_c_vector(dtype.with_lanes(lanes)):
        return f"CUDA has no {nbytes}-byte vector of {dtype.name}"
    if not runs.extents:
        return "the region has one element"
    inner = runs.extents[-1] if inner_extent is None else inner_extent
    if inner % lanes:
        return f"the contiguous run of {inner} elements is not a multiple of {lanes}"
    for side, strides in zip(sides, runs.strides):
        name = side.region.buffer.name or "the registers"
        if not ir.is_const(strides[-1], 1):
            return f"`{name}` is not contiguous along the region's last dimension"
        if side.chunk and side.chunk < lanes:
            return f"`{name}`'s swizzle keeps only {side.chunk} elements together"
        if not all(multiple_of(s, lanes) for s in strides[:-1]) or not multiple_of(side.base, lanes):
            return f"`{name}`'s rows do not start at multiples of {nbytes} bytes"
        if not multiple_of(side.flat.elem_offset, lanes):
            return f"`{name}` does not start at a multiple of {nbytes} bytes"
        if not aligned_storage(cx, side.flat, nbytes):
            return f"`{name}` is only {cx.alignment(side.flat)}-byte aligned"
    return None


def aligned_storage(cx, buf: ir.Buffer, nbytes: int) -> bool:
    """Whether buf's storage starts at a multiple of nbytes; a register array of its own is
    given that alignment (lowering declares it `alignas`)."""
    storage = buf.storage
    if storage is not None and storage.scope == "local" and storage.kind == "array":
        cx.raise_alignment(storage, nbytes)
        return True
    return cx.alignment(buf) >= nbytes


def widths(dtype: DType, forced: int | None) -> list[int]:
    """The vector widths (elements) to try, widest first, ending with 1 (no vector)."""
    if forced is not None:
        return [forced]
    return [b // dtype.nbytes for b in VECTOR_BYTES if b > dtype.nbytes and b % dtype.nbytes == 0] + [1]


def forced_width(call) -> int | str | None:
    """The `vec_len=` option: None when absent, else the width or why it is not one."""
    value = call.option("vec_len")
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 1 or value & (value - 1):
        return f"`vec_len={value!r}` is not a power of two"
    return value


def vec_load(dtype: DType, lanes: int, buf: ir.Buffer, index: ir.Expr, span) -> ir.Expr:
    if lanes == 1:
        return ir.BufferLoad(buf.dtype, buf, (index,), span)
    return ir.BufferVecLoad(dtype.with_lanes(lanes), buf, (index,), span)


def vec_store(buf: ir.Buffer, index: ir.Expr, value: ir.Expr, span) -> ir.Stmt:
    if value.dtype.lanes == 1:
        return ir.BufferStore(buf, (index,), value, span)
    return ir.BufferVecStore(buf, (index,), value, span)


def memory_pair(first: str, second: str, says: str) -> Check:
    """One operand in `first` memory and the other in `second` (either direction)."""
    def test(call, cx):
        dst, src = call.operand("dst"), call.operand("src")
        if not isinstance(dst, ir.TileRegion) or not isinstance(src, ir.TileRegion):
            return "dst and src must be buffer regions"
        if sorted((regions.memory(dst), regions.memory(src))) == sorted((first, second)):
            return None
        return f"it copies {regions.memory(src)} to {regions.memory(dst)}"
    return Check(says, test)
