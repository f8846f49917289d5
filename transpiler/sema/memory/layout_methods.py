"""Methods of a layout value with TIRx's meaning: `L.tile_to(to_shape, current_shape)`,
`L.tile(outer, outer_shape, inner_shape)` (ir/layout_ops.py) and `L.apply(*coord, shape=None)`
(the coordinate on each axis, as a dict from axis name to value)."""
from __future__ import annotations

from transpiler import ir
from transpiler.ir import layout as layouts, layout_ops
from transpiler.sema.expressions import expr, scalars
from transpiler.sema.memory import layout_attrs
from transpiler.sema import registry
from transpiler.sema.registry import is_default
from transpiler.evaluator.box import new_dict
from transpiler.evaluator.values import POISON, PyConst
from transpiler.sema.values import LayoutVal

METHODS = ("tile_to", "tile", "apply")


def _shape(st, node, what: str) -> list[int] | None:
    val = expr.elab(st, node)
    items = val.value if isinstance(val, PyConst) and isinstance(val.value, (tuple, list)) else \
        val if isinstance(val, tuple) else None
    if items is not None:
        items = [v.value if isinstance(v, (PyConst, ir.IntImm)) else v for v in items]
    if items is None or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in items):
        if val is not POISON:
            st.diags.error("E0517", f"{what} must be a list of positive compile-time integers", node.span)
        return None
    return list(items)


def _text(st, node) -> str:
    return scalars.source_text(st, node.span) or ""


def layout_method(st, layout: ir.Layout, name: str, node):
    if name in layout_attrs.METHODS:
        return layout_attrs.call(st, layout, name, node)
    if layout.swizzle is not None and name == "apply":
        return registry.unsupported(st, node, f"`{name}` of a swizzled (`ComposeLayout`) layout")
    if name == "tile_to":
        args = registry.bind_args(st, node, ("to_shape", "current_shape"), "tile_to")
        if args is None:
            return POISON
        to, cur = _shape(st, args["to_shape"], "`to_shape`"), _shape(st, args["current_shape"], "`current_shape`")
        if to is None or cur is None:
            return POISON
        if len(to) != len(cur) or any(t % s for t, s in zip(to, cur)):
            st.diags.error("E0517", f"cannot tile a {tuple(cur)} layout to {tuple(to)}: each extent must be a "
                                    f"multiple of the current one, in as many dimensions", node.span)
            return POISON
        return _made(st, layout_ops.tile_to_any(layout, to, cur, _text(st, node)), layout, cur, node)
    if name == "tile":
        args = registry.bind_args(st, node, ("outer", "outer_shape", "inner_shape"), "tile")
        if args is None:
            return POISON
        outer = expr.elab(st, args["outer"])
        outer_shape = _shape(st, args["outer_shape"], "`outer_shape`")
        inner_shape = _shape(st, args["inner_shape"], "`inner_shape`")
        if outer is POISON or outer_shape is None or inner_shape is None:
            return POISON
        if not isinstance(outer, LayoutVal):
            st.diags.error("E0517", "`tile` takes an outer `TileLayout`", args["outer"].span)
            return POISON
        if outer.layout.swizzle is not None:
            return registry.unsupported(st, node, "`tile` by a swizzled (`ComposeLayout`) layout")
        if len(outer_shape) != len(inner_shape):
            st.diags.error("E0517", "`outer_shape` and `inner_shape` need as many dimensions", node.span)
            return POISON
        return _made(st, layout_ops.tile_any(layout, outer.layout, outer_shape, inner_shape, _text(st, node)),
                     layout, inner_shape, node)
    return _apply(st, layout, node)


def _made(st, result, layout, shape, node):
    if result is None:
        st.diags.error("E0517", f"the layout `{layouts.describe(layout)}` does not split into the extents "
                                f"{tuple(shape)}", node.span,
                       help="the product of the layout's extents must line up with each dimension's extent")
        return POISON
    return LayoutVal(result)


