"""Operands of tile primitives: their memory, their elements, reading and writing them, and the
partition of a register buffer spread over threads (which elements this thread holds).

Elements of a region are counted row-major over its *non-unit* extents, so `A[i, 0:8]` and a
1-D `B[0:8]` have the same eight elements in the same order, as TIRx's copy validation squeezes
unit dimensions."""
from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import product
from math import prod

from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.tile.context import Lowering, c


def memory(region: ir.TileRegion) -> str:
    """global, shared, local or tmem."""
    scope = region.buffer.scope
    return "shared" if scope.startswith("shared") else scope


def const_extents(region: ir.TileRegion) -> tuple[int, ...] | None:
    if all(isinstance(e, ir.IntImm) for e in region.extents):
        return tuple(e.value for e in region.extents)
    return None


def squeezed(region: ir.TileRegion) -> tuple[int, ...] | None:
    """The constant non-unit extents, outermost first."""
    extents = const_extents(region)
    return None if extents is None else tuple(e for e in extents if e != 1)


def num_elements(region: ir.TileRegion) -> int | None:
    extents = const_extents(region)
    return None if extents is None else prod(extents)


def is_distributed(buf: ir.Buffer) -> bool:
    """A register buffer whose layout spreads it over threads."""
    return buf.layout is not None and bool(layouts.thread_axes(buf.layout))


def coords_of(region: ir.TileRegion, flat: ir.Expr) -> tuple[ir.Expr, ...]:
    """The buffer coordinates of element `flat` (0 <= flat < the element count) of the region,
    counted row-major over its extents."""
    strides: list[ir.Expr] = []
    stride: ir.Expr = c(1)
    for extent in reversed(region.extents):
        strides.append(stride)
        stride = ir.mul(stride, extent)
    strides.reverse()
    out, outermost = [], True
    for start, extent, step in zip(region.starts, region.extents, strides):
        if isinstance(extent, ir.IntImm) and extent.value == 1:
            out.append(start)
            continue
        part = ir.binop("floordiv", flat, step)
        if not outermost:  # the outermost part is below its extent already
            part = ir.binop("floormod", part, extent)
        outermost = False
        out.append(ir.add(start, part))
    return tuple(out)


def coords_at(region: ir.TileRegion, index: tuple[ir.Expr, ...]) -> tuple[ir.Expr, ...]:
    """The buffer coordinates of a multi-index over the region's non-unit dimensions."""
    out, k = [], 0
    for start, extent in zip(region.starts, region.extents):
        if isinstance(extent, ir.IntImm) and extent.value == 1:
            out.append(start)
        else:
            out.append(ir.add(start, index[k]))
            k += 1
    return tuple(out)


def load(region: ir.TileRegion, coords) -> ir.Expr:
    buf = region.buffer
    return ir.BufferLoad(buf.dtype, buf, tuple(coords), region.span)


def store(region: ir.TileRegion, coords, value: ir.Expr) -> ir.Stmt:
    buf = region.buffer
    return ir.BufferStore(buf, tuple(coords), ir.cast(buf.dtype, value), region.span)


# -- register buffers spread over threads ----------------------------------------------------

@dataclass(frozen=True)
class Held:
    """One element this thread holds: its register (index into the thread's registers) and its
    coordinates in the buffer (expressions of the thread's index)."""
    register: int
    coords: tuple[ir.Expr, ...]


def registers(buf: ir.Buffer) -> ir.Buffer:
    """The thread's own registers of a distributed buffer, as a 1-D buffer over the same storage."""
    span = layouts.memory_span(buf.layout)
    return replace(buf, name="", shape=(c(span),), layout=None, elem_offset=c(0), scalar=False)


def partition(buf: ir.Buffer, cx: Lowering) -> list[Held] | str:
    """The elements of a distributed register buffer that this thread holds, or why the layout
    is one dispatch cannot invert (a reason for the variant's refusal).

    The layout splits the row-major flat coordinate over its shard extents; the digits on
    thread axes must equal this thread's axis value, those on the memory axis give the register.
    Each thread axis's iters must form a mixed radix (strides the products of the extents
    inside them), so the digits are `(value // stride) % extent`."""
    layout = buf.layout
    shape = buf.const_shape()
    if shape is None or layout.swizzle is not None:
        return "the register buffer's shape or layout is not constant"
    iters = list(layout.shard)
    if any(not isinstance(it.extent, ir.IntImm) or not isinstance(it.stride, ir.IntImm) for it in iters):
        return "the register layout has extents or strides that are not constant"
    if prod(it.extent.value for it in iters) != prod(shape):
        return "the register layout does not cover the buffer"
    axes = {}
    for it in list(layout.shard) + list(layout.replica):
        if it.axis != "m":
            axes.setdefault(it.axis, []).append(it)
    for axis, its in axes.items():
        radix = 1
        for it in sorted(its, key=lambda it: it.stride.value):
            if it.extent.value > 1 and it.stride.value != radix:
                return f"the layout's `{axis}` iters do not form a mixed radix"
            radix *= it.extent.value
    places = place_values(iters)
    thread_flat: ir.Expr = c(0)  # the part of the flat coordinate that the thread's axes fix
    for it, place in zip(iters, places):
        if it.axis != "m" and it.extent.value > 1:
            digit = ir.binop("floormod", ir.binop("floordiv", cx.axis_value(it.axis), it.stride), it.extent)
            thread_flat = ir.add(thread_flat, ir.mul(digit, c(place)))
    memory_iters = [(it, place) for it, place in zip(iters, places) if it.axis == "m"]
    base = sum(v.value for a, v in layout.offset if a == "m" and isinstance(v, ir.IntImm))
    held = []
    for digits in product(*(range(it.extent.value) for it, _ in memory_iters)):
        register = base + sum(d * it.stride.value for d, (it, _) in zip(digits, memory_iters))
        flat = ir.add(thread_flat, c(sum(d * place for d, (_, place) in zip(digits, memory_iters))))
        held.append(Held(register, _unflatten(flat, shape)))
    return held


def _unflatten(flat: ir.Expr, shape: tuple[int, ...]) -> tuple[ir.Expr, ...]:
    out = []
    stride = prod(shape)
    for extent in shape:
        stride //= extent
        part = ir.binop("floordiv", flat, c(stride)) if stride != 1 else flat
        out.append(ir.binop("floormod", part, c(extent)) if len(out) else part)
    return tuple(out)


def offsets_in(region: ir.TileRegion, coords) -> tuple[ir.Expr, ...] | None:
    """The multi-index (over the non-unit dims) of buffer coordinates inside a region, or None
    when constant coordinates fall outside it."""
    index = []
    for coord, start, extent in zip(coords, region.starts, region.extents):
        offset = ir.binop("-", coord, start)
        if ir.is_const(offset) and ir.is_const(extent) and not 0 <= offset.value < extent.value:
            return None
        if not (isinstance(extent, ir.IntImm) and extent.value == 1):
            index.append(offset)
    return tuple(index)


def place_values(iters) -> list[int]:
    """The place value of each iter in the row-major flat coordinate of a layout's shard: the
    product of the extents of the iters after it."""
    places, running = [], 1
    for it in reversed(iters):
        places.append(running)
        running *= it.extent.value
    return places[::-1]
