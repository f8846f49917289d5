"""Buffer methods (`vload`, `vstore`, `view`, `permute`, `local`, `access_ptr` ...) and
`T.address_of`."""
from __future__ import annotations

from dataclasses import replace
from math import prod
from transpiler import ir
from transpiler.ir import fold, layout as layouts
from transpiler.syntax import ast
from transpiler.target.dtypes import HANDLE, INT32, has_c_vector
from transpiler.sema import registry
from transpiler.sema.expressions import scalars, expr, indexing
from transpiler.sema.memory import buffer_views, views, tensormaps, retype
from transpiler.sema.kernel import unrolled_constants
from transpiler.evaluator.values import POISON, PyConst, Void
from transpiler.sema.registry import handler, is_default
from transpiler.evaluator.values import article


@handler("address_of", "value")
def _address_of(st, node, a):
    target = a["value"]
    val = expr.elab(st, target)
    if isinstance(val, ir.BufferLoad):
        return ir.BufferAddress(HANDLE, val.buffer, val.indices, node.span)
    if isinstance(val, ir.Buffer):
        return ir.BufferAddress(HANDLE, val, None, node.span)
    if isinstance(val, tensormaps.TensorMapSlot):
        return tensormaps.address(st, val, node.span)
    if val is not POISON:
        st.diags.error("E0306", "`T.address_of` takes a buffer element such as `A[i]`, or a tensor map",
                       target.span)
    return POISON


# -- the Buffer API -------------------------------------------------------------------------------------
def buffer_method(st, method, node: ast.Call):
    buf: ir.Buffer = method.obj
    name = method.name
    if buf.scope == "tmem" and name in ("ptr_to", "vload", "vstore"):
        st.diags.error("E0518", f"`{name}` on tensor memory `{buf.name}`", node.span)
        return POISON
    if name == "ptr_to":
        args = registry.bind_args(st, node, ("indices",), "ptr_to")
        indices = index_list(st, buf, args["indices"]) if args else POISON
        return POISON if indices is POISON else ir.BufferAddress(HANDLE, buf, indices, node.span)
    if name == "vload":
        args = registry.bind_args(st, node, ("indices", "dtype=None"), "vload")
        if args is None:
            return POISON
        vec = vector_dtype(st, buf, args["dtype"], node)
        indices = index_list(st, buf, args["indices"])
        if POISON in (vec, indices) or not indexing.check_vector_access(st, buf, vec, indices, node, args["indices"]):
            return POISON
        return ir.BufferVecLoad(vec, buf, indices, node.span)
    if name == "vstore":
        args = registry.bind_args(st, node, ("indices", "value"), "vstore")
        if args is None:
            return POISON
        indices = index_list(st, buf, args["indices"])
        value = expr.value(st, args["value"])
        if POISON in (indices, value):
            return POISON
        if value.dtype.lanes == 1 or value.dtype.element != buf.dtype:
            st.diags.error("E0515", f"`vstore` of {article(value.dtype)} value into {buf.dtype} buffer "
                                      f"`{buf.name}`", args["value"].span,
                             help=f"store a vector of {buf.dtype}, e.g. one from "
                                  f"`vload(..., dtype=\"{buf.dtype}x4\")`" if value.dtype.lanes == 1 else
                             f"convert the elements, or view the buffer as {value.dtype.element}")
            return POISON
        if not indexing.check_vector_access(st, buf, value.dtype, indices, node, args["indices"]):
            return POISON
        return Void(ir.BufferVecStore(buf, indices, value, node.span))
    if name == "view":
        return view(st, buf, node)
    if name == "permute":
        dims = [expr.const_int(st, d, "a dimension") for d in node.args]
        if None in dims:
            return POISON
        if node.keywords:
            st.diags.error("E0311", "`permute` takes the dimensions as positional arguments",
                             node.keywords[0].span)
            return POISON
        if sorted(dims) != list(range(buf.ndim)):
            st.diags.error("E0514", f"`permute({', '.join(map(str, dims))})` is not a permutation of the "
                                      f"{buf.ndim} dimensions of `{buf.name}`", node.span,
                             help=f"name every dimension once, e.g. "
                                  f"`permute({', '.join(map(str, reversed(range(buf.ndim))))})`")
            return POISON
        layout, shape = layouts.permuted(buf.layout, buf.shape, dims)
        if layout is None:
            st.diags.error("E0514", "cannot permute a buffer whose layout does not follow its dimensions",
                             node.span)
            return POISON
        return replace(buf, name=scalars.source_text(st, node.span) or f"{buf.name}.permute(...)", shape=tuple(shape),
                       layout=layout, span=node.span, scalar=False)
    if name == "scope":
        return PyConst(buf.scope)
    if name == "local":
        return local_view(st, buf, node)
    if name == "access_ptr":
        return access_ptr(st, buf, node)
    if name in ("rearrange", "tile", "elem_offset_of"):  # buffer_views.py
        return buffer_views.buffer_view_method(st, buf, name, node)
    st.diags.error("E0518", f"`{buf.name}.{name}` is not supported yet", node.span)
    return POISON


