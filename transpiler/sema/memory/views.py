"""Shapes, scopes, alignments and layouts of buffers (the layout notation `S[...]`, `R[...]`,
`T.TileLayout(...)`), views and their bounds, and new allocations and views of a kernel."""
from __future__ import annotations

from dataclasses import replace
from math import prod
from transpiler import ir
from transpiler.diag.diagnostics import Note, did_you_mean
from transpiler.ir import layout as layouts
from transpiler.syntax import ast
from transpiler.target.arch import INDEX_LIMIT
from transpiler.target.dtypes import DType, INT32
from transpiler.sema import registry
from transpiler.sema.expressions import scalars, expr, effects
from transpiler.evaluator import core as pyeval
from transpiler.evaluator.values import POISON, PyConst
from transpiler.sema.kernel import unrolled_constants
from transpiler.sema.memory import layout_methods
from transpiler.sema.values import AxisTerm, LayoutPart, LayoutVal
from transpiler.sema.registry import is_default
from transpiler.sema.expressions.expr import kind_of


SCOPES = ("global", "shared", "shared.dyn", "local", "tmem")


def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


def shape_arg(st, node, *, symbolic: bool, zero: bool = False, per_copy: bool = False):
    """A buffer shape: a tuple of positive integer extents (a bare int is 1-D); None on error.
    Symbolic extents are allowed only where `symbolic` (parameter buffers), an extent 0 only where
    `zero` (the dynamic arena, sized by its views: open_arena.py), an extent constant in each copy
    of the enclosing `T.unroll` loops where `per_copy` (a view over existing storage)."""
    val = expr.elab(st, node)
    if isinstance(val, PyConst) and isinstance(val.value, int) and not isinstance(val.value, bool):
        items = [val]
    elif isinstance(val, PyConst) and isinstance(val.value, tuple):
        items = [PyConst(v) for v in val.value]
    elif isinstance(val, tuple):
        items = list(val)
    elif isinstance(val, ir.Expr):
        items = [val]
    else:
        if val is not POISON:
            st.diags.error("E0305", f"a shape is a tuple of extents, e.g. `(128, 64)`, not {kind_of(val)}",
                             node.span)
        return None
    elts = node.elts if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) == len(items) else None
    shape = []
    for i, item in enumerate(items):
        span = elts[i].span if elts else node.span
        if isinstance(item, PyConst):
            if not isinstance(item.value, int) or isinstance(item.value, bool):
                st.diags.error("E0503", f"buffer extents are integers, not {kind_of(item)}", span)
                return None
            value = item.value
            item = ir.IntImm(INT32, value) if -2 ** 31 <= value < 2 ** 31 else None
            if item is None:
                shown = str(value) if value.bit_length() <= 64 else f"2^{value.bit_length() - 1} or more"
                st.diags.error("E0503", f"buffer extent {shown} is too large: the limit is {INDEX_LIMIT} "
                                          f"(2^31 - 1)", span)
                return None
        if not (isinstance(item, ir.Expr) and item.dtype.is_int and item.dtype.lanes == 1):
            st.diags.error("E0503", f"buffer extents are integers, not {kind_of(item)}", span)
            return None
        if isinstance(item, ir.IntImm) and item.value <= 0 and not (zero and item.value == 0):
            st.diags.error("E0503", f"buffer extent {item.value} is not positive", span)
            return None
        copies = None if symbolic or isinstance(item, ir.IntImm) else unrolled_constants.per_copy(st, item)
        if copies is not None and not per_copy:
            registry.unsupported(st, ast.Value(span, None), "an allocation whose extent differs in each "
                                 "`T.unroll` copy", help="allocate the largest extent once, before the loop")
            return None
        if copies is not None and min(copies) <= 0:
            st.diags.error("E0503", f"buffer extent {min(copies)} (in a copy of the enclosing `T.unroll` loops) "
                                    f"is not positive", span)
            return None
        if not symbolic and not isinstance(item, ir.IntImm) and copies is None:
            st.diags.error("E0503", "buffers allocated in a kernel need constant extents", span,
                             help="symbolic extents are only allowed for parameter buffers; allocate the "
                                  "largest size you need")
            return None
        shape.append(item)
    if not shape:
        st.diags.error("E0503", "a buffer needs at least one dimension", node.span,
                         help="a single value is the shape `(1,)`")
        return None
    return tuple(shape)


