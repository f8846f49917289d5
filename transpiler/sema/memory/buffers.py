"""Buffer declarations: `T.match_buffer` and parameter buffers, `T.alloc_buffer` / `alloc_shared`
/ `alloc_local` / scalars / workspaces, `T.decl_buffer`, tensors (`T.alloc_tensor`, `T.decl_tensor`),
and TMEM declarations."""
from __future__ import annotations

from dataclasses import replace

from math import prod
from transpiler import ir
from transpiler.ir.launch import ParamKind
from transpiler.diag.diagnostics import Note
from transpiler.ir import layout as layouts
from transpiler.syntax import ast
from transpiler.target.dtypes import INT32
from transpiler.sema import registry
from transpiler.sema.expressions import expr
from transpiler.sema.calls import ptx as ptx_calls
from transpiler.sema.memory import tmem_packing, typed_pointers, views
from transpiler.evaluator.values import POISON, PyConst
from transpiler.sema.values import Handle, Pointer
from transpiler.sema.registry import default_arg, handler, is_default
from transpiler.sema.expressions.expr import kind_of


# -- parameters ------------------------------------------------------------------------------------
@handler("match_buffer", "param", "shape", "dtype='float32'", "data=None", "strides=None", "elem_offset=None",
         "scope='global'", "align=-1", "offset_factor=0", "layout='default'")
def _match_buffer(st, node, a):
    handle = expr.elab(st, a["param"])
    if not isinstance(handle, Handle):
        if handle is not POISON:
            st.diags.error("E0511", f"`T.match_buffer` binds a `T.handle` parameter, not {kind_of(handle)}",
                             a["param"].span)
        return POISON
    if st.device:
        st.diags.error("E0511", "`T.match_buffer` belongs before `T.device_entry()`", node.span,
                         help="bind every handle parameter in the host part, before `T.device_entry()`")
        return POISON
    return param_buffer(st, handle, node, a)


def param_buffer(st, handle, node, a):
    shape = views.shape_arg(st, a["shape"], symbolic=True)
    dtype = expr.dtype_or_default(st, a["dtype"])
    scope = views.scope_arg(st, a["scope"], "global")
    align = views.align_arg(st, a["align"])
    for unsupported in ("data", "strides"):
        if not is_default(a[unsupported]):
            st.diags.error("E0518", f"`{unsupported}=` on a parameter buffer is not supported",
                             a[unsupported].span, help="describe the strides with `layout=TileLayout(...)`")
    if None in (shape, dtype, scope, align):
        return POISON
    if scope != "global":
        st.diags.error("E0511", f"parameter buffers live in global memory, not \"{scope}\"", a["scope"].span,
                         help="leave `scope=` out; allocate shared or local copies inside the kernel")
        return POISON
    elem_offset = ir.IntImm(INT32, 0)
    if not is_default(a["elem_offset"]):
        offset = expr.const_int(st, a["elem_offset"], "the `elem_offset` of a parameter buffer")
        if offset is None:
            return POISON
        if offset < 0:
            st.diags.error("E0503", "`elem_offset` is negative", a["elem_offset"].span)
            return POISON
        elem_offset = ir.IntImm(INT32, offset)
    layout = views.layout_arg(st, a["layout"], shape, dtype, scope, node.span)
    if layout is POISON:
        return POISON
    if not views.index_fits(st, shape, layout, elem_offset, a["shape"].span):
        return POISON
    return new_param_buffer(st, handle, shape, dtype, layout, elem_offset, align, node.span)


# -- allocations ----------------------------------------------------------------------------------
@handler("alloc_buffer", "shape", "dtype='float32'", "data=None", "strides=None", "elem_offset=None",
         "byte_offset=None", "scope='global'", "align=-1", "offset_factor=0", "layout='default'",
         "allocated_addr=None", "annotations=None")
def _alloc_buffer(st, node, a):
    if not is_default(a["data"]):
        return _decl_buffer(st, node, a)
    scope = views.scope_arg(st, a["scope"], "global")
    if scope == "tmem":
        st.diags.error("E0501", "tensor memory cannot be allocated with `T.alloc_buffer`", node.span,
                         help="allocate columns with `tcgen05.alloc`, then declare "
                              "`T.decl_buffer(shape, dtype, scope=\"tmem\", allocated_addr=<column>, layout=...)`")
        return POISON
    return allocate(st, node, a, scope)