def index_list(st, buf, node):
    if not isinstance(node, (ast.List, ast.Tuple)):
        text = scalars.source_text(st, node.span)
        st.diags.error("E0514", "indices are given as a list", node.span,
                         help=f"write `[{text}]`" if text else "write them in brackets, e.g. `[i, j]`")
        return POISON
    if len(node.elts) != buf.ndim:
        indexing.wrong_index_count(st, buf, len(node.elts), node.span)
        return POISON
    return indexing.index_values(st, buf, node.elts)


def vector_dtype(st, buf, arg, node):
    if is_default(arg):
        st.diags.error("E0515", "`vload` needs `dtype=`, e.g. \"float32x4\"", node.span)
        return POISON
    vec = expr.dtype_arg(st, arg)
    if vec is None:
        return POISON
    if vec.lanes == 1 or vec.element != buf.dtype:
        st.diags.error("E0515", f"`vload` of {vec} from {buf.dtype} buffer `{buf.name}`", arg.span,
                         help=f"use a vector of {buf.dtype}, e.g. \"{buf.dtype}x4\"")
        return POISON
    if not has_c_vector(vec):
        st.diags.error("E0515", f"no CUDA type moves {vec.nbytes} bytes at once", arg.span,
                         help="vectors move at most 16 bytes, e.g. \"float32x4\"")
        return POISON
    return vec