def scope_arg(st, arg, default: str):
    if is_default(arg):
        return default
    scope = expr.const_str(st, arg, "the scope")
    if scope is None:
        return None
    if scope not in SCOPES:
        st.diags.error("E0305", f"unknown scope \"{scope}\"", arg.span, help=did_you_mean(scope, SCOPES))
        return None
    return scope


def align_arg(st, arg, default: int = 64):
    if is_default(arg):
        return default
    align = expr.const_int(st, arg, "`align`")
    if align is None:
        return None
    if align <= 0:
        return default
    if not _is_pow2(align):
        below = 1 << (align.bit_length() - 1)
        st.diags.error("E0513", f"`align={align}` is not a power of two", arg.span,
                         help=f"use a power of two such as {below} or {below * 2}")
        return None
    return align


def layout_value(st, arg):
    """The layout a `layout=` argument names: None for "default", POISON after an error."""
    val = expr.elab(st, arg)
    if isinstance(val, PyConst) and val.value in ("default", None):
        return None
    if isinstance(val, LayoutPart):
        val = make_layout(st, val, arg)
    if not isinstance(val, LayoutVal):
        if val is not POISON:
            st.diags.error("E0517", "`layout=` takes a `TileLayout(...)` or \"default\"", arg.span)
        return POISON
    return val.layout


