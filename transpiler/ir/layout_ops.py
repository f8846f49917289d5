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


# -- TIRx's canonical form, swizzled tiling, regrouping (tma_utils.py, layout_attrs.py) ------------------------------
def _same(a: ir.Expr, b: ir.Expr) -> bool:
    ca, cb = _const(a), _const(b)
    return ca == cb if ca is not None and cb is not None else a is b


def canonicalize(layout: ir.Layout) -> ir.Layout:
    """TIRx's Canonicalize: unit iters dropped (one `1:1` iter kept when all are), zero offsets
    dropped, and runs of iters of one axis where the outer's stride is the inner's extent times
    stride fused into one iter. (TIRx also fuses thread axes by the target's scope and sorts the
    replica by hash; tirxc keeps both as written: neither changes what the layout maps.)"""
    shard = [it for it in layout.shard if _const(it.extent) != 1]
    if not shard and layout.shard:
        shard = [Iter(c(1), c(1), layout.shard[0].axis)]
    fused: list[Iter] = []
    for it in shard:
        prev = fused[-1] if fused else None
        if prev is not None and prev.axis == it.axis and _same(ir.mul(it.extent, it.stride), prev.stride):
            fused[-1] = Iter(ir.mul(prev.extent, it.extent), it.stride, it.axis)
        else:
            fused.append(it)
    offset = tuple((axis, value) for axis, value in layout.offset if _const(value) != 0)
    return ir.Layout(tuple(fused), tuple(layout.replica), offset, layout.swizzle, layout.text)


def is_trivial(layout: ir.Layout) -> bool:
    """TIRx's IsTrivial of a tile layout: at most one memory iter of stride 1, no replica or offset."""
    if len(layout.shard) > 1 or layout.replica or layout.offset:
        return False
    return not layout.shard or (layout.shard[0].axis == "m" and _const(layout.shard[0].stride) == 1)


def identity(shape: list[int]) -> ir.Layout:
    total = 1
    for e in shape:
        total *= e
    return ir.Layout((Iter(c(total), c(1)),))


def tile_any(inner: ir.Layout, outer: ir.Layout, outer_shape: list[int], inner_shape: list[int],
             text: str = "") -> ir.Layout | None:
    """`inner.tile(...)` where inner may be a ComposeLayout: its tile layout is tiled (an identity
    over inner_shape in place of a bare swizzle's trivial one) and the swizzle kept."""
    if inner.swizzle is None:
        return tile(inner, outer, outer_shape, inner_shape, text)
    base = ir.Layout(inner.shard, inner.replica, inner.offset)
    if is_trivial(base):
        base = identity(inner_shape)
    result = tile(base, outer, outer_shape, inner_shape, text)
    return None if result is None else canonicalize(ir.Layout(result.shard, result.replica, result.offset,
                                                              inner.swizzle, text))


