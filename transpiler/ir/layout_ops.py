"""Operations that build a layout from layouts, with TIRx's meaning (its TileLayout `Group`,
`Tile` and `tile_to`): regrouping a layout's shard by a shape, and tiling one layout by an
outer one. Constant extents only; None where TIRx's grouping would fail too."""
from __future__ import annotations

from transpiler import ir
from transpiler.ir.layout import Iter, c, row_major_strides


def _const(e) -> int | None:
    return e.value if isinstance(e, ir.IntImm) else None


def group(layout: ir.Layout, shape: list[int]) -> tuple[list[Iter], list[int]] | None:
    """The shard split so that consecutive runs of iters cover each extent of shape (outermost
    first), and the run boundaries (len(shape) + 1 separators); None when the extents do not
    line up (or are not constants)."""
    new: list[Iter] = []
    seps = [0]
    k, prod = 0, 1
    for it in layout.shard:
        ext = _const(it.extent)
        if ext is None:
            return None
        stride = it.stride
        prod *= ext
        while k < len(shape) and prod % shape[k] == 0:
            rest = prod // shape[k]
            if ext % rest:
                return None
            new.append(Iter(c(ext // rest), ir.mul(stride, c(rest)), it.axis))
            ext, prod, k = rest, rest, k + 1
            seps.append(len(new))
        if ext != 1:
            if k >= len(shape):
                return None
            new.append(Iter(c(ext), stride, it.axis))
    if k != len(shape):
        return None
    # iters of extent 1 (a unit extent in shape) carry no index: drop them, keep the separators
    return new, seps


def span(layout: ir.Layout, axis: str) -> ir.Expr:
    """1 + the largest coordinate the layout reaches on axis (TIRx's GetSpan)."""
    total: ir.Expr = c(1)
    for it in layout.shard + layout.replica:
        if it.axis == axis:
            total = ir.add(total, ir.mul(ir.binop("-", it.extent, c(1)), it.stride))
    for name, value in layout.offset:
        if name == axis:
            total = ir.add(total, value)
    return total


def tile(inner: ir.Layout, outer: ir.Layout, outer_shape: list[int], inner_shape: list[int],
         text: str = "") -> ir.Layout | None:
    """`inner.tile(outer, outer_shape, inner_shape)`: each dimension d becomes outer_shape[d] *
    inner_shape[d]; the outer layout's iters go before the inner's in each dimension, their
    strides scaled by the inner layout's span on the same axis. None when either layout does
    not group by its shape."""
    grouped_outer, grouped_inner = group(outer, outer_shape), group(inner, inner_shape)
    if grouped_outer is None or grouped_inner is None or len(outer_shape) != len(inner_shape):
        return None
    outer_iters, outer_seps = grouped_outer
    inner_iters, inner_seps = grouped_inner
    spans = {}
    for it in inner_iters:
        spans.setdefault(it.axis, span(inner, it.axis))
    outer_iters = [Iter(it.extent, ir.mul(it.stride, spans[it.axis]), it.axis) if it.axis in spans else it
                   for it in outer_iters]
    shard: list[Iter] = []
    for d in range(len(outer_shape)):
        shard += outer_iters[outer_seps[d]:outer_seps[d + 1]]
        shard += inner_iters[inner_seps[d]:inner_seps[d + 1]]
    offsets: dict[str, ir.Expr] = {}
    for name, value in tuple(inner.offset) + tuple(outer.offset):
        offsets[name] = ir.add(offsets[name], value) if name in offsets else value
    return ir.Layout(tuple(shard), tuple(inner.replica) + tuple(outer.replica), tuple(offsets.items()), None, text)


def tile_to(layout: ir.Layout, to_shape: list[int], current_shape: list[int], text: str = "") -> ir.Layout | None:
    """`layout.tile_to(to_shape, current_shape)`: the layout repeated, row-major, over the tiles
    of to_shape (each extent a multiple of current_shape's)."""
    tiles = [t // s for t, s in zip(to_shape, current_shape)]
    outer = ir.Layout(tuple(Iter(c(n), s) for n, s in zip(tiles, row_major_strides([c(n) for n in tiles]))))
    return tile(layout, outer, tiles, list(current_shape), text)
