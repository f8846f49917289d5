"""TIRx's derived buffer views (its `_buffer_view` module), with its meaning: `B.layout`,
`B.sub[...]` (numpy-style: an index drops a dimension, `a:b` narrows it, `a::s` takes every s-th
element), `B.tile(dim, factors)[...]` (split a dimension, pick factors, merge the kept ones back),
`B.rearrange("lhs -> rhs", **sizes)` (einops: reshape, permute, reshape) and
`B.elem_offset_of(indices)`.

Each view is the same storage with a new shape and layout: the layout is grouped by the shape
(ir/layout_ops.group; a row-major buffer's layout is its strides), the dimension's iters are
dropped or narrowed, and the element offset the selection starts at is added to the view's
`elem_offset` -- or, for a swizzled layout where that offset is not a whole number of swizzle
periods, to the layout's own offset, inside the swizzle, as TIRx does. A tensor-memory view moves
its `allocated_addr` instead (a column offset: elements x bits / 32). A view that comes out dense
row-major is given no layout (tirxc's spelling of row-major)."""
from __future__ import annotations

import re
from dataclasses import replace
from math import prod

from transpiler import ir
from transpiler.ir import layout as layouts, layout_ops
from transpiler.ir.layout import Iter, c
from transpiler.syntax import ast
from transpiler.sema.expressions import effects, expr, indexing, scalars
from transpiler.sema import registry
from transpiler.evaluator.core import items_of
from transpiler.evaluator.values import Method, POISON, PyConst
from transpiler.sema.values import BufferIndexer, LayoutVal


class ViewError(Exception):
    """Why a view cannot be made (reported at the call as E0514)."""


def buffer_view_attr(st, buf: ir.Buffer, node):
    """`B.layout`, `B.sub`, and the methods `B.tile`, `B.rearrange`, `B.elem_offset_of`."""
    if node.attr == "layout":
        layout = buf.layout
        if layout is None:
            shape = buf.const_shape()
            if shape is None:
                return registry.unsupported(st, node, f"the layout of `{buf.name}`, whose shape is symbolic,")
            layout = layouts.tile_layout([c(e) for e in shape])
        return LayoutVal(layout)
    if node.attr == "sub":
        return BufferIndexer(buf, "sub")
    return Method(buf, node.attr)


# -- the layout surgery (TIRx's _view_drop, _view_narrow, permute, view) ----------------------------------------
def _parts(buf: ir.Buffer):
    """The grouped shard of buf's layout by its shape, the separators, and the layout's rest."""
    shape = buf.const_shape()
    if shape is None:
        raise ViewError(f"a view of `{buf.name}`, whose shape is symbolic, is not supported yet")
    layout = buf.layout if buf.layout is not None else layouts.tile_layout([c(e) for e in shape])
    found = layout_ops.group(layout, list(shape))
    if found is None:
        raise ViewError(f"the layout of `{buf.name}` (`{layouts.describe(layout)}`) does not split into its shape "
                        f"{shape}")
    iters, seps = found
    return list(iters), seps, layout