def _apply(st, layout: ir.Layout, node):
    shape_node = next((k.value for k in node.keywords if k.name == "shape"), None)
    if any(k.name != "shape" for k in node.keywords):
        bad = next(k for k in node.keywords if k.name != "shape")
        st.diags.error("E0311", f"`apply` has no parameter `{bad.name}`", bad.span)
        return POISON
    coords = [scalars.as_value(st, expr.elab(st, a), a.span) for a in node.args]
    if POISON in coords:
        return POISON
    if not coords:
        st.diags.error("E0305", "`apply` takes a coordinate", node.span)
        return POISON
    if any(not c.dtype.is_int or c.dtype.lanes != 1 for c in coords):
        st.diags.error("E0309", "a layout coordinate is an integer", node.span)
        return POISON
    extents = [it.extent for it in layout.shard]
    if shape_node is not None:
        shape = _shape(st, shape_node, "`shape`")
        if shape is None:
            return POISON
        shape = [layouts.c(v) for v in shape]
    elif len(coords) == 1:
        shape = [layouts.num_elements(layout)]
    else:
        shape = extents
    if len(shape) != len(coords):
        st.diags.error("E0517", f"{len(coords)} coordinates for a shape of {len(shape)} dimensions", node.span)
        return POISON
    out = {axis: layouts.linear_index(terms) for axis, terms in layouts.apply(layout, coords, shape).items()}
    return new_dict(out)


def layout_helper(st, name: str, node):
    """`wg_local_layout(cols, rows=128)`: each thread of a warpgroup owns one row of `cols`
    registers; `tmem_datapath_layout(datapath, rows, cols, sub_slab=0)`: the tensor-memory
    layout an MMA datapath writes (rows to lanes, columns to columns; datapath_iters)."""
    if name == "wg_local_layout":
        args = registry.bind_args(st, node, ("cols", "rows=128"), name)
        if args is None:
            return POISON
        cols = expr.const_int(st, args["cols"], "`cols`")
        rows = 128 if is_default(args["rows"]) else expr.const_int(st, args["rows"], "`rows`")
        if cols is None or rows is None:
            return POISON
        return LayoutVal(layouts.tile_layout([layouts.c(rows), layouts.c(cols)], [layouts.c(1), layouts.c(1)],
                                             ["tid_in_wg", "m"], text=_text(st, node)))
    args = registry.bind_args(st, node, ("datapath", "rows", "cols", "sub_slab=0"), name)
    if args is None:
        return POISON
    datapath = expr.const_str(st, args["datapath"], "the datapath")
    rows, cols = expr.const_int(st, args["rows"], "`rows`"), expr.const_int(st, args["cols"], "`cols`")
    sub_slab = 0 if is_default(args["sub_slab"]) else expr.const_int(st, args["sub_slab"], "`sub_slab`")
    if datapath is None or rows is None or cols is None or sub_slab is None:
        return POISON
    if datapath not in DATAPATH_ROWS or len(datapath) != 1:
        st.diags.error("E0517", f"unknown tcgen05 datapath {datapath!r}; the datapaths are A to G",
                       args["datapath"].span)
        return POISON
    iters = datapath_iters(datapath, rows, cols, sub_slab)
    if isinstance(iters, str):
        st.diags.error("E0517", f"datapath {datapath!r}: {iters}", node.span)
        return POISON
    c = layouts.c
    return LayoutVal(ir.Layout(tuple(layouts.Iter(c(e), c(s), a) for e, s, a in iters),
                               (), (("TLane", c(16)),) if datapath in "CF" and sub_slab else (), None,
                               _text(st, node)))


DATAPATH_ROWS = {"A": 128, "D": 128, "B": 64, "C": 64, "E": 64, "F": 64, "G": 32}


def datapath_iters(datapath: str, rows: int, cols: int, sub_slab: int) -> list | str:
    """TIRx's tmem_datapath_layout as (extent, stride, axis) iters over (rows, cols), or why not:
    A / D identity rows to lanes; B / E fold the column halves onto lanes 64 apart; G the column
    quarters onto lanes 32 apart; C / F put 16 rows in each warp's 32-lane slab (the upper 16 lanes
    with sub_slab=1, a TLane offset of 16)."""
    if rows != DATAPATH_ROWS[datapath]:
        return f"the datapath has {DATAPATH_ROWS[datapath]} rows, not {rows}"
    if sub_slab not in (0, 1) or (sub_slab and datapath not in "CF"):
        return "sub_slab is 0 or 1, and 1 only for the half datapaths \"C\" and \"F\""
    if datapath in "AD":
        return [(rows, 1, "TLane"), (cols, 1, "TCol")]
    if datapath == "G":
        return [(rows, 1, "TLane"), (4, 32, "TLane"), (cols // 4, 1, "TCol")] if cols % 4 == 0 else \
            f"the columns fold in quarters: cols must be a multiple of 4, not {cols}"
    if datapath in "BE":
        return [(rows, 1, "TLane"), (2, 64, "TLane"), (cols // 2, 1, "TCol")] if cols % 2 == 0 else \
            f"the columns fold in halves: cols must be even, not {cols}"
    return [(4, 32, "TLane"), (16, 1, "TLane"), (cols, 1, "TCol")]