def layout_arg(st, arg, shape, dtype: DType, scope: str, span):
    """The layout of a buffer (None for dense row-major) after checking it fits the shape."""
    if is_default(arg):
        return None
    layout = layout_value(st, arg)
    if layout is None or layout is POISON:
        return layout
    total = prod(e.value for e in shape) if all(isinstance(e, ir.IntImm) for e in shape) else None
    count = layouts.num_elements(layout)
    if total is not None and isinstance(count, ir.IntImm) and count.value and total > count.value \
            and total % count.value == 0 and layouts.is_memory_only(layout):
        layout = repeated(layout, total // count.value)
        count = layouts.num_elements(layout)
    if total is not None and isinstance(count, ir.IntImm) and count.value != total:
        st.diags.error("E0517", f"layout covers {count.value} elements but the buffer has {total}", arg.span,
                         help="the product of the `S[...]` extents is the buffer's element count")
        return POISON
    negative = [it.stride.value for it in layout.shard + layout.replica
                if isinstance(it.stride, ir.IntImm) and it.stride.value < 0]
    if negative:
        st.diags.error("E0517", f"layout stride {negative[0]} is negative", arg.span,
                         help="strides count elements forward from the buffer's start")
        return POISON
    axes = layouts.thread_axes(layout)
    if axes:
        if scope != "local":
            st.diags.error("E0517", f"thread axis `{axes[0]}` in the layout of a {scope} buffer", arg.span,
                             help="thread axes describe distributed register buffers (scope=\"local\")")
            return POISON
        unknown = [a for a in axes if a not in ("laneid", "warpid", "tx", "wgid", "tid_in_wg", "wid_in_wg")]
        if unknown:
            st.diags.error("E0518", f"register buffers distributed over `{unknown[0]}` are not supported "
                                      f"(only threads of one CTA: `tx`, `laneid`, `warpid` ...)", arg.span)
            return POISON
    if any(it.axis in ("TLane", "TCol") for it in layout.shard) and scope != "tmem":
        st.diags.error("E0517", "`TLane` / `TCol` axes are for tensor memory", arg.span)
        return POISON
    return layout


def swizzle_period_bytes(layout: ir.Layout, dtype: DType) -> int:
    """The bytes over which a swizzled layout's XOR pattern repeats (1024 for the 128-byte swizzle):
    a swizzled shared allocation is aligned to it by default, so that the swizzle of an element's
    offset in the buffer is the swizzle of its shared-memory address, which TMA and the MMA
    descriptors apply."""
    per_element, length, atom, _ = layout.swizzle
    if length == 0:
        return 0
    return max((1 << (per_element + atom + length)) * dtype.bits // 8, 1)


def repeated(layout: ir.Layout, times: int) -> ir.Layout:
    """A memory layout (a swizzle atom) smaller than its buffer, as TIRx applies it: the coordinate
    is split over the layout's extents with the outermost one unbounded, so the atom repeats
    along it; the same as the outermost extent `times` larger."""
    first = layout.shard[0]
    grown = layouts.Iter(ir.mul(first.extent, ir.IntImm(INT32, times)), first.stride, first.axis)
    return replace(layout, shard=(grown,) + tuple(layout.shard[1:]))


def check_view_bounds(st, base: ir.Buffer, storage: ir.Storage, shape, dtype: DType, layout, offset: ir.Expr,
                      span) -> bool:
    """A view over an array (arena, shared, local) must lie inside it."""
    if storage.size is None or not isinstance(offset, ir.IntImm):
        return True
    extent = view_extent(shape, layout)
    if extent is None:
        return True
    end_bytes = (offset.value + extent) * dtype.nbytes
    size_bytes = storage.size * storage.dtype.nbytes
    if end_bytes > size_bytes:
        st.diags.error("E0505", f"the view ends at byte {end_bytes}, past the end of `{base.name}` "
                                  f"({size_bytes} bytes)", span,
                         help=f"make `{base.name}` larger, or the view smaller")
        return False
    return True


def index_fits(st, shape, layout, offset: ir.Expr, span) -> bool:
    """Element indices are C `int`s (docs/design.md, decision 10: 32-bit indexing): a buffer whose largest
    element index is known now and exceeds INT32_MAX is an error. Symbolic shapes are
    checked by the launcher, against the arrays it is given."""
    extent = view_extent(shape, layout)
    if extent is None or not isinstance(offset, ir.IntImm):
        return True
    last = offset.value + extent - 1
    if last <= INDEX_LIMIT:
        return True
    what = f"{extent} elements" if offset.value == 0 else f"up to element {last}"
    st.diags.error("E0503", f"the buffer spans {what}; element indices are 32-bit `int`s, so a buffer "
                              f"spans at most {INDEX_LIMIT} (2^31 - 1) elements", span,
                     help="split the data over several buffers or launches")
    return False


def view_extent(shape, layout) -> int | None:
    """Elements from the view's start to one past its last element."""
    if layout is None:
        if all(isinstance(e, ir.IntImm) for e in shape):
            return prod(e.value for e in shape)
        return None
    return layouts.memory_span(layout)


# -- layouts as written ---------------------------------------------------------------------------------------
def layout_subscript(st, kind: str, node: ast.Subscript):
    if len(node.indices) == 1 and isinstance(node.indices[0], ast.Slice):
        sl = node.indices[0]
        if sl.lower is None:
            st.diags.error("E0517", f"`{kind}[...]` needs its extents before the `:`", sl.span,
                             help=f"write `{kind}[(4, 8):(8, 1)]`: extents, then strides")
            return POISON
        if sl.step is not None:
            st.diags.error("E0517", f"a layout takes extents and strides (`{kind}[extents:strides]`), not a "
                                      f"third part", sl.step.span,
                             help=f"write `{kind}[(4, 8):(8, 1)]` with one `:`")
            return POISON
        extents = layout_list(st, sl.lower, "extent")
        strides = layout_list(st, sl.upper, "stride") if sl.upper is not None else None
    else:
        extents = [layout_item(st, i, "extent") for i in node.indices]
        if len(extents) == 1 and isinstance(extents[0], tuple):
            extents = list(extents[0])
        strides = None
    if extents is None or POISON in extents or (strides is not None and POISON in strides):
        return POISON
    if strides is None:
        if kind == "R":
            st.diags.error("E0517", "a replica `R[...]` needs strides", node.span)
            return POISON
        strides = layouts.row_major_strides(extents)
    if len(strides) != len(extents):
        st.diags.error("E0517", f"{len(extents)} extent{'s' if len(extents) != 1 else ''} but {len(strides)} "
                                  f"stride{'s' if len(strides) != 1 else ''}", node.span,
                         help="give one stride per extent: `S[(4, 8):(8, 1)]`")
        return POISON
    iters = []
    for extent, stride in zip(extents, strides):
        if isinstance(stride, AxisTerm):
            iters.append(layouts.Iter(extent, stride.value, stride.axis))
        else:
            iters.append(layouts.Iter(extent, stride, "m"))
    return LayoutPart(shard=tuple(iters)) if kind == "S" else LayoutPart(replica=tuple(iters))


def layout_list(st, node, what):
    if isinstance(node, ast.Tuple):
        out = []
        for e in node.elts:
            if e.__class__ is not ast.Starred:
                out.append(layout_item(st, e, what))
                continue
            items = pyeval.unpack(st, e.value, f"`*` among layout {what}s")  # `(1 @ laneid, *strides)`
            if items is None:
                return [POISON]
            out.extend(layout_item(st, ast.Value(e.span, v), what) for v in items)
        return out
    item = layout_item(st, node, what)
    return list(item) if isinstance(item, tuple) else [item]  # `S[shape : ...]`, shape a tuple constant


def layout_item(st, node, what):
    val = expr.elab(st, node)
    if isinstance(val, AxisTerm):
        if what == "extent":
            st.diags.error("E0517", "an extent cannot name an axis", node.span)
            return POISON
        return val
    if isinstance(val, PyConst) and isinstance(val.value, tuple):
        elts = node.elts if isinstance(node, ast.Tuple) and len(node.elts) == len(val.value) else None
        items = tuple(layout_int(st, PyConst(v), elts[i].span if elts else node.span, what)
                      for i, v in enumerate(val.value))
        return POISON if POISON in items else items
    return layout_int(st, val, node.span, what)


def layout_int(st, val, span, what):
    """One extent or stride: an int32 value; a constant extent is positive."""
    if isinstance(val, PyConst) and isinstance(val.value, int) and not isinstance(val.value, bool) \
            and not -2 ** 31 <= val.value < 2 ** 31:
        st.diags.error("E0517", f"layout {what} {val.value} does not fit in a 32-bit `int`", span)
        return POISON
    v = scalars.as_value(st, val, span, INT32)
    if v is POISON:
        return POISON
    if not v.dtype.is_int:
        st.diags.error("E0517", f"layout {what}s are integers", span)
        return POISON
    if what == "extent" and isinstance(v, ir.IntImm) and v.value <= 0:
        st.diags.error("E0517", f"layout extent {v.value} is not positive", span)
        return POISON
    if effects.is_pure(v):
        return v
    return effects.once(st, v, "a layout value with side effects", span, "off") or POISON


def layout_sum(st, left, right, node):
    parts = []
    for val, sub in ((left, node.left), (right, node.right)):
        if val is POISON:
            return POISON
        if isinstance(val, LayoutPart):
            parts.append(val)
        elif isinstance(val, AxisTerm):
            parts.append(LayoutPart(offset=((val.axis, val.value),)))
        else:
            v = scalars.as_value(st, val, sub.span, INT32)
            if v is POISON:
                return POISON
            if not v.dtype.is_int:
                st.diags.error("E0517", "layout offsets are integers", sub.span)
                return POISON
            if not effects.is_pure(v):  # added into every index through the layout
                v = effects.once(st, v, "a layout value with side effects", sub.span, "off")
                if v is None:
                    return POISON
            parts.append(LayoutPart(offset=(("m", v),)))
    if node.op != "+":
        st.diags.error("E0517", "layout parts combine with `+`", node.span)
        return POISON
    a, b = parts
    return LayoutPart(a.shard + b.shard, a.replica + b.replica, a.offset + b.offset)


def make_layout(st, part: LayoutPart, node) -> LayoutVal:
    count = 1
    for it in part.shard:
        count *= it.extent.value if isinstance(it.extent, ir.IntImm) else 1
    if count > INDEX_LIMIT:
        st.diags.error("E0517", f"the layout covers {count} elements; element indices are 32-bit `int`s, so a "
                                  f"layout covers at most {INDEX_LIMIT} (2^31 - 1)", node.span,
                         help="split the data over several buffers")
        return POISON
    text = scalars.source_text(st, node.span)
    return LayoutVal(ir.Layout(part.shard, part.replica, part.offset, None, text))


def layout_ctor(st, name: str, node: ast.Call):
    if name == "ComposeLayout":
        return compose_layout(st, node)
    if name in ("wg_local_layout", "tmem_datapath_layout"):
        return layout_methods.layout_helper(st, name, node)
    if name != "TileLayout":
        st.diags.error("E0306", f"`{name}` is written with brackets: `{name}[...]`", node.span)
        return POISON
    if len(node.args) != 1 or node.keywords:
        st.diags.error("E0305", "`TileLayout` takes one layout expression, e.g. `TileLayout(S[(4, 8):(1, 4)])`",
                         node.span)
        return POISON
    part = expr.elab(st, node.args[0])
    if isinstance(part, LayoutPart):
        if not part.shard:
            st.diags.error("E0517", "a layout needs a shard `S[...]`", node.span)
            return POISON
        return make_layout(st, part, node)
    if isinstance(part, LayoutVal):
        return part
    if part is not POISON:
        st.diags.error("E0517", "`TileLayout` takes `S[extents : strides]`", node.args[0].span)
    return POISON


def compose_layout(st, node: ast.Call):
    """`ComposeLayout(per_element, swizzle_len, atom_len, tile_layout, swizzle_inner=True)`: an XOR
    swizzle of the element address a memory tile layout gives (reference 3.6)."""
    args = registry.bind_args(st, node, ("per_element", "swizzle_len", "atom_len", "tile_layout",
                                 "swizzle_inner=True"), "ComposeLayout")
    if args is None:
        return POISON
    numbers = [expr.const_int(st, args[k], f"`{k}`") for k in ("per_element", "swizzle_len", "atom_len")]
    if None in numbers:
        return POISON
    per_element, length, atom = numbers
    if min(numbers) < 0 or length > atom:
        st.diags.error("E0517", f"a swizzle needs 0 <= swizzle_len <= atom_len, got swizzle_len={length}, "
                                  f"atom_len={atom}", node.span,
                         help="the bits folded in ([atom_len, atom_len + swizzle_len)) must not overlap the "
                              "bits they fold into ([0, swizzle_len))")
        return POISON
    if per_element + atom + length > 31:
        st.diags.error("E0517", f"this swizzle reaches bit {per_element + atom + length} of the element index, "
                                  "which is a 32-bit int", node.span,
                         help="per_element + atom_len + swizzle_len must be at most 31")
        return POISON
    inner = True
    if not is_default(args["swizzle_inner"]):
        flag = expr.elab(st, args["swizzle_inner"])
        if not (isinstance(flag, PyConst) and isinstance(flag.value, bool)):
            st.diags.error("E0305", "`swizzle_inner` is True or False", args["swizzle_inner"].span)
            return POISON
        inner = flag.value
    tile = expr.elab(st, args["tile_layout"])
    if isinstance(tile, LayoutPart):
        tile = make_layout(st, tile, args["tile_layout"])
    if not isinstance(tile, LayoutVal) or tile.layout.swizzle is not None or not layouts.is_memory_only(tile.layout):
        if tile is not POISON:
            st.diags.error("E0517", "`ComposeLayout` wraps a memory `TileLayout(S[...])`", args["tile_layout"].span)
        return POISON
    base = tile.layout
    return LayoutVal(ir.Layout(base.shard, base.replica, base.offset, (per_element, length, atom, inner),
                               scalars.source_text(st, node.span)))


# -- allocation objects -------------------------------------------------------------------------------
def new_allocation(st, shape, dtype, scope, layout, align, span, scalar=False):
    size = prod(e.value for e in shape) if layout is None else (view_extent(shape, layout) or 0)
    if scope == "shared.dyn":
        if st.arena is not None:
            extents = ", ".join(str(e.value) for e in shape) + ("," if len(shape) == 1 else "")
            st.diags.error("E0500", "a second dynamic shared memory allocation", span,
                             notes=[Note("the kernel's dynamic shared arena is allocated here", st.arena.span)],
                             help=f"declare this buffer as a view: `T.decl_buffer(({extents}), \"{dtype}\", "
                                  f"data={st.arena.name or 'arena'}.data, elem_offset=..., "
                                  f"scope=\"shared.dyn\")`")
            return POISON
        kind = "arena"
    else:
        kind = "array"
    if st.depth and scope == "shared.dyn":
        st.diags.error("E0500", "the dynamic shared arena must be allocated at the top level of the kernel "
                                  "body, not inside `if`, `for` or `while`", span,
                         help="allocate it once, before the block")
        return POISON
    if kind == "arena" and size == 0:
        size = None  # sized by its views when the kernel ends (open_arena.py)
    storage = ir.Storage("\0", dtype, scope, kind, size, align)
    buf = ir.Buffer("", shape, dtype, scope, storage, layout, None, align, span, scalar=scalar)
    st.pending.append(ir.Allocate(buf, span))
    if scope == "shared.dyn":
        st.arena = buf
    elif scope == "shared":
        st.statics.append(buf)
    return buf


def new_view(st, base: ir.Buffer, shape, dtype, scope, layout, offset, align, span):
    storage = base.storage
    if storage is None:
        return POISON
    if not effects.is_pure(offset):  # added into every access of the view: evaluated once, here
        offset = effects.once(st, offset, "a view offset with side effects", span, "off")
        if offset is None:
            return POISON
    if dtype != storage.dtype:
        if storage.kind == "param" and dtype.nbytes > storage.dtype.nbytes:
            st.diags.error("E0518", "a wider element type over a parameter buffer is not supported yet",
                             span, help="the launcher checks the array's alignment for its own element type only")
            return POISON
        size = None if storage.size is None else storage.size * storage.dtype.nbytes // dtype.nbytes
        storage = ir.Storage("\0", dtype, scope, "view_pointer", size, align, base=storage)
    if not check_view_bounds(st, base, storage, shape, dtype, layout, offset, span):
        return POISON
    if storage is base.storage:
        # the same storage as its base: the offset counts from where the base starts
        offset = ir.binop("+", base.elem_offset, offset)
    elif storage.kind == "view_pointer" and isinstance(offset, ir.IntImm):
        # the view's own typed pointer starts at the view: `float* Bs_ptr = (float*)(smem_ptr + 32768);`
        storage.byte_offset = offset.value * dtype.nbytes
        offset = ir.IntImm(INT32, 0)
    buf = ir.Buffer("", shape, dtype, scope, storage, layout, offset, align, span)
    st.pending.append(ir.DeclView(buf, span))
    if scope == "shared.dyn":
        st.views.append(buf)
    return buf