@handler("alloc_shared", "shape", "dtype='float32'", "scope='shared'", "align=-1", "layout='default'")
def _alloc_shared(st, node, a):
    return allocate(st, node, a, views.scope_arg(st, a["scope"], "shared"))


@handler("smem", "shape", "dtype='float32'", "scope='shared'", "align=-1", "layout='default'")
def _smem(st, node, a):
    return _alloc_shared(st, node, a)


@handler("alloc_local", "shape", "dtype='float32'", "scope='local'", "align=-1", "layout='default'")
def _alloc_local(st, node, a):
    return allocate(st, node, a, views.scope_arg(st, a["scope"], "local"))


@handler("tmem", "*args")
def _tmem(st, node, a):
    st.diags.error("E0501", "`T.tmem` allocates tensor memory without `allocated_addr`", node.span,
                     help="declare `T.decl_buffer(shape, dtype, scope=\"tmem\", allocated_addr=<column>, "
                          "layout=...)` over columns from `tcgen05.alloc`")
    return POISON


def allocate(st, node, a, scope, *, scalar: bool = False):
    if scope is None:
        return POISON
    if scope == "global":
        return allocate_workspace(st, node, a)
    for name in ("elem_offset", "byte_offset", "allocated_addr"):
        if name in a and not is_default(a[name]):
            st.diags.error("E0305", f"`{name}=` places a view; it has no meaning on a new allocation",
                             a[name].span, help="use `T.decl_buffer(..., data=...)` for a view")
            return POISON
    shape = views.shape_arg(st, a["shape"], symbolic=False, zero=scope == "shared.dyn" and not scalar
                            and ("layout" not in a or is_default(a["layout"]))) \
        if "shape" in a else (ir.IntImm(INT32, 1),)
    dtype = expr.dtype_or_default(st, a["dtype"])
    default_align = 64 if scope != "local" else 0
    align = views.align_arg(st, a["align"], default_align) if "align" in a else default_align
    if None in (shape, dtype, align):
        return POISON
    layout = views.layout_arg(st, a["layout"], shape, dtype, scope, node.span) if "layout" in a else None
    if layout is POISON:
        return POISON
    if layout is not None and not layouts.memory_span(layout):
        st.diags.error("E0517", "the layout of a new allocation needs constant extents and strides",
                         a["layout"].span, help="the allocation's size comes from the layout")
        return POISON
    if not views.index_fits(st, shape, layout, ir.IntImm(INT32, 0), a["shape"].span if "shape" in a else node.span):
        return POISON
    if layout is not None and layout.swizzle is not None and ("align" not in a or is_default(a["align"])):
        align = max(align, views.swizzle_period_bytes(layout, dtype))
    return views.new_allocation(st, shape, dtype, scope, layout, align, node.span, scalar=scalar)