def view(st, buf: ir.Buffer, node: ast.Call):
    layout_node = next((k.value for k in node.keywords if k.name == "layout"), None)
    unknown = [k for k in node.keywords if k.name != "layout"]
    if unknown:
        st.diags.error("E0311", f"`view` has no parameter `{unknown[0].name}`", unknown[0].span)
        return POISON
    dims = [expr.elab(st, d) for d in node.args]
    if any(d is POISON for d in dims):
        return POISON
    if len(dims) == 1 and isinstance(dims[0], PyConst) and isinstance(dims[0].value, tuple):
        dims = [PyConst(v) for v in dims[0].value]
    if len(dims) == 1 and isinstance(dims[0], PyConst) and isinstance(dims[0].value, str):
        return retype.view_dtype(st, buf, node.args[0], node.span)
    total = buf.const_shape()
    if total is not None and buf.layout is not None and layout_node is None:  # keeps the layout (buffer_views.py)
        return buffer_views.view_keeping_layout(st, buf, dims, node)
    if total is None or buf.layout is not None and layout_node is None:
        st.diags.error("E0514", "`view` needs a buffer with a constant row-major shape", node.span)
        return POISON
    count = prod(total)
    shape = []
    per_copy = {}  # the extents built from `T.unroll` variables: index -> (expression, value in each copy)
    for index, (d, arg) in enumerate(zip(dims, node.args)):
        if isinstance(d, PyConst) and isinstance(d.value, int):
            shape.append(d.value)
            continue
        copies = unrolled_constants.per_copy(st, d) if isinstance(d, ir.Expr) else None
        if copies is None:
            st.diags.error("E0514", "view extents must be compile-time integers", arg.span)
            return POISON
        per_copy[index] = (d, copies)
        shape.append(None)
    if per_copy:
        return _view_per_copy(st, buf, node, layout_node, shape, per_copy, count)
    if shape.count(-1) == 1:
        known = prod(x for x in shape if x != -1)
        if known == 0 or count % known:
            st.diags.error("E0514", f"cannot view {count} elements of `{buf.name}` as "
                                      f"({', '.join(map(str, shape))})", node.span,
                             help=f"the known extents must divide {count}")
            return POISON
        shape[shape.index(-1)] = count // known
    if layout_node is not None and -1 not in shape and all(x > 0 for x in shape):
        return _laid_out_view(st, buf, node, layout_node, tuple(ir.IntImm(INT32, x) for x in shape), count)
    if any(x <= 0 for x in shape) or prod(shape) != count:
        st.diags.error("E0514", f"cannot view {count} elements of `{buf.name}` as "
                                  f"({', '.join(map(str, shape))})", node.span,
                         help=f"the extents must multiply to {count}; one of them may be -1 to infer it")
        return POISON
    new_shape = tuple(ir.IntImm(INT32, x) for x in shape)
    layout = None
    if layout_node is not None:
        layout = views.layout_arg(st, layout_node, new_shape, buf.dtype, buf.scope, node.span)
        if layout is POISON:
            return POISON
    return replace(buf, name=scalars.source_text(st, node.span) or f"{buf.name}.view(...)", shape=new_shape,
                   layout=layout, span=node.span, scalar=False)


