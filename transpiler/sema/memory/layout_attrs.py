"""The attributes of a layout value, with TIRx's meaning: its methods (`tile_to`, `tile`, `apply` in
layout_methods.py; `group`, `permute_by_groups`, `permute_dims`, `storage`, `canonicalize`,
`direct_sum`, `size`, `span`, `is_swizzle`, `is_trivial`, `pack`, `unpack`, `broadcast` here) and a ComposeLayout's fields
(`per_element`, `swizzle_len`, `atom_len`, `swizzle_inner`, `tile_layout`)."""
from __future__ import annotations

from dataclasses import replace

from transpiler import ir
from transpiler.ir import layout as layouts, layout_ops
from transpiler.sema.expressions import expr
from transpiler.sema import registry
from transpiler.evaluator.core import items_of
from transpiler.evaluator.box import new_list
from transpiler.evaluator.values import Method, POISON, PyConst
from transpiler.sema.values import Axis, LayoutVal

BASE_METHODS = ("tile_to", "tile", "apply")  # layout_methods.py
METHODS = ("group", "permute_by_groups", "permute_dims", "storage", "canonicalize", "direct_sum", "size", "span",
           "is_swizzle", "is_trivial", "pack", "unpack", "broadcast")
FIELDS = ("per_element", "swizzle_len", "atom_len", "swizzle_inner", "tile_layout")


def layout_attr(st, base: LayoutVal, node):
    """`L.<attr>`: a bound method, or a ComposeLayout field's value."""
    name = node.attr
    if name in BASE_METHODS or name in METHODS:
        return Method(base, name)
    if name in FIELDS:
        swizzle = base.layout.swizzle
        if swizzle is None:
            st.diags.error("E0306", f"a `TileLayout` has no attribute `{name}`", node.span,
                           help="it is a field of a `ComposeLayout` (a swizzled layout)")
            return POISON
        if name == "tile_layout":
            return LayoutVal(replace(base.layout, swizzle=None, text=""))
        return PyConst(dict(zip(FIELDS, swizzle))[name])
    st.diags.error("E0518", f"the layout method `{name}` is not supported yet", node.span,
                   help=f"tirxc has {', '.join(f'`{m}`' for m in BASE_METHODS + METHODS + FIELDS)}")
    return POISON


def _ints(st, node, what: str) -> list[int] | None:
    val = expr.elab(st, node)
    items = items_of(val)
    values = None if items is None else [i.value if isinstance(i, (PyConst, ir.IntImm)) else None for i in items]
    if values is None or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in values):
        if val is not POISON:
            st.diags.error("E0517", f"{what} must be a list of compile-time integers", node.span)
        return None
    return values