# -- global workspaces (docs/design.md, decision 19) ----------------------------------------------------------------
def allocate_workspace(st, node, a):
    """`T.alloc_buffer(shape, dtype, scope="global")`: a buffer the launcher allocates, zero-fills
    before every launch and passes as a hidden pointer parameter (lower.py adds the parameter)."""
    func = node.func.attr if isinstance(node.func, ast.Attribute) else "alloc_buffer"
    defaulted = "scope" not in a or is_default(a["scope"]) or (
        isinstance(a["scope"], ast.Constant) and a["scope"].value is None)
    if defaulted:
        fix = "allocate with scope=\"shared\", \"shared.dyn\" or \"local\", pass the array as a parameter, " \
              "or write scope=\"global\" for a workspace the launcher allocates"
        if func == "decl_buffer":
            fix = "give `data=` to declare a view of another buffer, or a `scope=` to allocate in"
        st.diags.error("E0502", f"`T.{func}` without `scope=` allocates global memory, which a kernel does "
                                 f"only when asked with `scope=\"global\"`", node.span, help=fix)
        return POISON
    if func == "decl_buffer":
        st.diags.error("E0323", "`T.decl_buffer` with scope=\"global\" needs `data=`: it declares a view",
                         node.span, help="allocate a workspace with `T.alloc_buffer(shape, dtype, "
                                         "scope=\"global\")`, or give `data=` to view another buffer")
        return POISON
    if func != "alloc_buffer":
        st.diags.error("E0328", f"`T.{func}` cannot allocate global memory", node.span,
                         help="a global workspace is `T.alloc_buffer(shape, dtype, scope=\"global\")`")
        return POISON
    if not st.device or st.depth:
        where = "inside `if`, `for` or `while`" if st.device else "before `T.device_entry()`"
        st.diags.error("E0322", f"a global workspace is allocated at the top level of the kernel body, "
                                  f"not {where}", node.span,
                         help="allocate it once, after `T.device_entry()` and before any block: the launcher "
                              "provides one workspace per launch")
        return POISON
    for name in ("layout", "elem_offset", "byte_offset", "allocated_addr"):
        if not is_default(a[name]) and not (name == "layout" and isinstance(a[name], ast.Constant)
                                            and a[name].value == "default"):
            st.diags.error("E0326", f"a workspace is a dense row-major allocation; `{name}=` is not supported",
                             a[name].span, help="declare a view over it: `T.decl_buffer(shape, dtype, "
                                                "data=ws.data, layout=...)`")
            return POISON
    shape = views.shape_arg(st, a["shape"], symbolic=True)
    dtype = expr.dtype_or_default(st, a["dtype"])
    align = views.align_arg(st, a["align"])
    if None in (shape, dtype, align):
        return POISON
    if dtype.lanes != 1 or dtype.bits < 8 or not (dtype.is_int or dtype.is_float or dtype.is_bool):
        st.diags.error("E0324", f"a workspace holds scalar elements, not {dtype}", a["dtype"].span,
                         help=f"allocate {dtype.element} elements and use `vload` / `vstore`"
                         if dtype.lanes != 1 else None)
        return POISON
    if align > 256:
        st.diags.error("E0327", f"`align={align}`: the launcher's allocations are 256-byte aligned",
                         a["align"].span, help="use `align=` up to 256")
        return POISON
    elts = a["shape"].elts if isinstance(a["shape"], (ast.Tuple, ast.List)) and \
        len(a["shape"].elts) == len(shape) else None
    for i, extent in enumerate(shape):
        bad = not_on_host(st, extent)
        if bad is not None:
            st.diags.error("E0325", f"the launcher cannot compute this extent before the launch: it depends "
                                      f"on {bad}", elts[i].span if elts else a["shape"].span,
                             help="use constants, symbolic extents of parameter buffers and integer scalar "
                                  "parameters")
            return POISON
    if not views.index_fits(st, shape, None, ir.IntImm(INT32, 0), a["shape"].span):
        return POISON
    size = prod(e.value for e in shape) if all(isinstance(e, ir.IntImm) for e in shape) else None
    storage = ir.Storage("\0", dtype, "global", "workspace", size, align)
    buf = ir.Buffer("", shape, dtype, "global", storage, None, None, align, node.span)
    st.pending.append(ir.Allocate(buf, node.span))
    return buf


def not_on_host(st, e: ir.Expr) -> str | None:
    """What keeps an integer expression from being evaluated by the launcher (None: nothing).
    The launcher knows the symbolic extents and the integer scalar parameters."""
    known = {var.name for var, _ in st.extents.values()}
    known.update(p.name for p in st.args if p.kind is ParamKind.SCALAR and p.dtype.is_int)
    nodes = list(ir.walk_expr(e))
    for node in nodes:  # a name or a load says most: before the operation around it (`T.int32(f)`)
        if isinstance(node, ir.Var) and node.name not in known:
            if any(p.kind is ParamKind.SCALAR and p.name == node.name for p in st.args):
                return f"`{node.name}`, a parameter that is not an integer"
            return f"`{node.name}`, which is known only on the GPU"
        if isinstance(node, (ir.BufferLoad, ir.Load)):
            return "a value read from memory"
    for node in nodes:
        if not ir.is_host_node(node):
            return "an operation the launcher does not evaluate"
    return None


@handler("local_scalar", "dtype='float32'")
def _local_scalar(st, node, a):
    return allocate(st, node, a, "local", scalar=True)


@handler("shared_scalar", "dtype='float32'")
def _shared_scalar(st, node, a):
    return allocate(st, node, a, "shared", scalar=True)