def _with(buf: ir.Buffer, shape: list, shard: list, layout: ir.Layout, offset, name: str) -> ir.Buffer:
    """The view of buf with shape and shard (replica, offsets and swizzle of layout), starting
    `offset` elements further (None: no further)."""
    extra_offset = tuple(layout.offset)
    elem_offset = buf.elem_offset
    allocated = buf.allocated_addr
    if offset is not None and not ir.is_const(offset, 0):
        if buf.scope == "tmem":
            bits = offset if buf.dtype.bits == 32 else ir.mul(offset, c(buf.dtype.bits))
            if isinstance(bits, ir.IntImm) and bits.value % 32:
                raise ViewError(f"the view starts {offset.value} elements of {buf.dtype} into a tensor-memory "
                                f"column: it must start on a 32-bit column")
            if buf.dtype.bits != 32 and not isinstance(bits, ir.IntImm):
                raise ViewError("a tensor-memory view at a run-time offset of 16-bit data is not supported yet")
            column = offset if buf.dtype.bits == 32 else c(bits.value // 32)
            allocated = column if allocated is None else ir.add(allocated, ir.cast(allocated.dtype, column))
        elif layout.swizzle is not None and not _whole_periods(offset, layout.swizzle):
            extra_offset = _add_offset(extra_offset, offset)
        else:
            elem_offset = ir.add(elem_offset, ir.cast(elem_offset.dtype, offset) if offset.dtype != elem_offset.dtype
                                 else offset)
    new_shape = tuple(c(e) if isinstance(e, int) else e for e in shape)
    new_layout = ir.Layout(tuple(shard), layout.replica, extra_offset, layout.swizzle)
    if _row_major(new_layout, new_shape) and buf.scope != "tmem":
        new_layout = None
    return replace(buf, name=name or buf.name, shape=new_shape, layout=new_layout, elem_offset=elem_offset,
                   allocated_addr=allocated, scalar=False)


def _whole_periods(offset: ir.Expr, swizzle) -> bool:
    per_element, length, atom, _ = swizzle
    if length == 0:
        return True
    period = 1 << (per_element + atom + length)
    if isinstance(offset, ir.IntImm):
        return offset.value % period == 0
    return False  # not proven: the offset goes inside the swizzle, which is right either way


def _add_offset(offsets: tuple, value: ir.Expr) -> tuple:
    out, done = [], False
    for axis, v in offsets:
        if axis == "m" and not done:
            v, done = ir.add(v, value), True
        out.append((axis, v))
    return tuple(out) if done else tuple(out) + (("m", value),)


def _row_major(layout: ir.Layout, shape) -> bool:
    if layout.replica or layout.offset or layout.swizzle is not None:
        return False
    if not all(it.axis == "m" for it in layout.shard):
        return False
    canon = layout_ops.canonicalize(layout)
    total = prod(e.value for e in shape) if all(isinstance(e, ir.IntImm) for e in shape) else None
    return total is not None and len(canon.shard) == 1 and ir.is_const(canon.shard[0].stride, 1) and \
        ir.is_const(canon.shard[0].extent, total)


def _group_offset(group: list[Iter], index: ir.Expr) -> ir.Expr:
    """The offset of `index` along a dimension made of the iters of group (outermost first)."""
    if len(group) == 1:
        return ir.mul(index, group[0].stride)
    extents = [it.extent.value for it in group[1:]]
    total: ir.Expr = c(0)
    remaining = index
    for pos, it in enumerate(group):
        inner = prod(extents[pos:])
        if inner == 1:
            coord = remaining
        else:
            coord = ir.binop("floordiv", remaining, c(inner))
            remaining = ir.binop("floormod", remaining, c(inner))
        total = ir.add(total, ir.mul(coord, it.stride))
    return total


def _check_axis(buf, group: list[Iter], index: ir.Expr) -> None:
    if ir.is_const(index, 0):
        return
    bad = next((it.axis for it in group if it.axis not in ("m", "TCol")), None)
    if bad is not None:
        raise ViewError(f"a view of `{buf.name}` at a nonzero index of a dimension laid out over `{bad}` is not "
                        f"supported yet (its offset is not in this thread's storage or columns)")


def drop(buf: ir.Buffer, dim: int, index: ir.Expr, name: str = "") -> ir.Buffer:
    """`_view_drop`: the view without dimension dim, at index."""
    shape = buf.const_shape()
    if isinstance(index, ir.IntImm) and shape is not None and not 0 <= index.value < shape[dim]:
        raise ViewError(f"index {index.value} is out of range for dimension {dim} of extent {shape[dim]}")
    iters, seps, layout = _parts(buf)
    lo, hi = seps[dim], seps[dim + 1]
    _check_axis(buf, iters[lo:hi], index)
    offset = _group_offset(iters[lo:hi], index) if hi > lo else c(0)
    return _with(buf, list(shape[:dim]) + list(shape[dim + 1:]), iters[:lo] + iters[hi:], layout, offset, name)


def narrow(buf: ir.Buffer, dim: int, start: ir.Expr, length: int, name: str = "") -> ir.Buffer:
    """`_view_narrow`: dimension dim cut to [start, start + length)."""
    shape = buf.const_shape()
    if length < 1:
        raise ViewError(f"the slice of dimension {dim} is empty")
    if isinstance(start, ir.IntImm) and (start.value < 0 or start.value + length > shape[dim]):
        raise ViewError(f"the range [{start.value}, {start.value + length}) exceeds dimension {dim} of extent "
                        f"{shape[dim]}")
    iters, seps, layout = _parts(buf)
    lo, hi = seps[dim], seps[dim + 1]
    group = iters[lo:hi]
    if len(group) == 1:
        _check_axis(buf, group, start)
        offset = ir.mul(start, group[0].stride)
        new_group = [Iter(c(length), group[0].stride, group[0].axis)]
    elif not group:
        offset, new_group = c(0), []
    else:
        inner = prod(it.extent.value for it in group[1:])
        if not isinstance(start, ir.IntImm) or start.value % inner or length % inner:
            raise ViewError(f"dimension {dim} of `{buf.name}` is laid out as {len(group)} iters: a slice of it "
                            f"starts and ends at compile-time multiples of {inner}")
        _check_axis(buf, group[:1], c(start.value // inner))
        offset = ir.mul(c(start.value // inner), group[0].stride)
        new_group = [Iter(c(length // inner), group[0].stride, group[0].axis)] + group[1:]
    new_shape = list(shape)
    new_shape[dim] = length
    return _with(buf, new_shape, iters[:lo] + new_group + iters[hi:], layout, offset, name)


def reshape(buf: ir.Buffer, shape: list[int], name: str = "") -> ir.Buffer:
    """`B.view(*shape)` keeping B's layout (TIRx applies it to the new shape's flat index)."""
    old = buf.const_shape()
    if old is None:
        raise ViewError(f"a view of `{buf.name}`, whose shape is symbolic, is not supported yet")
    if shape.count(-1) == 1:
        known = prod(e for e in shape if e != -1)
        if known <= 0 or prod(old) % known:
            raise ViewError(f"cannot view the {prod(old)} elements of `{buf.name}` as {tuple(shape)}")
        shape = [prod(old) // known if e == -1 else e for e in shape]
    if any(e <= 0 for e in shape) or prod(shape) != prod(old):
        raise ViewError(f"cannot view the {prod(old)} elements of `{buf.name}` as {tuple(shape)}")
    return replace(buf, name=name or buf.name, shape=tuple(c(e) for e in shape), scalar=False)


def permute(buf: ir.Buffer, dims: list[int], name: str = "") -> ir.Buffer:
    iters, seps, layout = _parts(buf)
    shape = buf.const_shape()
    new = layout_ops.permute_by_groups(ir.Layout(tuple(iters), layout.replica, layout.offset, layout.swizzle),
                                       seps, dims)
    return _with(buf, [shape[d] for d in dims], list(new.shard), layout, None, name)


# -- B.sub[...] ----------------------------------------------------------------------------------------
def buffer_indexer(st, indexer: BufferIndexer, node: ast.Subscript):
    name = scalars.source_text(st, node.span) or ""
    try:
        if indexer.kind == "sub":
            return _sub(st, indexer.buffer, node, name)
        return _tile(st, indexer, node, name)
    except ViewError as err:
        st.diags.error("E0514", str(err), node.span)
        return POISON


def _index(st, node):
    """An index of a view: an int32 value, evaluated once."""
    v = expr.int_value(st, node)
    if v is POISON:
        return POISON
    if not effects.is_pure(v):
        v = effects.once(st, v, "a view index with side effects", node.span, "idx")
        return POISON if v is None else v
    return v


def _sub(st, buf: ir.Buffer, node: ast.Subscript, name: str):
    if buf.const_shape() is None:
        raise ViewError(f"a view of `{buf.name}`, whose shape is symbolic, is not supported yet")
    if len(node.indices) > buf.ndim:
        st.diags.error("E0514", f"`sub` takes at most {buf.ndim} indices for the {buf.ndim}-D `{buf.name}`, got "
                                f"{len(node.indices)}", node.span)
        return POISON
    dim = 0
    for item in node.indices:
        if not isinstance(item, ast.Slice):
            index = _index(st, item)
            if index is POISON:
                return POISON
            buf = drop(buf, dim, index)
            continue
        step = None if item.step is None else expr.const_int(st, item.step, "a `sub` step")
        if item.step is not None and step is None:
            return POISON
        start = c(0) if item.lower is None else _index(st, item.lower)
        if start is POISON:
            return POISON
        extent = buf.const_shape()[dim]
        if step is None or step == 1:
            if item.lower is None and item.upper is None:
                dim += 1
                continue
            stop = c(extent) if item.upper is None else _index(st, item.upper)
            if stop is POISON:
                return POISON
            length = ir.difference(stop, start)
            if not isinstance(length, ir.IntImm):
                st.diags.error("E0514", "the extent of a `sub` slice must be a compile-time integer",
                               item.span, help="write it as `i:i + 64`")
                return POISON
            buf = narrow(buf, dim, start, length.value)
        else:
            if step <= 0:
                raise ViewError(f"a `sub` step is a positive integer, not {step}")
            if item.upper is not None:
                raise ViewError("a `sub` slice with a step takes no stop (`a::s`)")
            if extent % step:
                raise ViewError(f"dimension {dim} of extent {extent} does not divide by the step {step}")
            if isinstance(start, ir.IntImm) and not 0 <= start.value < step:
                raise ViewError(f"the start of a stepped slice is in [0, {step}), not {start.value}")
            shape = list(buf.const_shape())
            split = reshape(buf, shape[:dim] + [extent // step, step] + shape[dim + 1:])
            buf = drop(split, dim + 1, start)
        dim += 1
    return replace(buf, name=name or buf.name, span=node.span)


# -- B.tile(dim, factors)[...] ---------------------------------------------------------------------------
def _tile(st, indexer, node: ast.Subscript, name: str):
    count = sum(len(f) for _, f in indexer.specs)
    if len(node.indices) != count:
        st.diags.error("E0514", f"`tile` split into {count} factor{'s' if count != 1 else ''}: give one index or "
                                f"`:` per factor, not {len(node.indices)}", node.span)
        return POISON
    picks, pos = [], 0
    for dim, factors in indexer.specs:
        picks.append((dim, factors, node.indices[pos:pos + len(factors)]))
        pos += len(factors)
    buf = indexer.buffer
    for dim, factors, dim_picks in sorted(picks, key=lambda p: p[0], reverse=True):
        keep = [isinstance(p, ast.Slice) for p in dim_picks]
        for p in dim_picks:
            if isinstance(p, ast.Slice) and (p.lower, p.upper, p.step) != (None, None, None):
                raise ViewError("a `tile` factor is picked with an index or kept whole with `:`, not sliced")
        if all(keep):
            raise ViewError(f"`tile` of dimension {dim} picks no factor; a pure split is `view`")
        shape = list(buf.const_shape())
        buf = reshape(buf, shape[:dim] + list(factors) + shape[dim + 1:])
        for k in reversed(range(len(dim_picks))):
            if not keep[k]:
                index = _index(st, dim_picks[k])
                if index is POISON:
                    return POISON
                buf = drop(buf, dim + k, index)
        kept = sum(keep)
        if kept >= 2:
            shape = list(buf.const_shape())
            buf = reshape(buf, shape[:dim] + [-1] + shape[dim + kept:])
    return replace(buf, name=name or buf.name, span=node.span)


# -- B.tile(...), B.rearrange(...), B.elem_offset_of(...) ---------------------------------------------------
def buffer_view_method(st, buf: ir.Buffer, name: str, node: ast.Call):
    try:
        if name == "tile":
            return _tile_specs(st, buf, node)
        if name == "rearrange":
            return _rearrange(st, buf, node)
        return _elem_offset_of(st, buf, node)
    except ViewError as err:
        st.diags.error("E0514", str(err), node.span)
        return POISON


def _spec_value(st, node, what: str):
    val = expr.elab(st, node)
    if val is POISON:
        return POISON
    if isinstance(val, PyConst) and not isinstance(val.value, tuple):
        return val.value
    items = items_of(val)
    if items is not None:
        out = [_spec_value_of(i) for i in items]
        if POISON not in out:
            return tuple(out)
    st.diags.error("E0514", f"{what} must be compile-time integers", node.span)
    return POISON


def _spec_value_of(item):
    """A tile spec's item: an int, or a tuple of them (from a compile-time sequence)."""
    if isinstance(item, (PyConst, ir.IntImm)):
        return item.value
    items = items_of(item)
    return POISON if items is None else tuple(_spec_value_of(i) for i in items)


def _tile_specs(st, buf: ir.Buffer, node: ast.Call):
    if node.keywords:
        st.diags.error("E0311", f"`tile` has no parameter `{node.keywords[0].name}`", node.keywords[0].span)
        return POISON
    values = [_spec_value(st, a, "`tile` specs") for a in node.args]
    if POISON in values:
        return POISON
    if values and isinstance(values[0], int):
        if len(values) != 2:
            raise ViewError("`tile(dim, factors)` takes a dimension and a tuple of factors")
        values = [tuple(values)]
    specs, seen = [], set()
    shape = buf.const_shape()
    if shape is None:
        raise ViewError(f"`tile` of `{buf.name}`, whose shape is symbolic, is not supported yet")
    for spec in values:
        if not (isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], int)
                and isinstance(spec[1], tuple) and spec[1]):
            raise ViewError(f"each `tile` spec is (dim, factors), not {spec!r}")
        dim, factors = spec
        dim = dim + len(shape) if dim < 0 else dim
        if not 0 <= dim < len(shape):
            raise ViewError(f"`tile`: dimension {spec[0]} is out of range for the {len(shape)}-D `{buf.name}`")
        if dim in seen:
            raise ViewError(f"`tile`: dimension {dim} is tiled twice")
        if not all(isinstance(f, int) and (f > 0 or f == -1) for f in factors) or factors.count(-1) > 1:
            raise ViewError(f"`tile` factors are positive integers and at most one -1, not {factors}")
        if -1 in factors:
            known = prod(f for f in factors if f != -1)
            if shape[dim] % known:
                raise ViewError(f"`tile`: the factors {factors} do not divide dimension {dim} of extent {shape[dim]}")
            factors = tuple(shape[dim] // known if f == -1 else f for f in factors)
        if prod(factors) != shape[dim]:
            raise ViewError(f"`tile`: the factors {factors} do not multiply to dimension {dim}'s extent {shape[dim]}")
        seen.add(dim)
        specs.append((dim, factors))
    return BufferIndexer(buf, "tile", tuple(specs))


_GROUPS = re.compile(r"\(([^)]*)\)|(\S+)")


def _rearrange(st, buf: ir.Buffer, node: ast.Call):
    # the pattern is positional-only: `pattern=` is a keyword only when no pattern is given first (TIRx)
    by_keyword = not node.args
    pattern_node = node.args[0] if node.args else next((k.value for k in node.keywords if k.name == "pattern"), None)
    if pattern_node is None or len(node.args) > 1:
        st.diags.error("E0305", "`rearrange` takes a pattern such as \"(a b) c -> a (b c)\" and sizes as keywords",
                       node.span)
        return POISON
    pattern = expr.const_str(st, pattern_node, "the pattern")
    sizes = {}
    for k in node.keywords:
        if k.name == "pattern" and by_keyword:
            continue
        v = expr.const_int(st, k.value, f"the size of `{k.name}`")
        if v is None:
            return POISON
        sizes[k.name] = v
    if pattern is None:
        return POISON
    if "->" not in pattern:
        raise ViewError(f"a `rearrange` pattern has `->`, not {pattern!r}")
    lhs_s, rhs_s = pattern.split("->", 1)
    groups = lambda side: [g.split() if g else [b] for g, b in _GROUPS.findall(side.strip())]  # noqa: E731
    lhs, rhs = groups(lhs_s), groups(rhs_s)
    shape = buf.const_shape()
    if shape is None:
        raise ViewError(f"`rearrange` of `{buf.name}`, whose shape is symbolic, is not supported yet")
    if len(lhs) != len(shape):
        raise ViewError(f"the left side of {pattern!r} has {len(lhs)} groups, but `{buf.name}` has {len(shape)} "
                        f"dimensions")
    size: dict[str, int] = {}
    for group, extent in zip(lhs, shape):
        known = {a: sizes[a] for a in group if a in sizes}
        unknown = [a for a in group if a not in sizes]
        product = prod(known.values())
        if not unknown:
            if product != extent:
                raise ViewError(f"the group ({' '.join(group)}) has {product} elements, not {extent}")
        elif len(unknown) == 1:
            if product <= 0 or extent % product:
                raise ViewError(f"dimension {extent} does not divide by {product} in the group ({' '.join(group)})")
            known[unknown[0]] = extent // product
        else:
            raise ViewError(f"the group ({' '.join(group)}) has more than one axis of unknown size; give the "
                            f"sizes of all but one as keywords")
        size.update(known)
    flat_lhs = [a for g in lhs for a in g]
    flat_rhs = [a for g in rhs for a in g]
    if sorted(flat_lhs) != sorted(flat_rhs):
        raise ViewError(f"the axes {flat_lhs} on the left of {pattern!r} are not those on the right, {flat_rhs}")
    out = reshape(buf, [size[a] for a in flat_lhs])
    out = permute(out, [flat_lhs.index(a) for a in flat_rhs])
    out = reshape(out, [prod(size[a] for a in g) for g in rhs], scalars.source_text(st, node.span) or "")
    return replace(out, span=node.span)


def _elem_offset_of(st, buf: ir.Buffer, node: ast.Call):
    """`B.elem_offset_of(indices, inner=True)`: the element offset of B[indices] through B's layout
    (its swizzle included), from B's start; with inner=False from its storage's start."""
    args = registry.bind_args(st, node, ("indices", "inner=True"), "elem_offset_of")
    if args is None:
        return POISON
    inner = True if registry.is_default(args["inner"]) else expr.elab(st, args["inner"])
    if inner is not True and not (isinstance(inner, PyConst) and isinstance(inner.value, bool)):
        st.diags.error("E0305", "`inner` is True or False", args["inner"].span)
        return POISON
    inner = inner is True or inner.value
    nodes = args["indices"].elts if isinstance(args["indices"], (ast.List, ast.Tuple)) else [args["indices"]]
    if len(nodes) != buf.ndim:
        indexing.wrong_index_count(st, buf, len(nodes), args["indices"].span)
        return POISON
    coords = [expr.int_value(st, n) for n in nodes]
    if POISON in coords:
        return POISON
    if buf.layout is not None and layouts.thread_axes(buf.layout):
        return registry.unsupported(st, node, "`elem_offset_of` of a buffer laid out over threads")
    base = c(0) if inner else buf.elem_offset
    return layouts.memory_index(buf.layout, coords, list(buf.shape), base)


def view_keeping_layout(st, buf: ir.Buffer, dims, node: ast.Call):
    """`B.view(*shape)` of a buffer with a layout and no `layout=`: TIRx keeps B's layout, applied
    to the new shape's row-major flat index (one extent may be -1)."""
    shape = [d.value if isinstance(d, PyConst) and isinstance(d.value, int) and not isinstance(d.value, bool)
             else None for d in dims]
    if None in shape or not shape:
        st.diags.error("E0514", "view extents must be compile-time integers", node.span)
        return POISON
    try:
        return replace(reshape(buf, shape, scalars.source_text(st, node.span) or ""), span=node.span)
    except ViewError as err:
        st.diags.error("E0514", str(err), node.span)
        return POISON