def call(st, layout: ir.Layout, name: str, node):
    """A call of one of METHODS."""
    if name in ("storage", "canonicalize", "is_swizzle", "is_trivial"):
        if registry.bind_args(st, node, (), name) is None:
            return POISON
        if name == "storage":
            return LayoutVal(layout_ops.storage(layout))
        if name == "canonicalize":
            return LayoutVal(layout_ops.canonicalize(layout))
        tile = replace(layout, swizzle=None)
        if name == "is_swizzle":
            return PyConst(layout.swizzle is not None and layout_ops.is_trivial(tile))
        return PyConst(layout.swizzle is None and layout_ops.is_trivial(layout_ops.canonicalize(tile)))
    if name in ("size", "span"):
        args = registry.bind_args(st, node, ("axis_name=None",), name)
        if args is None:
            return POISON
        axis = None if registry.is_default(args["axis_name"]) else expr.const_str(st, args["axis_name"], "the axis")
        if axis is None and not registry.is_default(args["axis_name"]):
            return POISON
        if name == "span":
            return _as_value(layout_ops.span(layout, axis or "m"))
        total: ir.Expr = layouts.c(1)
        for it in layout.shard:
            if axis is None or it.axis == axis:
                total = ir.mul(total, it.extent)
        return _as_value(total)
    if name == "group":
        args = registry.bind_args(st, node, ("shape",), name)
        shape = None if args is None else _ints(st, args["shape"], "`shape`")
        if shape is None:
            return POISON
        found = layout_ops.grouped(layout, shape)
        if found is None:
            return _no_split(st, layout, shape, node)
        grouped, seps = found
        return (LayoutVal(grouped), new_list([PyConst(s) for s in seps]))
    if name in ("permute_by_groups", "permute_dims"):
        params = ("seps", "perm") if name == "permute_by_groups" else ("perm",)
        args = registry.bind_args(st, node, params, name)
        if args is None:
            return POISON
        seps = list(range(len(layout.shard) + 1)) if name == "permute_dims" else _ints(st, args["seps"], "`seps`")
        perm = _ints(st, args["perm"], "`perm`")
        if seps is None or perm is None:
            return POISON
        if seps[:1] != [0] or seps[-1] != len(layout.shard) or seps != sorted(seps) or \
                sorted(perm) != list(range(len(seps) - 1)):
            st.diags.error("E0517", f"`{name}`: {perm} is not a permutation of the {len(seps) - 1} groups of "
                                    f"this layout's {len(layout.shard)} iters", node.span)
            return POISON
        return LayoutVal(layout_ops.permute_by_groups(layout, seps, perm))
    if name in ("pack", "unpack"):
        args = registry.bind_args(st, node, ("num",), name)
        num = None if args is None else expr.const_int(st, args["num"], "`num`")
        if num is None:
            return POISON
        result = (layout_ops.pack if name == "pack" else layout_ops.unpack)(layout, num)
        if isinstance(result, str):
            st.diags.error("E0517", f"`{name}({num})`: {result}", node.span)
            return POISON
        return LayoutVal(result)
    if name == "broadcast":
        args = registry.bind_args(st, node, ("num", "position=-1", "axis='m'"), name)
        if args is None:
            return POISON
        num = expr.const_int(st, args["num"], "`num`")
        position = -1 if registry.is_default(args["position"]) else expr.const_int(st, args["position"], "`position`")
        axis = "m" if registry.is_default(args["axis"]) else _axis(st, args["axis"])
        if num is None or position is None or axis is None:
            return POISON
        if num <= 0:
            st.diags.error("E0517", f"`broadcast` takes a positive extent, not {num}", node.span)
            return POISON
        return LayoutVal(layout_ops.broadcast(layout, num, position, axis))
    # direct_sum(left, left_shape, right_shape)
    args = registry.bind_args(st, node, ("left", "left_shape", "right_shape"), name)
    if args is None:
        return POISON
    left = expr.elab(st, args["left"])
    left_shape, right_shape = _ints(st, args["left_shape"], "`left_shape`"), _ints(st, args["right_shape"],
                                                                                   "`right_shape`")
    if left is POISON or left_shape is None or right_shape is None:
        return POISON
    if not isinstance(left, LayoutVal):
        st.diags.error("E0517", "`direct_sum` takes a `TileLayout` first", args["left"].span)
        return POISON
    if layout.swizzle is not None or left.layout.swizzle is not None:
        return registry.unsupported(st, node, "`direct_sum` of a swizzled (`ComposeLayout`) layout")
    result = layout_ops.direct_sum(layout, left.layout, left_shape, right_shape)
    if result is None:
        st.diags.error("E0517", "`direct_sum`: the layouts do not split into the extents of their shapes, or the "
                                "shapes have different ranks", node.span)
        return POISON
    return LayoutVal(result)


def _axis(st, node) -> str | None:
    """An axis: its name as a string, or an imported axis (`laneid`)."""
    val = expr.elab(st, node)
    if isinstance(val, Axis):
        return val.name
    if isinstance(val, PyConst) and isinstance(val.value, str) and val.value in layouts.KNOWN_AXES:
        return val.value
    if val is not POISON:
        st.diags.error("E0517", f"`axis` is a layout axis, one of {', '.join(layouts.KNOWN_AXES)}", node.span)
    return None


def _as_value(e: ir.Expr):
    return PyConst(e.value) if isinstance(e, ir.IntImm) else e


def _no_split(st, layout, shape, node):
    st.diags.error("E0517", f"the layout `{layouts.describe(layout)}` does not split into the extents "
                            f"{tuple(shape)}", node.span,
                   help="the product of the layout's extents must line up with each dimension's extent")
    return POISON