def _view_per_copy(st, buf: ir.Buffer, node, layout_node, shape: list, per_copy: dict, count: int):
    """`buf.view(...)` whose extents are built from `T.unroll` variables: a compile-time shape in each
    unrolled copy (unrolled_constants.py), each copy's shape checked as a constant one would be; an
    extent of -1 is the element count over the others, in each copy."""
    if layout_node is not None:
        return registry.unsupported(st, node, "a view with `layout=` whose extents differ in each `T.unroll` copy")
    copies = len(next(iter(per_copy.values()))[1])
    inferred = set()
    for k in range(copies):
        concrete = [per_copy[i][1][k] if i in per_copy else x for i, x in enumerate(shape)]
        if concrete.count(-1) == 1:
            known = prod(x for x in concrete if x != -1)
            if known > 0 and count % known == 0:
                inferred.add(count // known)
                concrete[concrete.index(-1)] = count // known
        if any(x <= 0 for x in concrete) or prod(concrete) != count:
            st.diags.error("E0514", f"cannot view {count} elements of `{buf.name}` as "
                                    f"({', '.join(map(str, concrete))}) in a copy of the enclosing `T.unroll` loops",
                           node.span, help=f"the extents must multiply to {count} in every copy")
            return POISON
    if len(inferred) > 1:  # the -1: the element count over the other extents, a constant in each copy
        others = [per_copy[i][0] if i in per_copy else ir.IntImm(INT32, x) for i, x in enumerate(shape) if x != -1]
        known = others[0]
        for extent in others[1:]:
            known = fold.binop("*", known, extent, node.span)
        rest = fold.binop("floordiv", ir.IntImm(INT32, count), known, node.span)
    else:
        rest = ir.IntImm(INT32, inferred.pop()) if inferred else None
    new_shape = tuple(per_copy[i][0] if i in per_copy else rest if x == -1 else ir.IntImm(INT32, x)
                      for i, x in enumerate(shape))
    return replace(buf, name=scalars.source_text(st, node.span) or f"{buf.name}.view(...)", shape=new_shape,
                   layout=None, span=node.span, scalar=False)


def _laid_out_view(st, buf: ir.Buffer, node, layout_node, shape, count: int):
    """`buf.view(*shape, layout=L)`: TIRx's view with a layout takes the shape as given; what it
    needs of buf is the layout's storage (its memory span, per thread when L has thread axes)."""
    layout = views.layout_arg(st, layout_node, shape, buf.dtype, buf.scope, node.span)
    if layout is POISON:
        return POISON
    span = layouts.memory_span(layout)
    if span is not None and span > count:
        st.diags.error("E0514", f"the layout of this view spans {span} elements of storage; `{buf.name}` has "
                                f"{count}", node.span, help="view a larger buffer, or use a smaller layout")
        return POISON
    return replace(buf, name=scalars.source_text(st, node.span) or f"{buf.name}.view(...)", shape=shape,
                   layout=layout, span=node.span, scalar=False)


def local_view(st, buf: ir.Buffer, node):
    """`R.local(*shape, layout=None)`: this thread's registers of a buffer spread over threads.

    The registers are the layout's memory span (its thread iters take no storage); with no
    shape the view is 1-D over that span, a shape reshapes it row-major, and `layout=` maps
    a free shape onto it."""
    if buf.scope != "local":
        st.diags.error("E0514", f"`local()` is for register buffers; `{buf.name}` is {buf.scope}", node.span)
        return POISON
    span_elems = layouts.memory_span(buf.layout) if buf.layout is not None else buf.storage.size
    layout_node = next((k.value for k in node.keywords if k.name == "layout"), None)
    for k in node.keywords:
        if k.name != "layout":
            st.diags.error("E0311", f"`local` has no parameter `{k.name}`", k.span)
            return POISON
    dims = [expr.const_int(st, d, "a register view extent") for d in node.args]
    if None in dims:
        return POISON
    shape = tuple(dims) if dims else (span_elems,)
    if any(d <= 0 for d in shape):
        st.diags.error("E0514", f"register view extents must be positive, got {shape}", node.span)
        return POISON
    new_shape = tuple(ir.IntImm(INT32, d) for d in shape)
    layout = None
    if layout_node is not None:
        layout = views.layout_arg(st, layout_node, new_shape, buf.dtype, "local", node.span)
        if layout is POISON:
            return POISON
        if layouts.thread_axes(layout):
            st.diags.error("E0517", "the layout of a `local()` view maps onto this thread's registers; it "
                                      "cannot name thread axes", layout_node.span)
            return POISON
    elif prod(shape) != span_elems:
        st.diags.error("E0514", f"`{buf.name}` holds {span_elems} registers per thread, but the view has "
                                  f"{prod(shape)} elements", node.span,
                         help=f"use extents whose product is {span_elems}, or pass `layout=`")
        return POISON
    return replace(buf, name="", shape=new_shape, layout=layout, elem_offset=ir.IntImm(INT32, 0),
                   span=node.span, scalar=False)


def access_ptr(st, buf: ir.Buffer, node):
    """`B.access_ptr(mask, ptr_type="handle", content_lanes=1, offset=0, extent=None)`: the
    address of element `offset` of the buffer's storage order, for passing a region to a call."""
    args = registry.bind_args(st, node, ("access_mask", "ptr_type='handle'", "content_lanes=1", "offset=0",
                                 "extent=None"), "access_ptr")
    if args is None:
        return POISON
    mask = expr.const_str(st, args["access_mask"], "the access mask")
    if mask is None:
        return POISON
    if mask not in ("r", "w", "rw"):
        st.diags.error("E0305", f"access mask \"{mask}\" is not \"r\", \"w\" or \"rw\"",
                         args["access_mask"].span)
        return POISON
    if buf.scope == "tmem" and not scalars.direct_access_ok(st, buf, node.span, "addressed"):
        return POISON
    offset = ir.IntImm(INT32, 0) if is_default(args["offset"]) else expr.int_value(st, args["offset"])
    if offset is POISON:
        return POISON
    if ir.is_const(offset, 0):
        return ir.BufferAddress(HANDLE, buf, None, node.span)
    flat = replace(buf, name=buf.name, shape=(ir.IntImm(INT32, 1 << 30),), layout=None)
    return ir.BufferAddress(HANDLE, flat, (offset,), node.span)


