"""Buffers: parameters, allocations, views, the dynamic arena, element access,
the Buffer API, layouts written in the source, and `T.cuda.func_call`.

A mixin of the kernel checker (see kernel.py for the state it relies on).
"""
from __future__ import annotations

import re
from dataclasses import replace
from math import prod

from . import ast, ir
from . import layout as layouts
from .diagnostics import Note
from .dtypes import HANDLE, INT32, VOID, DType, has_c_vector, parse_dtype
from .intrinsics import handler, is_default
from .values import (POISON, AxisTerm, LayoutPart, LayoutVal, Pointer, PyConst, Region, Void, Handle)

SCOPES = ("global", "shared", "shared.dyn", "local", "tmem")
C_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


class MemoryChecker:
    # -- shapes, dtypes, scopes ---------------------------------------------------------------
    def shape_arg(self, node, *, symbolic: bool):
        val = self.elab(node)
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
                self.diags.error("E0305", "a shape is a tuple of extents, e.g. `(128, 64)`", node.span)
            return None
        shape = []
        for item in items:
            if isinstance(item, PyConst):
                if not isinstance(item.value, int) or isinstance(item.value, bool):
                    self.diags.error("E0503", "buffer extents must be integers", node.span)
                    return None
                if item.value <= 0:
                    self.diags.error("E0503", f"buffer extent {item.value} is not positive", node.span)
                    return None
                shape.append(ir.IntImm(INT32, item.value))
            elif isinstance(item, ir.Expr) and item.dtype.is_int:
                if isinstance(item, ir.IntImm) and item.value <= 0:
                    self.diags.error("E0503", f"buffer extent {item.value} is not positive", node.span)
                    return None
                if not symbolic and not isinstance(item, ir.IntImm):
                    self.diags.error("E0503", "buffers allocated in a kernel need constant extents", node.span,
                                     help="symbolic extents are only allowed for parameter buffers")
                    return None
                shape.append(item)
            else:
                self.diags.error("E0503", "buffer extents must be integers", node.span)
                return None
        if not shape:
            self.diags.error("E0503", "a buffer needs at least one dimension", node.span)
            return None
        return tuple(shape)

    def scope_arg(self, arg, default: str):
        if is_default(arg):
            return default
        scope = self.const_str(arg, "the scope")
        if scope is None:
            return None
        if scope not in SCOPES:
            from .diagnostics import did_you_mean
            self.diags.error("E0305", f"unknown scope \"{scope}\"", arg.span, help=did_you_mean(scope, SCOPES))
            return None
        return scope

    def align_arg(self, arg, default: int = 64):
        if is_default(arg):
            return default
        align = self.const_int(arg, "`align`")
        if align is None:
            return None
        if align <= 0:
            return default
        if not _is_pow2(align):
            self.diags.error("E0513", f"`align={align}` is not a power of two", arg.span)
            return None
        return align

    def dtype_or_default(self, arg):
        if is_default(arg):
            return parse_dtype(arg.value())
        return self.dtype_arg(arg)

    def layout_arg(self, arg, shape, dtype: DType, scope: str, span):
        """The layout of a buffer (None for dense row-major) after checking it fits the shape."""
        if is_default(arg):
            return None
        val = self.elab(arg)
        if isinstance(val, PyConst) and val.value in ("default", None):
            return None
        if isinstance(val, LayoutPart):
            val = self.make_layout(val, arg)
        if not isinstance(val, LayoutVal):
            if val is not POISON:
                self.diags.error("E0517", "`layout=` takes a `TileLayout(...)` or \"default\"", arg.span)
            return POISON
        layout = val.layout
        total = prod(e.value for e in shape) if all(isinstance(e, ir.IntImm) for e in shape) else None
        count = layouts.num_elements(layout)
        if total is not None and isinstance(count, ir.IntImm) and count.value != total:
            self.diags.error("E0517", f"layout covers {count.value} elements but the buffer has {total}", arg.span)
            return POISON
        axes = layouts.thread_axes(layout)
        if axes:
            if scope != "local":
                self.diags.error("E0517", f"thread axis `{axes[0]}` in the layout of a {scope} buffer", arg.span,
                                 help="thread axes describe distributed register buffers (scope=\"local\")")
            else:
                self.diags.error("E0518", "register buffers distributed over threads (layouts with thread "
                                          "axes) are not supported yet", arg.span)
            return POISON
        if any(it.axis in ("TLane", "TCol") for it in layout.shard) and scope != "tmem":
            self.diags.error("E0517", "`TLane` / `TCol` axes are for tensor memory", arg.span)
            return POISON
        return layout

    # -- parameters ------------------------------------------------------------------------------------
    @handler("match_buffer", "param", "shape", "dtype='float32'", "data=None", "strides=None", "elem_offset=None",
             "scope='global'", "align=-1", "offset_factor=0", "layout='default'")
    def _match_buffer(self, node, a):
        handle = self.elab(a["param"])
        if not isinstance(handle, Handle):
            if handle is not POISON:
                self.diags.error("E0511", "`T.match_buffer` binds a `T.handle` parameter", a["param"].span)
            return POISON
        return self.param_buffer(handle, node, a)

    def param_buffer(self, handle, node, a):
        shape = self.shape_arg(a["shape"], symbolic=True)
        dtype = self.dtype_or_default(a["dtype"])
        scope = self.scope_arg(a["scope"], "global")
        align = self.align_arg(a["align"])
        for unsupported in ("data", "strides"):
            if not is_default(a[unsupported]):
                self.diags.error("E0518", f"`{unsupported}=` on a parameter buffer is not supported",
                                 a[unsupported].span, help="describe the strides with `layout=TileLayout(...)`")
        if None in (shape, dtype, scope, align):
            return POISON
        if scope != "global":
            self.diags.error("E0511", f"parameter buffers live in global memory, not \"{scope}\"", a["scope"].span)
            return POISON
        elem_offset = ir.IntImm(INT32, 0)
        if not is_default(a["elem_offset"]):
            offset = self.const_int(a["elem_offset"], "the `elem_offset` of a parameter buffer")
            if offset is None:
                return POISON
            if offset < 0:
                self.diags.error("E0503", "`elem_offset` is negative", a["elem_offset"].span)
                return POISON
            elem_offset = ir.IntImm(INT32, offset)
        layout = self.layout_arg(a["layout"], shape, dtype, scope, node.span)
        if layout is POISON:
            return POISON
        return self.new_param_buffer(handle, shape, dtype, layout, elem_offset, align, node.span)

    # -- allocations ----------------------------------------------------------------------------------
    @handler("alloc_buffer", "shape", "dtype='float32'", "data=None", "strides=None", "elem_offset=None",
             "byte_offset=None", "scope='global'", "align=-1", "offset_factor=0", "layout='default'",
             "allocated_addr=None", "annotations=None")
    def _alloc_buffer(self, node, a):
        if not is_default(a["data"]):
            return self._decl_buffer(node, a)
        scope = self.scope_arg(a["scope"], "global")
        if scope == "tmem":
            self.diags.error("E0501", "tensor memory cannot be allocated with `T.alloc_buffer`", node.span,
                             help="allocate columns with `tcgen05.alloc`, then declare "
                                  "`T.decl_buffer(shape, dtype, scope=\"tmem\", allocated_addr=<column>, layout=...)`")
            return POISON
        return self.allocate(node, a, scope)

    @handler("alloc_shared", "shape", "dtype='float32'", "scope='shared'", "align=-1", "layout='default'")
    def _alloc_shared(self, node, a):
        return self.allocate(node, a, self.scope_arg(a["scope"], "shared"))

    @handler("smem", "shape", "dtype='float32'", "scope='shared'", "align=-1", "layout='default'")
    def _smem(self, node, a):
        return self._alloc_shared(node, a)

    @handler("alloc_local", "shape", "dtype='float32'", "scope='local'", "align=-1", "layout='default'")
    def _alloc_local(self, node, a):
        return self.allocate(node, a, self.scope_arg(a["scope"], "local"))

    @handler("tmem", "*args")
    def _tmem(self, node, a):
        self.diags.error("E0501", "`T.tmem` allocates tensor memory without `allocated_addr`", node.span,
                         help="declare `T.decl_buffer(shape, dtype, scope=\"tmem\", allocated_addr=<column>, "
                              "layout=...)` over columns from `tcgen05.alloc`")
        return POISON

    def allocate(self, node, a, scope, *, scalar: bool = False):
        if scope is None:
            return POISON
        if scope == "global":
            self.diags.error("E0502", "a kernel cannot allocate global memory", node.span,
                             help="pass the array as a parameter, or allocate with scope=\"shared\", "
                                  "\"shared.dyn\" or \"local\"")
            return POISON
        for name in ("elem_offset", "byte_offset", "allocated_addr"):
            if name in a and not is_default(a[name]):
                self.diags.error("E0305", f"`{name}=` places a view; it has no meaning on a new allocation",
                                 a[name].span, help="use `T.decl_buffer(..., data=...)` for a view")
                return POISON
        shape = self.shape_arg(a["shape"], symbolic=False) if "shape" in a else (ir.IntImm(INT32, 1),)
        dtype = self.dtype_or_default(a["dtype"])
        default_align = 64 if scope != "local" else 0
        align = self.align_arg(a["align"], default_align) if "align" in a else default_align
        if None in (shape, dtype, align):
            return POISON
        layout = self.layout_arg(a["layout"], shape, dtype, scope, node.span) if "layout" in a else None
        if layout is POISON:
            return POISON
        return self.new_allocation(shape, dtype, scope, layout, align, node.span, scalar=scalar)

    @handler("local_scalar", "dtype='float32'")
    def _local_scalar(self, node, a):
        return self.allocate(node, a, "local", scalar=True)

    @handler("shared_scalar", "dtype='float32'")
    def _shared_scalar(self, node, a):
        return self.allocate(node, a, "shared", scalar=True)

    @handler("alloc_scalar", "dtype='float32'", "scope='global'")
    def _alloc_scalar(self, node, a):
        return self.allocate(node, a, self.scope_arg(a["scope"], "global"), scalar=True)

    # -- views ----------------------------------------------------------------------------------------
    @handler("decl_buffer", "shape", "dtype='float32'", "data=None", "strides=None", "elem_offset=None",
             "byte_offset=None", "scope=None", "align=0", "offset_factor=0", "layout='default'",
             "allocated_addr=None")
    def _decl_buffer(self, node, a):
        scope_given = not is_default(a["scope"]) and not (isinstance(a["scope"], ast.Constant) and a["scope"].value is None)
        if scope_given:
            scope = self.scope_arg(a["scope"], "global")
            if scope is None:
                return POISON
        else:
            scope = None
        if scope == "tmem":
            if is_default(a["allocated_addr"]):
                self.diags.error("E0501", "a tensor-memory `T.decl_buffer` needs `allocated_addr`", node.span,
                                 help="add `allocated_addr=<column offset>` (the column within the "
                                      "`tcgen05.alloc` allocation) and a TLane/TCol `layout=`")
                return POISON
            self.diags.error("E0518", "tensor memory buffers are not supported yet", node.span)
            return POISON
        if is_default(a["data"]) or (isinstance(a["data"], ast.Constant) and a["data"].value is None):
            return self.allocate(node, {k: v for k, v in a.items() if k != "data"}, scope or "global")
        base = self.elab(a["data"])
        if isinstance(base, ir.Buffer):
            self.diags.error("E0516", f"`data=` takes a pointer; write `{base.name}.data`", a["data"].span)
            return POISON
        if not isinstance(base, Pointer):
            if base is not POISON:
                self.diags.error("E0516", "`data=` takes the `.data` of a buffer", a["data"].span)
            return POISON
        base_buf = base.buffer
        if scope is None:
            scope = base_buf.scope
        if scope != base_buf.scope:
            self.diags.error("E0516", f"a \"{scope}\" view over `{base_buf.name}`, which is \"{base_buf.scope}\"",
                             a["data"].span)
            return POISON
        shape = self.shape_arg(a["shape"], symbolic=base_buf.scope == "global")
        dtype = self.dtype_or_default(a["dtype"])
        align = self.align_arg(a["align"], base_buf.align)
        if None in (shape, dtype, align):
            return POISON
        if not is_default(a["strides"]):
            self.diags.error("E0518", "`strides=` is not supported", a["strides"].span,
                             help="describe the strides with `layout=TileLayout(...)`")
            return POISON
        has_elem, has_byte = not is_default(a["elem_offset"]), not is_default(a["byte_offset"])
        if has_elem and has_byte:
            self.diags.error("E0504", "give either `elem_offset` or `byte_offset`, not both", node.span)
            return POISON
        offset: ir.Expr = ir.IntImm(INT32, 0)
        if has_elem:
            offset = self.int_value(a["elem_offset"])
        elif has_byte:
            offset = self.int_value(a["byte_offset"])
            if isinstance(offset, ir.IntImm):
                if offset.value % dtype.nbytes:
                    self.diags.error("E0513", f"`byte_offset={offset.value}` is not a multiple of the "
                                              f"{dtype.nbytes}-byte element size of {dtype}", a["byte_offset"].span)
                    return POISON
                offset = ir.IntImm(INT32, offset.value // dtype.nbytes)
            elif offset is not POISON:
                offset = ir.binop("floordiv", offset, ir.IntImm(INT32, dtype.nbytes))
        if offset is POISON:
            return POISON
        if isinstance(offset, ir.IntImm) and offset.value < 0:
            self.diags.error("E0505", "a view cannot start before its storage", node.span)
            return POISON
        layout = self.layout_arg(a["layout"], shape, dtype, scope, node.span)
        if layout is POISON:
            return POISON
        return self.new_view(base_buf, shape, dtype, scope, layout, offset, align, node.span)

    def check_view_bounds(self, storage: ir.Storage, shape, dtype: DType, layout, offset: ir.Expr, span) -> bool:
        """A view over an array (arena, shared, local) must lie inside it."""
        if storage.size is None or not isinstance(offset, ir.IntImm):
            return True
        extent = self.view_extent(shape, layout)
        if extent is None:
            return True
        end_bytes = (offset.value + extent) * dtype.nbytes
        size_bytes = storage.size * storage.dtype.nbytes
        if end_bytes > size_bytes:
            self.diags.error("E0505", f"the view ends at byte {end_bytes} but `{storage.name}` has {size_bytes} "
                                      f"bytes", span)
            return False
        return True

    @staticmethod
    def view_extent(shape, layout) -> int | None:
        """Elements from the view's start to one past its last element."""
        if layout is None:
            if all(isinstance(e, ir.IntImm) for e in shape):
                return prod(e.value for e in shape)
            return None
        return layouts.memory_span(layout)

    # -- element access ----------------------------------------------------------------------------------
    def load(self, buf: ir.Buffer, indices, span):
        if buf.scope == "tmem":
            self.diags.error("E0518", f"`{buf.name}` is in tensor memory, which only tcgen05 operations access",
                             span)
            return POISON
        return ir.BufferLoad(buf.dtype, buf, tuple(indices), span)

    def pointer_arg(self, node):
        """A pointer argument: `B.ptr_to([i])`, `B.data` or `T.address_of(B[i])`."""
        val = self.elab(node)
        if isinstance(val, Pointer):
            return ir.BufferAddress(HANDLE, val.buffer, None, node.span)
        if isinstance(val, ir.BufferAddress):
            return val
        if val is not POISON:
            self.diags.error("E0306", "expected a pointer such as `A.ptr_to([i])`", node.span)
        return POISON

    @handler("address_of", "value")
    def _address_of(self, node, a):
        target = a["value"]
        val = self.elab(target)
        if isinstance(val, ir.BufferLoad):
            return ir.BufferAddress(HANDLE, val.buffer, val.indices, node.span)
        if isinstance(val, ir.Buffer):
            return ir.BufferAddress(HANDLE, val, None, node.span)
        if val is not POISON:
            self.diags.error("E0306", "`T.address_of` takes a buffer element such as `A[i]`", target.span)
        return POISON

    # -- the Buffer API -------------------------------------------------------------------------------------
    def buffer_method(self, method, node: ast.Call):
        buf: ir.Buffer = method.obj
        name = method.name
        if buf.scope == "tmem" and name in ("ptr_to", "vload", "vstore"):
            self.diags.error("E0518", f"`{name}` on tensor memory `{buf.name}`", node.span)
            return POISON
        if name == "ptr_to":
            args = self.bind_args(node, ("indices",), "ptr_to")
            indices = self.index_list(buf, args["indices"]) if args else POISON
            return POISON if indices is POISON else ir.BufferAddress(HANDLE, buf, indices, node.span)
        if name == "vload":
            args = self.bind_args(node, ("indices", "dtype=None"), "vload")
            if args is None:
                return POISON
            vec = self.vector_dtype(buf, args["dtype"], node)
            indices = self.index_list(buf, args["indices"])
            if POISON in (vec, indices):
                return POISON
            return ir.BufferVecLoad(vec, buf, indices, node.span)
        if name == "vstore":
            args = self.bind_args(node, ("indices", "value"), "vstore")
            if args is None:
                return POISON
            indices = self.index_list(buf, args["indices"])
            value = self.value(args["value"])
            if POISON in (indices, value):
                return POISON
            if value.dtype.lanes == 1 or value.dtype.element != buf.dtype:
                self.diags.error("E0515", f"`vstore` of a {value.dtype} value into {buf.dtype} buffer `{buf.name}`",
                                 args["value"].span, help=f"store a vector of {buf.dtype}, e.g. from `vload`")
                return POISON
            if not self.check_vector_align(buf, value.dtype, node):
                return POISON
            return Void(ir.BufferVecStore(buf, indices, value, node.span))
        if name == "view":
            return self.view(buf, node)
        if name == "permute":
            dims = [self.const_int(d, "a dimension") for d in node.args]
            if None in dims:
                return POISON
            if sorted(dims) != list(range(buf.ndim)):
                self.diags.error("E0514", f"`permute{tuple(dims)}` is not a permutation of the {buf.ndim} dimensions "
                                          f"of `{buf.name}`", node.span)
                return POISON
            layout, shape = layouts.permuted(buf.layout, buf.shape, dims)
            if layout is None:
                self.diags.error("E0514", "cannot permute a buffer whose layout does not follow its dimensions",
                                 node.span)
                return POISON
            return replace(buf, name="", shape=tuple(shape), layout=layout, span=node.span, scalar=False)
        if name == "scope":
            return PyConst(buf.scope)
        self.diags.error("E0518", f"`{buf.name}.{name}` is not supported yet", node.span)
        return POISON

    def index_list(self, buf, node):
        if not isinstance(node, (ast.List, ast.Tuple)):
            self.diags.error("E0514", "indices are given as a list, e.g. `[i, j]`", node.span)
            return POISON
        if len(node.elts) != buf.ndim:
            self.diags.error("E0506", f"`{buf.name}` has {buf.ndim} dimension{'s' if buf.ndim != 1 else ''} but "
                                      f"{len(node.elts)} indices were given", node.span)
            return POISON
        return self.indices(buf, node.elts)

    def vector_dtype(self, buf, arg, node):
        if is_default(arg):
            self.diags.error("E0515", "`vload` needs `dtype=`, e.g. \"float32x4\"", node.span)
            return POISON
        vec = self.dtype_arg(arg)
        if vec is None:
            return POISON
        if vec.lanes == 1 or vec.element != buf.dtype:
            self.diags.error("E0515", f"`vload` of {vec} from {buf.dtype} buffer `{buf.name}`", arg.span,
                             help=f"use a vector of {buf.dtype}, e.g. \"{buf.dtype}x4\"")
            return POISON
        if not has_c_vector(vec):
            self.diags.error("E0515", f"no CUDA type moves {vec.nbytes} bytes at once", arg.span)
            return POISON
        if not self.check_vector_align(buf, vec, node):
            return POISON
        return vec

    def check_vector_align(self, buf, vec: DType, node) -> bool:
        if buf.align < vec.nbytes and buf.scope == "global":
            self.diags.error("E0515", f"{vec.nbytes}-byte vector access to `{buf.name}`, which only promises "
                                      f"{buf.align}-byte alignment", node.span,
                             help=f"declare `align={vec.nbytes}` on `{buf.name}`")
            return False
        return True

    def view(self, buf: ir.Buffer, node: ast.Call):
        layout_node = next((k.value for k in node.keywords if k.name == "layout"), None)
        unknown = [k for k in node.keywords if k.name != "layout"]
        if unknown:
            self.diags.error("E0311", f"`view` has no parameter `{unknown[0].name}`", unknown[0].span)
            return POISON
        dims = [self.elab(d) for d in node.args]
        if any(d is POISON for d in dims):
            return POISON
        if len(dims) == 1 and isinstance(dims[0], PyConst) and isinstance(dims[0].value, tuple):
            dims = [PyConst(v) for v in dims[0].value]
        if len(dims) == 1 and isinstance(dims[0], PyConst) and isinstance(dims[0].value, str):
            self.diags.error("E0518", "reinterpreting views (`view(dtype)`) are not supported yet", node.span)
            return POISON
        total = buf.const_shape()
        if total is None or buf.layout is not None and layout_node is None:
            self.diags.error("E0514", "`view` needs a buffer with a constant row-major shape", node.span)
            return POISON
        count = prod(total)
        shape = []
        for d, arg in zip(dims, node.args):
            if not (isinstance(d, PyConst) and isinstance(d.value, int)):
                self.diags.error("E0514", "view extents must be compile-time integers", arg.span)
                return POISON
            shape.append(d.value)
        if shape.count(-1) == 1:
            known = prod(x for x in shape if x != -1)
            if known == 0 or count % known:
                self.diags.error("E0514", f"cannot view {count} elements as {tuple(shape)}", node.span)
                return POISON
            shape[shape.index(-1)] = count // known
        if any(x <= 0 for x in shape) or prod(shape) != count:
            self.diags.error("E0514", f"cannot view {count} elements of `{buf.name}` as {tuple(shape)}", node.span)
            return POISON
        new_shape = tuple(ir.IntImm(INT32, x) for x in shape)
        layout = None
        if layout_node is not None:
            from .intrinsics import _DefaultArg  # noqa: F401  (keeps one import site for defaults)
            layout = self.layout_arg(layout_node, new_shape, buf.dtype, buf.scope, node.span)
            if layout is POISON:
                return POISON
        return replace(buf, name="", shape=new_shape, layout=layout, span=node.span, scalar=False)

    # -- layouts as written ---------------------------------------------------------------------------------------
    def layout_subscript(self, kind: str, node: ast.Subscript):
        if len(node.indices) == 1 and isinstance(node.indices[0], ast.Slice):
            sl = node.indices[0]
            extents = self.layout_list(sl.lower, "extent")
            strides = self.layout_list(sl.upper, "stride") if sl.upper is not None else None
        else:
            extents = [self.layout_item(i, "extent") for i in node.indices]
            if len(extents) == 1 and isinstance(extents[0], tuple):
                extents = list(extents[0])
            strides = None
        if extents is None or POISON in extents or (strides is not None and POISON in strides):
            return POISON
        if strides is None:
            if kind == "R":
                self.diags.error("E0517", "a replica `R[...]` needs strides", node.span)
                return POISON
            strides = layouts.row_major_strides(extents)
        if len(strides) != len(extents):
            self.diags.error("E0517", f"{len(extents)} extents but {len(strides)} strides", node.span)
            return POISON
        iters = []
        for extent, stride in zip(extents, strides):
            if isinstance(stride, AxisTerm):
                iters.append(layouts.Iter(extent, stride.value, stride.axis))
            else:
                iters.append(layouts.Iter(extent, stride, "m"))
        return LayoutPart(shard=tuple(iters)) if kind == "S" else LayoutPart(replica=tuple(iters))

    def layout_list(self, node, what):
        if isinstance(node, ast.Tuple):
            return [self.layout_item(e, what) for e in node.elts]
        item = self.layout_item(node, what)
        return [item]

    def layout_item(self, node, what):
        val = self.elab(node)
        if isinstance(val, AxisTerm):
            if what == "extent":
                self.diags.error("E0517", "an extent cannot name an axis", node.span)
                return POISON
            return val
        if isinstance(val, PyConst) and isinstance(val.value, tuple):
            return tuple(ir.IntImm(INT32, v) for v in val.value)
        v = self.as_value(val, node.span, INT32)
        if v is POISON:
            return POISON
        if not v.dtype.is_int:
            self.diags.error("E0517", f"layout {what}s are integers", node.span)
            return POISON
        return v

    def layout_sum(self, left, right, node):
        parts = []
        for val, sub in ((left, node.left), (right, node.right)):
            if val is POISON:
                return POISON
            if isinstance(val, LayoutPart):
                parts.append(val)
            elif isinstance(val, AxisTerm):
                parts.append(LayoutPart(offset=((val.axis, val.value),)))
            else:
                v = self.as_value(val, sub.span, INT32)
                if v is POISON:
                    return POISON
                parts.append(LayoutPart(offset=(("m", v),)))
        if node.op != "+":
            self.diags.error("E0517", "layout parts combine with `+`", node.span)
            return POISON
        a, b = parts
        return LayoutPart(a.shard + b.shard, a.replica + b.replica, a.offset + b.offset)

    def make_layout(self, part: LayoutPart, node) -> LayoutVal:
        text = self.source_text(node.span)
        return LayoutVal(ir.Layout(part.shard, part.replica, part.offset, None, text))

    def layout_ctor(self, name: str, node: ast.Call):
        if name != "TileLayout":
            if name == "ComposeLayout":
                self.diags.error("E0518", "`ComposeLayout` (swizzled layouts) is not supported yet", node.span)
            else:
                self.diags.error("E0306", f"`{name}` is written with brackets: `{name}[...]`", node.span)
            return POISON
        if len(node.args) != 1 or node.keywords:
            self.diags.error("E0305", "`TileLayout` takes one layout expression, e.g. `TileLayout(S[(4, 8):(1, 4)])`",
                             node.span)
            return POISON
        part = self.elab(node.args[0])
        if isinstance(part, LayoutPart):
            if not part.shard:
                self.diags.error("E0517", "a layout needs a shard `S[...]`", node.span)
                return POISON
            return self.make_layout(part, node)
        if isinstance(part, LayoutVal):
            return part
        if part is not POISON:
            self.diags.error("E0517", "`TileLayout` takes `S[extents : strides]`", node.args[0].span)
        return POISON

    # -- inline CUDA ----------------------------------------------------------------------------------------------
    def func_call(self, node, a):
        name = self.const_str(a["name"], "the function name")
        source = self.const_str(a["source_code"], "`source_code`") if not is_default(a["source_code"]) else None
        if is_default(a["source_code"]):
            self.diags.error("E0510", "`T.cuda.func_call` needs `source_code=`", node.span)
        rtype = "void" if is_default(a["return_type"]) else None
        if rtype is None:
            rval = self.elab(a["return_type"])
            from .values import DTypeVal
            if isinstance(rval, PyConst) and rval.value == "void":
                rtype = "void"
            else:
                rtype = self.dtype_arg(a["return_type"])
        args = []
        for arg in a["args"]:
            val = self.elab(arg)
            if isinstance(val, Pointer):
                args.append(ir.BufferAddress(HANDLE, val.buffer, None, arg.span))
            else:
                args.append(self.as_value(val, arg.span))
        if name is None or source is None or rtype is None or POISON in args:
            return POISON
        if not C_IDENT.match(name) or name.startswith(("tirx_", "tvm_builtin_", "__")):
            self.diags.error("E0510", f"`{name}` is not a usable C function name", a["name"].span,
                             help="use a C identifier that does not start with `tirx_`, `tvm_builtin_` or `__`")
            return POISON
        if name not in source:
            self.diags.error("E0510", f"the source code does not mention `{name}`", a["source_code"].span)
            return POISON
        known = self.module.func_sources.get(name)
        if known is None:
            self.module.func_sources[name] = source
            self.module.func_source_spans[name] = node.span
        elif known != source:
            self.diags.error("E0510", f"`{name}` was already defined with different source code", node.span,
                             notes=[Note("first defined here", self.module.func_source_spans[name])])
            return POISON
        if rtype == "void":
            return Void(ir.Evaluate(ir.Call(VOID, name, tuple(args), node.span), node.span))
        return ir.Call(rtype, name, tuple(args), node.span)