@handler("alloc_scalar", "dtype='float32'", "scope='global'")
def _alloc_scalar(st, node, a):
    return allocate(st, node, a, views.scope_arg(st, a["scope"], "global"), scalar=True)


# -- views ----------------------------------------------------------------------------------------
@handler("decl_buffer", "shape", "dtype='float32'", "data=None", "strides=None", "elem_offset=None",
         "byte_offset=None", "scope=None", "align=0", "offset_factor=0", "layout='default'",
         "allocated_addr=None")
def _decl_buffer(st, node, a):
    scope_given = not is_default(a["scope"]) and not (
        isinstance(a["scope"], ast.Constant) and a["scope"].value is None)
    if scope_given:
        scope = views.scope_arg(st, a["scope"], "global")
        if scope is None:
            return POISON
    else:
        scope = None
    if scope == "tmem":
        if is_default(a["allocated_addr"]):
            st.diags.error("E0501", "a tensor-memory `T.decl_buffer` needs `allocated_addr`", node.span,
                             help="add `allocated_addr=<column offset>` (the column within the "
                                  "`tcgen05.alloc` allocation) and a TLane/TCol `layout=`")
            return POISON
        return decl_tmem(st, node, a)
    if is_default(a["data"]) or (isinstance(a["data"], ast.Constant) and a["data"].value is None):
        return allocate(st, node, {k: v for k, v in a.items() if k != "data"}, scope or "global")
    base = expr.elab(st, a["data"])
    if isinstance(base, typed_pointers.TypedPointer):  # `data=T.reinterpret(PointerType(...), B.ptr_to([i]))`
        dtype = expr.dtype_or_default(st, a["dtype"])
        view_base = None if dtype is None else typed_pointers.as_view_base(st, base, dtype, a)
        if view_base is None:
            return POISON
        base, a = view_base[0], {**a, "byte_offset": view_base[1]}
    if typed_pointers.is_address(base):  # `data=T.reinterpret("handle", u64)`: a typed view of the address
        return typed_pointers.address_view(st, node, a, base, scope)
    if isinstance(base, ir.Buffer):
        st.diags.error("E0516", "`data=` takes a pointer, not a buffer", a["data"].span,
                         help=f"write `data={base.name}.data`")
        return POISON
    if not isinstance(base, Pointer):
        if base is not POISON:
            st.diags.error("E0516", f"`data=` takes the `.data` of a buffer, not {kind_of(base)}",
                             a["data"].span, help="e.g. `data=arena.data`")
        return POISON
    base_buf = base.buffer
    if scope is None:
        scope = base_buf.scope
    if scope != base_buf.scope:
        st.diags.error("E0516", f"a \"{scope}\" view over `{base_buf.name}`, which is \"{base_buf.scope}\"",
                         a["data"].span, help="leave `scope=` out: a view has the scope of its storage")
        return POISON
    shape = views.shape_arg(st, a["shape"], symbolic=base_buf.scope == "global", per_copy=True)
    dtype = expr.dtype_or_default(st, a["dtype"])
    align = views.align_arg(st, a["align"], base_buf.align)
    if None in (shape, dtype, align):
        return POISON
    if not is_default(a["strides"]):
        st.diags.error("E0518", "`strides=` is not supported", a["strides"].span,
                         help="describe the strides with `layout=TileLayout(...)`")
        return POISON
    has_elem, has_byte = not is_default(a["elem_offset"]), not is_default(a["byte_offset"])
    if has_elem and has_byte:
        st.diags.error("E0504", "give either `elem_offset` or `byte_offset`, not both", a["byte_offset"].span,
                         help=f"keep one: `byte_offset` counts bytes, `elem_offset` counts {dtype} elements")
        return POISON
    offset: ir.Expr = ir.IntImm(INT32, 0)
    if has_elem:
        offset = expr.int_value(st, a["elem_offset"])
    elif has_byte:
        offset = expr.int_value(st, a["byte_offset"])
        if isinstance(offset, ir.IntImm):
            if offset.value % dtype.nbytes:
                below = offset.value - offset.value % dtype.nbytes
                st.diags.error("E0513", f"`byte_offset={offset.value}` is not a multiple of the "
                                          f"{dtype.nbytes}-byte element size of {dtype}", a["byte_offset"].span,
                                 help=f"use a multiple of {dtype.nbytes}, e.g. {below} or {below + dtype.nbytes}")
                return POISON
            offset = ir.IntImm(INT32, offset.value // dtype.nbytes)
        elif offset is not POISON:
            offset = ir.binop("floordiv", offset, ir.IntImm(INT32, dtype.nbytes))
    if offset is POISON:
        return POISON
    if isinstance(offset, ir.IntImm) and offset.value < 0:
        where = a["byte_offset"] if has_byte else a["elem_offset"]
        st.diags.error("E0505", f"a view cannot start before `{base_buf.name}`: the offset is negative",
                         where.span)
        return POISON
    if isinstance(offset, ir.IntImm) and not is_default(a["align"]) and (offset.value * dtype.nbytes) % align:
        st.diags.error("E0513", f"the view starts at byte {offset.value * dtype.nbytes} of `{base_buf.name}`, "
                                  f"which is not {align}-byte aligned", a["align"].span,
                         help=f"place it at a multiple of {align} bytes")
        return POISON
    layout = views.layout_arg(st, a["layout"], shape, dtype, scope, node.span)
    if layout is POISON:
        return POISON
    if not views.index_fits(st, shape, layout, offset, a["shape"].span):
        return POISON
    return views.new_view(st, base_buf, shape, dtype, scope, layout, offset, align, node.span)


@handler("decl_scalar", "dtype", "data", "scope=None", "elem_offset=None", "byte_offset=None")
def _decl_scalar(st, node, a):
    """`T.decl_scalar(dtype, data, scope)`: TIRx's one-element view over a pointer (`B.data`, a retyped
    address), read and written by name like `T.alloc_scalar`'s."""
    keywords = tuple(ast.Keyword(a[name].span, name, a[name]) for name in ("data", "scope", "elem_offset",
                                                                             "byte_offset") if not is_default(a[name]))
    call = ast.Call(node.span, node.func, (ast.Value(node.span, PyConst((1,))), a["dtype"]), keywords)
    handler_fn, spec = registry.HANDLERS["decl_buffer"]
    args = registry.bind_args(st, call, spec, "T.decl_scalar")
    buf = POISON if args is None else handler_fn(st, call, args)
    if not isinstance(buf, ir.Buffer):
        return buf
    scalar = replace(buf, scalar=True)  # the same view, read and written by name
    st.pending = [ir.DeclView(scalar, s.span) if isinstance(s, ir.DeclView) and s.buffer is buf else s
                  for s in st.pending]
    st.views = [scalar if v is buf else v for v in st.views]
    return scalar


def tensor_type_args(st, call: ast.Call):
    """`T.Tensor(shape, dtype, scope, align, layout)` bound to the argument names of `T.Buffer` /
    `T.alloc_buffer` / `T.decl_buffer`, whose handlers then do the checking; None on error."""
    a = registry.bind_args(st, call, TENSOR_PARAMS, "T.Tensor")
    if a is None:
        return None
    if a.pop("positional"):
        st.diags.error("E0305", "`T.Tensor` takes at most 5 positional arguments", call.args[5].span)
        return None
    alignment = a.pop("data_alignment")
    if not is_default(alignment):
        if not is_default(a["align"]):
            st.diags.error("E0305", "`align=` and `data_alignment=` name the same thing; give one",
                             alignment.span)
            return None
        a["align"] = alignment
    for name in BUFFER_DEFAULTS:
        a.setdefault(name, default_arg("None"))
    return a


def ty_args_tensor(st, node, arg):
    """The one `T.Tensor(...)` call of a `ty_args=[...]` list; None (with E0525) otherwise."""
    items = arg.elts if isinstance(arg, (ast.List, ast.Tuple)) else None
    if items is None or len(items) != 1 or not expr.is_dialect_call(st, items[0], ("Tensor",)):
        where = items[1].span if items is not None and len(items) > 1 else arg.span
        st.diags.error("E0525", "`ty_args=` takes one `T.Tensor(shape, dtype, ...)` in a list", where,
                         help="e.g. `ty_args=[T.Tensor((128,), \"float32\", scope=\"shared\")]`")
        return None
    return items[0]


@handler("alloc_tensor", "placement=None", "*positional", "ty_args", "attrs=None", "annotations=None")
def _alloc_tensor(st, node, a):
    args = tensor_call_args(st, node, a, "`T.alloc_tensor` takes one positional argument, the placement "
                                          "(a tensor-memory column)")
    if args is None:
        return POISON
    if not is_default(args["data"]):
        st.diags.error("E0525", "a new allocation has no `data=`", args["data"].span,
                         help="declare a view over another tensor with `T.decl_tensor(base.data, ty_args=[...])`")
        return POISON
    if not is_default(a["placement"]):
        args["allocated_addr"] = a["placement"]
        return _decl_buffer(st, node, args)
    return _alloc_buffer(st, node, args)


@handler("decl_tensor", "data", "*positional", "ty_args", "attrs=None")
def _decl_tensor(st, node, a):
    args = tensor_call_args(st, node, a, "`T.decl_tensor` takes one positional argument, the data pointer")
    if args is None:
        return POISON
    if not is_default(args["data"]):
        st.diags.error("E0525", "the data pointer is given twice: to `T.decl_tensor` and to `T.Tensor`",
                         args["data"].span, help="keep the first argument of `T.decl_tensor`")
        return POISON
    args["data"] = a["data"]
    return _decl_buffer(st, node, args)


def tensor_call_args(st, node, a, too_many: str) -> dict | None:
    """The buffer arguments of `T.alloc_tensor` / `T.decl_tensor`: read off the
    `T.Tensor(...)` of `ty_args=[...]`; None (reported) on an error."""
    if a["positional"]:
        st.diags.error("E0305", too_many, a["positional"][0].span)
        return None
    tensor = ty_args_tensor(st, node, a["ty_args"])
    return tensor_type_args(st, tensor) if tensor is not None else None


def decl_tmem(st, node, a):
    """A tensor-memory view: columns from `allocated_addr` on, addressed through a TLane/TCol layout."""
    if not is_default(a["data"]):
        st.diags.error("E0305", "a tensor-memory buffer takes `allocated_addr=`, not `data=`", a["data"].span)
        return POISON
    shape = views.shape_arg(st, a["shape"], symbolic=False)
    dtype = expr.dtype_or_default(st, a["dtype"])
    column = expr.int_value(st, a["allocated_addr"])
    if None in (shape, dtype) or column is POISON or not tmem_packing.check_dtype(st, dtype, node.span):
        return POISON
    column = tmem_packing.relative_column(st, column)  # TIRx's `tmem_addr[0] + c`: column c
    layout = None
    if not is_default(a["layout"]):
        layout = views.layout_value(st, a["layout"])
        if layout is POISON:
            return POISON
    if isinstance(column, ir.IntImm) and st.tmem_alloc is not None and st.tmem_alloc[1] is not None:
        columns = st.tmem_alloc[1]
        if not 0 <= column.value < columns:
            st.diags.error("E0708", f"`allocated_addr={column.value}` is outside the {columns} allocated "
                                      f"columns", a["allocated_addr"].span,
                             notes=[Note("allocated here", st.tmem_alloc[2])])
            return POISON
    buf = ptx_calls.tmem_buffer(st, shape, dtype, layout, ir.cast(INT32, column), node.span)
    if buf is not POISON and isinstance(column, ir.IntImm) and st.tmem_alloc is not None \
            and st.tmem_alloc[1] is not None:
        columns, width = st.tmem_alloc[1], tmem_packing.columns(layouts.tmem_columns(buf.layout), dtype)
        if width is not None and column.value + width > columns:
            st.diags.error("E0708", f"this view needs columns {column.value}..{column.value + width}, "
                                      f"past the {columns} allocated columns", node.span,
                             notes=[Note("allocated here", st.tmem_alloc[2])],
                             help=f"allocate at least {column.value + width} columns or start it earlier")
            return POISON
    return buf


def new_param_buffer(st, handle: Handle, shape, dtype, layout, elem_offset, align, span):
    return ir.Buffer("", shape, dtype, "global", None, layout, elem_offset, align, span)


# -- the newer spelling: tensor types -------------------------------------------------------------
TENSOR_PARAMS = ("shape", "dtype", "scope='global'", "align=0", "layout=None", "*positional", "data=None",
                 "data_alignment=None")


BUFFER_DEFAULTS = ("data", "strides", "elem_offset", "byte_offset", "allocated_addr")