def tile_to_any(layout: ir.Layout, to_shape: list[int], current_shape: list[int], text: str = "") -> ir.Layout | None:
    tiles = [t // s for t, s in zip(to_shape, current_shape)]
    outer = ir.Layout(tuple(Iter(c(n), s) for n, s in zip(tiles, row_major_strides([c(n) for n in tiles]))))
    return tile_any(layout, outer, tiles, list(current_shape), text)


def grouped(layout: ir.Layout, shape: list[int]) -> tuple[ir.Layout, list[int]] | None:
    """TIRx's `layout.group(shape)`: the layout with its shard split by shape, and the separators."""
    found = group(layout, shape)
    if found is None:
        return None
    iters, seps = found
    return ir.Layout(tuple(iters), layout.replica, layout.offset, layout.swizzle), seps


def permute_by_groups(layout: ir.Layout, seps: list[int], perm: list[int]) -> ir.Layout:
    order = [k for g in perm for k in range(seps[g], seps[g + 1])]
    return ir.Layout(tuple(layout.shard[k] for k in order), layout.replica, layout.offset, layout.swizzle)


def storage(layout: ir.Layout) -> ir.Layout:
    """TIRx's `storage()`: the layout without its thread-axis iters and offsets (one thread's registers)."""
    memory = lambda axis: axis in ("m", "TLane", "TCol")  # noqa: E731
    return ir.Layout(tuple(it for it in layout.shard if memory(it.axis)),
                     tuple(it for it in layout.replica if memory(it.axis)),
                     tuple((a, v) for a, v in layout.offset if memory(a)), layout.swizzle)


def direct_sum(right: ir.Layout, left: ir.Layout, left_shape: list[int], right_shape: list[int]) -> ir.Layout | None:
    """TIRx's `right.direct_sum(left, left_shape, right_shape)`: both canonicalized and grouped by
    their shapes, dimension d is left's iters of d then right's; replicas and offsets added; the
    result canonicalized. Tile layouts only (None otherwise, or where a grouping fails)."""
    if right.swizzle is not None or left.swizzle is not None or len(left_shape) != len(right_shape):
        return None
    gl, gr = group(canonicalize(left), left_shape), group(canonicalize(right), right_shape)
    if gl is None or gr is None:
        return None
    (li, ls), (ri, rs) = gl, gr
    shard: list[Iter] = []
    for d in range(len(left_shape)):
        shard += li[ls[d]:ls[d + 1]] + ri[rs[d]:rs[d + 1]]
    offsets: dict[str, ir.Expr] = {}
    for name, value in tuple(left.offset) + tuple(right.offset):
        offsets[name] = ir.add(offsets[name], value) if name in offsets else value
    return canonicalize(ir.Layout(tuple(shard), tuple(left.replica) + tuple(right.replica), tuple(offsets.items())))


def unpack(layout: ir.Layout, num: int) -> ir.Layout | str:
    """TIRx's `unpack(num)`: each element becomes num contiguous ones (a swizzle's unit grows by num)."""
    if num <= 0 or (layout.swizzle is not None and num & (num - 1)):
        return "unpacks into a positive number of elements (a power of two for a swizzled layout)"
    shard = tuple(Iter(it.extent, ir.mul(it.stride, c(num)), it.axis) for it in layout.shard) + (Iter(c(num), c(1)),)
    swizzle = layout.swizzle
    if swizzle is not None:
        swizzle = (swizzle[0] + num.bit_length() - 1,) + tuple(swizzle[1:])
    return ir.Layout(shard, layout.replica, layout.offset, swizzle)


def pack(layout: ir.Layout, num: int) -> ir.Layout | str:
    """TIRx's `pack(num)`: num contiguous elements become one (the innermost iter, of stride 1 and
    an extent a multiple of num, shrinks; the other strides are divided by num)."""
    if not layout.shard or num <= 0:
        return "packs a layout with at least one iter into a positive number of elements"
    inner = layout.shard[-1]
    if _const(inner.stride) != 1 or _const(inner.extent) is None or inner.extent.value % num or inner.axis not in (
            "m", "TLane", "TCol"):
        return f"the innermost iter must be a memory iter of stride 1 and an extent that {num} divides"
    if any(_const(it.stride) is None for it in layout.shard[:-1]):
        return "the strides must be constants"
    swizzle = layout.swizzle
    if swizzle is not None:
        if num & (num - 1) or swizzle[0] < num.bit_length() - 1:
            return f"a swizzle of 2^{swizzle[0]}-element units packs by a power of two up to {1 << swizzle[0]}"
        swizzle = (swizzle[0] - (num.bit_length() - 1),) + tuple(swizzle[1:])
    shard = tuple(Iter(it.extent, c(it.stride.value // num), it.axis) for it in layout.shard[:-1]) + \
        (Iter(c(inner.extent.value // num), c(1), inner.axis),)
    return ir.Layout(shard, layout.replica, layout.offset, swizzle)


def broadcast(layout: ir.Layout, num: int, position: int = -1, axis: str = "m") -> ir.Layout:
    """TIRx's `broadcast(num, position=-1, axis="m")`: a stride-0 iter of extent num inserted at
    position (list-insert semantics; -1 appends)."""
    shard = list(layout.shard)
    at = position if position >= 0 else len(shard) + 1 + position
    shard.insert(at, Iter(c(num), c(0), axis))
    return ir.Layout(tuple(shard), layout.replica, layout.offset, layout.swizzle)
