"""Buffers: parameters, allocations, views, the dynamic arena, element access,
the Buffer API, layouts written in the source, and `T.cuda.func_call`.

A mixin of the kernel checker (see kernel.py for the state it relies on).
"""
from __future__ import annotations

import re
from dataclasses import replace
from math import gcd, prod

from transpiler.syntax import ast
from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.sema.expr import article, kind_of
from transpiler.diag.diagnostics import Note, did_you_mean
from transpiler.target.dtypes import HANDLE, INT32, VOID, DType, has_c_vector, known_dtype_names, parse_dtype
from transpiler.sema.intrinsics import default_arg, handler, is_default
from transpiler.target.arch import INDEX_LIMIT
from transpiler.sema.values import POISON, AxisTerm, DTypeVal, Handle, LayoutPart, LayoutVal, Pointer, PyConst, Void

SCOPES = ("global", "shared", "shared.dyn", "local", "tmem")
C_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
C_KEYWORDS = frozenset("""
auto break case char const continue default do double else enum extern float for goto if inline int long
register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while
bool class namespace template typename new delete this true false operator private public protected virtual
""".split())


def modular(e: ir.Expr) -> tuple[int, int]:
    """(m, r) with e == r (mod m) for every value of its variables; m == 0 means e == r exactly."""
    if isinstance(e, ir.IntImm):
        return 0, e.value
    if isinstance(e, ir.Cast) and e.dtype.is_int and e.a.dtype.is_int:
        return modular(e.a)
    if isinstance(e, ir.BinOp) and e.op in ("+", "-", "*"):
        (m1, r1), (m2, r2) = modular(e.a), modular(e.b)
        if e.op == "*":  # (m1 a + r1)(m2 b + r2)
            m, r = gcd(gcd(m1 * m2, m1 * r2), m2 * r1), r1 * r2
        else:
            m, r = gcd(m1, m2), r1 + r2 if e.op == "+" else r1 - r2
        return (m, r % m) if m else (0, r)
    if isinstance(e, ir.BinOp) and e.op == "<<" and isinstance(e.b, ir.IntImm) and 0 <= e.b.value < 63:
        m, r = modular(e.a)
        return m << e.b.value, r << e.b.value
    return 1, 0


def _is_pow2(n: int) -> bool:
    return n > 0 and n & (n - 1) == 0


class MemoryChecker:
    # -- shapes, dtypes, scopes ---------------------------------------------------------------
    def shape_arg(self, node, *, symbolic: bool):
        """A buffer shape: a tuple of positive integer extents (a bare int is 1-D); None on error.
        Symbolic extents are allowed only where `symbolic` (parameter buffers)."""
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
                self.diags.error("E0305", f"a shape is a tuple of extents, e.g. `(128, 64)`, not {kind_of(val)}",
                                 node.span)
            return None
        elts = node.elts if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) == len(items) else None
        shape = []
        for i, item in enumerate(items):
            span = elts[i].span if elts else node.span
            if isinstance(item, PyConst):
                if not isinstance(item.value, int) or isinstance(item.value, bool):
                    self.diags.error("E0503", f"buffer extents are integers, not {kind_of(item)}", span)
                    return None
                value = item.value
                item = ir.IntImm(INT32, value) if -2 ** 31 <= value < 2 ** 31 else None
                if item is None:
                    shown = str(value) if value.bit_length() <= 64 else f"2^{value.bit_length() - 1} or more"
                    self.diags.error("E0503", f"buffer extent {shown} is too large: the limit is {INDEX_LIMIT} "
                                              f"(2^31 - 1)", span)
                    return None
            if not (isinstance(item, ir.Expr) and item.dtype.is_int and item.dtype.lanes == 1):
                self.diags.error("E0503", f"buffer extents are integers, not {kind_of(item)}", span)
                return None
            if isinstance(item, ir.IntImm) and item.value <= 0:
                self.diags.error("E0503", f"buffer extent {item.value} is not positive", span)
                return None
            if not symbolic and not isinstance(item, ir.IntImm):
                self.diags.error("E0503", "buffers allocated in a kernel need constant extents", span,
                                 help="symbolic extents are only allowed for parameter buffers; allocate the "
                                      "largest size you need")
                return None
            shape.append(item)
        if not shape:
            self.diags.error("E0503", "a buffer needs at least one dimension", node.span,
                             help="a single value is the shape `(1,)`")
            return None
        return tuple(shape)

    def scope_arg(self, arg, default: str):
        if is_default(arg):
            return default
        scope = self.const_str(arg, "the scope")
        if scope is None:
            return None
        if scope not in SCOPES:
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
            below = 1 << (align.bit_length() - 1)
            self.diags.error("E0513", f"`align={align}` is not a power of two", arg.span,
                             help=f"use a power of two such as {below} or {below * 2}")
            return None
        return align

    def dtype_or_default(self, arg):
        if is_default(arg):
            return parse_dtype(arg.value())
        return self.dtype_arg(arg)

    def layout_value(self, arg):
        """The layout a `layout=` argument names: None for "default", POISON after an error."""
        val = self.elab(arg)
        if isinstance(val, PyConst) and val.value in ("default", None):
            return None
        if isinstance(val, LayoutPart):
            val = self.make_layout(val, arg)
        if not isinstance(val, LayoutVal):
            if val is not POISON:
                self.diags.error("E0517", "`layout=` takes a `TileLayout(...)` or \"default\"", arg.span)
            return POISON
        return val.layout

    def layout_arg(self, arg, shape, dtype: DType, scope: str, span):
        """The layout of a buffer (None for dense row-major) after checking it fits the shape."""
        if is_default(arg):
            return None
        layout = self.layout_value(arg)
        if layout is None or layout is POISON:
            return layout
        total = prod(e.value for e in shape) if all(isinstance(e, ir.IntImm) for e in shape) else None
        count = layouts.num_elements(layout)
        if total is not None and isinstance(count, ir.IntImm) and count.value != total:
            self.diags.error("E0517", f"layout covers {count.value} elements but the buffer has {total}", arg.span,
                             help="the product of the `S[...]` extents is the buffer's element count")
            return POISON
        negative = [it.stride.value for it in layout.shard + layout.replica
                    if isinstance(it.stride, ir.IntImm) and it.stride.value < 0]
        if negative:
            self.diags.error("E0517", f"layout stride {negative[0]} is negative", arg.span,
                             help="strides count elements forward from the buffer's start")
            return POISON
        axes = layouts.thread_axes(layout)
        if axes:
            if scope != "local":
                self.diags.error("E0517", f"thread axis `{axes[0]}` in the layout of a {scope} buffer", arg.span,
                                 help="thread axes describe distributed register buffers (scope=\"local\")")
                return POISON
            unknown = [a for a in axes if a not in ("laneid", "warpid", "tx", "wgid", "tid_in_wg", "wid_in_wg")]
            if unknown:
                self.diags.error("E0518", f"register buffers distributed over `{unknown[0]}` are not supported "
                                          f"(only threads of one CTA: `tx`, `laneid`, `warpid` ...)", arg.span)
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
                self.diags.error("E0511", f"`T.match_buffer` binds a `T.handle` parameter, not {kind_of(handle)}",
                                 a["param"].span)
            return POISON
        if self.device:
            self.diags.error("E0511", "`T.match_buffer` belongs before `T.device_entry()`", node.span,
                             help="bind every handle parameter in the host part, before `T.device_entry()`")
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
            self.diags.error("E0511", f"parameter buffers live in global memory, not \"{scope}\"", a["scope"].span,
                             help="leave `scope=` out; allocate shared or local copies inside the kernel")
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
        if not self.index_fits(shape, layout, elem_offset, a["shape"].span):
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
            return self.allocate_workspace(node, a)
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
        if layout is not None and not layouts.memory_span(layout):
            self.diags.error("E0517", "the layout of a new allocation needs constant extents and strides",
                             a["layout"].span, help="the allocation's size comes from the layout")
            return POISON
        if not self.index_fits(shape, layout, ir.IntImm(INT32, 0), a["shape"].span if "shape" in a else node.span):
            return POISON
        return self.new_allocation(shape, dtype, scope, layout, align, node.span, scalar=scalar)

    # -- global workspaces (DECISIONS 19) ----------------------------------------------------------------
    def allocate_workspace(self, node, a):
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
            self.diags.error("E0502", f"`T.{func}` without `scope=` allocates global memory, which a kernel does "
                                     f"only when asked with `scope=\"global\"`", node.span, help=fix)
            return POISON
        if func == "decl_buffer":
            self.diags.error("E0323", "`T.decl_buffer` with scope=\"global\" needs `data=`: it declares a view",
                             node.span, help="allocate a workspace with `T.alloc_buffer(shape, dtype, "
                                             "scope=\"global\")`, or give `data=` to view another buffer")
            return POISON
        if func != "alloc_buffer":
            self.diags.error("E0328", f"`T.{func}` cannot allocate global memory", node.span,
                             help="a global workspace is `T.alloc_buffer(shape, dtype, scope=\"global\")`")
            return POISON
        if not self.device or self.depth:
            where = "inside `if`, `for` or `while`" if self.device else "before `T.device_entry()`"
            self.diags.error("E0322", f"a global workspace is allocated at the top level of the kernel body, "
                                      f"not {where}", node.span,
                             help="allocate it once, after `T.device_entry()` and before any block: the launcher "
                                  "provides one workspace per launch")
            return POISON
        for name in ("layout", "elem_offset", "byte_offset", "allocated_addr"):
            if not is_default(a[name]) and not (name == "layout" and isinstance(a[name], ast.Constant)
                                                and a[name].value == "default"):
                self.diags.error("E0326", f"a workspace is a dense row-major allocation; `{name}=` is not supported",
                                 a[name].span, help="declare a view over it: `T.decl_buffer(shape, dtype, "
                                                    "data=ws.data, layout=...)`")
                return POISON
        shape = self.shape_arg(a["shape"], symbolic=True)
        dtype = self.dtype_or_default(a["dtype"])
        align = self.align_arg(a["align"])
        if None in (shape, dtype, align):
            return POISON
        if dtype.lanes != 1 or dtype.bits < 8 or not (dtype.is_int or dtype.is_float or dtype.is_bool):
            self.diags.error("E0324", f"a workspace holds scalar elements, not {dtype}", a["dtype"].span,
                             help=f"allocate {dtype.element} elements and use `vload` / `vstore`"
                             if dtype.lanes != 1 else None)
            return POISON
        if align > 256:
            self.diags.error("E0327", f"`align={align}`: the launcher's allocations are 256-byte aligned",
                             a["align"].span, help="use `align=` up to 256")
            return POISON
        elts = a["shape"].elts if isinstance(a["shape"], (ast.Tuple, ast.List)) and \
            len(a["shape"].elts) == len(shape) else None
        for i, extent in enumerate(shape):
            bad = self.not_on_host(extent)
            if bad is not None:
                self.diags.error("E0325", f"the launcher cannot compute this extent before the launch: it depends "
                                          f"on {bad}", elts[i].span if elts else a["shape"].span,
                                 help="use constants, symbolic extents of parameter buffers and integer scalar "
                                      "parameters")
                return POISON
        if not self.index_fits(shape, None, ir.IntImm(INT32, 0), a["shape"].span):
            return POISON
        size = prod(e.value for e in shape) if all(isinstance(e, ir.IntImm) for e in shape) else None
        storage = ir.Storage("\0", dtype, "global", "workspace", size, align)
        buf = ir.Buffer("", shape, dtype, "global", storage, None, None, align, node.span)
        self.pending.append(ir.Allocate(buf, node.span))
        return buf

    def not_on_host(self, e: ir.Expr) -> str | None:
        """What keeps an integer expression from being evaluated by the launcher (None: nothing).
        The launcher knows the symbolic extents and the integer scalar parameters."""
        known = {var.name for var, _ in self.extents.values()}
        known.update(p.name for p in self.args if p.kind == "scalar" and p.dtype.is_int)
        for node in ir.walk_expr(e):
            if isinstance(node, ir.Var) and node.name not in known:
                if any(p.kind == "scalar" and p.name == node.name for p in self.args):
                    return f"`{node.name}`, a parameter that is not an integer"
                return f"`{node.name}`, which is known only on the GPU"
            if isinstance(node, (ir.BufferLoad, ir.Load)):
                return "a value read from memory"
            if not ir.is_host_node(node):
                return "an operation the launcher does not evaluate"
        return None

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
        scope_given = not is_default(a["scope"]) and not (
            isinstance(a["scope"], ast.Constant) and a["scope"].value is None)
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
            return self.decl_tmem(node, a)
        if is_default(a["data"]) or (isinstance(a["data"], ast.Constant) and a["data"].value is None):
            return self.allocate(node, {k: v for k, v in a.items() if k != "data"}, scope or "global")
        base = self.elab(a["data"])
        if isinstance(base, ir.Buffer):
            self.diags.error("E0516", "`data=` takes a pointer, not a buffer", a["data"].span,
                             help=f"write `data={base.name}.data`")
            return POISON
        if not isinstance(base, Pointer):
            if base is not POISON:
                self.diags.error("E0516", f"`data=` takes the `.data` of a buffer, not {kind_of(base)}",
                                 a["data"].span, help="e.g. `data=arena.data`")
            return POISON
        base_buf = base.buffer
        if scope is None:
            scope = base_buf.scope
        if scope != base_buf.scope:
            self.diags.error("E0516", f"a \"{scope}\" view over `{base_buf.name}`, which is \"{base_buf.scope}\"",
                             a["data"].span, help="leave `scope=` out: a view has the scope of its storage")
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
            self.diags.error("E0504", "give either `elem_offset` or `byte_offset`, not both", a["byte_offset"].span,
                             help=f"keep one: `byte_offset` counts bytes, `elem_offset` counts {dtype} elements")
            return POISON
        offset: ir.Expr = ir.IntImm(INT32, 0)
        if has_elem:
            offset = self.int_value(a["elem_offset"])
        elif has_byte:
            offset = self.int_value(a["byte_offset"])
            if isinstance(offset, ir.IntImm):
                if offset.value % dtype.nbytes:
                    below = offset.value - offset.value % dtype.nbytes
                    self.diags.error("E0513", f"`byte_offset={offset.value}` is not a multiple of the "
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
            self.diags.error("E0505", f"a view cannot start before `{base_buf.name}`: the offset is negative",
                             where.span)
            return POISON
        if isinstance(offset, ir.IntImm) and not is_default(a["align"]) and (offset.value * dtype.nbytes) % align:
            self.diags.error("E0513", f"the view starts at byte {offset.value * dtype.nbytes} of `{base_buf.name}`, "
                                      f"which is not {align}-byte aligned", a["align"].span,
                             help=f"place it at a multiple of {align} bytes")
            return POISON
        layout = self.layout_arg(a["layout"], shape, dtype, scope, node.span)
        if layout is POISON:
            return POISON
        if not self.index_fits(shape, layout, offset, a["shape"].span):
            return POISON
        return self.new_view(base_buf, shape, dtype, scope, layout, offset, align, node.span)

    # -- the newer spelling: tensor types -------------------------------------------------------------
    TENSOR_PARAMS = ("shape", "dtype", "scope='global'", "align=0", "layout=None", "*positional", "data=None",
                     "data_alignment=None")
    BUFFER_DEFAULTS = ("data", "strides", "elem_offset", "byte_offset", "allocated_addr")

    def tensor_type_args(self, call: ast.Call):
        """`T.Tensor(shape, dtype, scope, align, layout)` bound to the argument names of `T.Buffer` /
        `T.alloc_buffer` / `T.decl_buffer`, whose handlers then do the checking; None on error."""
        a = self.bind_args(call, self.TENSOR_PARAMS, "T.Tensor")
        if a is None:
            return None
        if a.pop("positional"):
            self.diags.error("E0305", "`T.Tensor` takes at most 5 positional arguments", call.args[5].span)
            return None
        alignment = a.pop("data_alignment")
        if not is_default(alignment):
            if not is_default(a["align"]):
                self.diags.error("E0305", "`align=` and `data_alignment=` name the same thing; give one",
                                 alignment.span)
                return None
            a["align"] = alignment
        for name in self.BUFFER_DEFAULTS:
            a.setdefault(name, default_arg("None"))
        return a

    def ty_args_tensor(self, node, arg):
        """The one `T.Tensor(...)` call of a `ty_args=[...]` list; None (with E0525) otherwise."""
        items = arg.elts if isinstance(arg, (ast.List, ast.Tuple)) else None
        if items is None or len(items) != 1 or not self.is_dialect_call(items[0], ("Tensor",)):
            where = items[1].span if items is not None and len(items) > 1 else arg.span
            self.diags.error("E0525", "`ty_args=` takes one `T.Tensor(shape, dtype, ...)` in a list", where,
                             help="e.g. `ty_args=[T.Tensor((128,), \"float32\", scope=\"shared\")]`")
            return None
        return items[0]

    @handler("alloc_tensor", "placement=None", "*positional", "ty_args", "attrs=None", "annotations=None")
    def _alloc_tensor(self, node, a):
        args = self.tensor_call_args(node, a, "`T.alloc_tensor` takes one positional argument, the placement "
                                              "(a tensor-memory column)")
        if args is None:
            return POISON
        if not is_default(args["data"]):
            self.diags.error("E0525", "a new allocation has no `data=`", args["data"].span,
                             help="declare a view over another tensor with `T.decl_tensor(base.data, ty_args=[...])`")
            return POISON
        if not is_default(a["placement"]):
            args["allocated_addr"] = a["placement"]
            return self._decl_buffer(node, args)
        return self._alloc_buffer(node, args)

    @handler("decl_tensor", "data", "*positional", "ty_args", "attrs=None")
    def _decl_tensor(self, node, a):
        args = self.tensor_call_args(node, a, "`T.decl_tensor` takes one positional argument, the data pointer")
        if args is None:
            return POISON
        if not is_default(args["data"]):
            self.diags.error("E0525", "the data pointer is given twice: to `T.decl_tensor` and to `T.Tensor`",
                             args["data"].span, help="keep the first argument of `T.decl_tensor`")
            return POISON
        args["data"] = a["data"]
        return self._decl_buffer(node, args)

    def tensor_call_args(self, node, a, too_many: str) -> dict | None:
        """The buffer arguments of `T.alloc_tensor` / `T.decl_tensor`: read off the
        `T.Tensor(...)` of `ty_args=[...]`; None (reported) on an error."""
        if a["positional"]:
            self.diags.error("E0305", too_many, a["positional"][0].span)
            return None
        tensor = self.ty_args_tensor(node, a["ty_args"])
        return self.tensor_type_args(tensor) if tensor is not None else None

    def check_view_bounds(self, base: ir.Buffer, storage: ir.Storage, shape, dtype: DType, layout, offset: ir.Expr,
                          span) -> bool:
        """A view over an array (arena, shared, local) must lie inside it."""
        if storage.size is None or not isinstance(offset, ir.IntImm):
            return True
        extent = self.view_extent(shape, layout)
        if extent is None:
            return True
        end_bytes = (offset.value + extent) * dtype.nbytes
        size_bytes = storage.size * storage.dtype.nbytes
        if end_bytes > size_bytes:
            self.diags.error("E0505", f"the view ends at byte {end_bytes}, past the end of `{base.name}` "
                                      f"({size_bytes} bytes)", span,
                             help=f"make `{base.name}` larger, or the view smaller")
            return False
        return True

    def index_fits(self, shape, layout, offset: ir.Expr, span) -> bool:
        """Element indices are C `int`s (DECISIONS: 32-bit indexing): a buffer whose largest
        element index is known now and exceeds INT32_MAX is an error. Symbolic shapes are
        checked by the launcher, against the arrays it is given."""
        extent = self.view_extent(shape, layout)
        if extent is None or not isinstance(offset, ir.IntImm):
            return True
        last = offset.value + extent - 1
        if last <= INDEX_LIMIT:
            return True
        what = f"{extent} elements" if offset.value == 0 else f"up to element {last}"
        self.diags.error("E0503", f"the buffer spans {what}; element indices are 32-bit `int`s, so a buffer "
                                  f"spans at most {INDEX_LIMIT} (2^31 - 1) elements", span,
                         help="split the data over several buffers or launches")
        return False

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
        # (direct_access_ok can only object to tensor memory and laid-out buffers)
        if (buf.scope == "tmem" or buf.layout is not None) and not self.direct_access_ok(buf, span, "read"):
            return POISON
        return ir.BufferLoad(buf.dtype, buf, tuple(indices), span)

    def direct_access_ok(self, buf: ir.Buffer, span, what: str) -> bool:
        """Element access is impossible on tensor memory and on registers spread over threads."""
        if buf.scope == "tmem":
            self.diags.error("E0719", f"`{buf.name}` is in tensor memory and cannot be {what} directly", span,
                             help="only tcgen05 operations touch tensor memory: `tcgen05.ld` / `tcgen05.st` into "
                                  "registers, or tcgen05.mma / tcgen05.cp")
            return False
        if buf.layout is not None and layouts.thread_axes(buf.layout):
            self.diags.error("E0519", f"`{buf.name}` is spread over threads; which of its elements this thread "
                                      f"holds is not known from an index", span,
                             help=f"index this thread's registers through `{buf.name}.local()` "
                                  f"(or `{buf.name}.local(d0, d1, ...)`)")
            return False
        return True

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
            if POISON in (vec, indices) or not self.check_vector_access(buf, vec, indices, node, args["indices"]):
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
                self.diags.error("E0515", f"`vstore` of {article(value.dtype)} value into {buf.dtype} buffer "
                                          f"`{buf.name}`", args["value"].span,
                                 help=f"store a vector of {buf.dtype}, e.g. one from "
                                      f"`vload(..., dtype=\"{buf.dtype}x4\")`" if value.dtype.lanes == 1 else
                                 f"convert the elements, or view the buffer as {value.dtype.element}")
                return POISON
            if not self.check_vector_access(buf, value.dtype, indices, node, args["indices"]):
                return POISON
            return Void(ir.BufferVecStore(buf, indices, value, node.span))
        if name == "view":
            return self.view(buf, node)
        if name == "permute":
            dims = [self.const_int(d, "a dimension") for d in node.args]
            if None in dims:
                return POISON
            if node.keywords:
                self.diags.error("E0311", "`permute` takes the dimensions as positional arguments",
                                 node.keywords[0].span)
                return POISON
            if sorted(dims) != list(range(buf.ndim)):
                self.diags.error("E0514", f"`permute({', '.join(map(str, dims))})` is not a permutation of the "
                                          f"{buf.ndim} dimensions of `{buf.name}`", node.span,
                                 help=f"name every dimension once, e.g. "
                                      f"`permute({', '.join(map(str, reversed(range(buf.ndim))))})`")
                return POISON
            layout, shape = layouts.permuted(buf.layout, buf.shape, dims)
            if layout is None:
                self.diags.error("E0514", "cannot permute a buffer whose layout does not follow its dimensions",
                                 node.span)
                return POISON
            return replace(buf, name=self.source_text(node.span) or f"{buf.name}.permute(...)", shape=tuple(shape),
                           layout=layout, span=node.span, scalar=False)
        if name == "scope":
            return PyConst(buf.scope)
        if name == "local":
            return self.local_view(buf, node)
        if name == "access_ptr":
            return self.access_ptr(buf, node)
        self.diags.error("E0518", f"`{buf.name}.{name}` is not supported yet", node.span)
        return POISON

    def index_list(self, buf, node):
        if not isinstance(node, (ast.List, ast.Tuple)):
            text = self.source_text(node.span)
            self.diags.error("E0514", "indices are given as a list", node.span,
                             help=f"write `[{text}]`" if text else "write them in brackets, e.g. `[i, j]`")
            return POISON
        if len(node.elts) != buf.ndim:
            self.wrong_index_count(buf, len(node.elts), node.span)
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
            self.diags.error("E0515", f"no CUDA type moves {vec.nbytes} bytes at once", arg.span,
                             help="vectors move at most 16 bytes, e.g. \"float32x4\"")
            return POISON
        return vec

    def check_vector_access(self, buf: ir.Buffer, vec: DType, indices, node, index_node) -> bool:
        """A `vload` / `vstore` of `vec` at `indices`: inside the innermost dimension, over contiguous
        elements, and aligned to the vector's size (as far as the checker can tell)."""
        lanes, nbytes = vec.lanes, vec.nbytes
        base = self.base_alignment(buf)
        if base < nbytes:
            self.diags.error("E0515", f"{nbytes}-byte vector access to `{buf.name}`, which is only {base}-byte "
                                      f"aligned", node.span,
                             help=f"declare `{buf.name}` with `align={nbytes}`")
            return False
        extent, last = buf.shape[-1], indices[-1]
        if isinstance(extent, ir.IntImm) and lanes > extent.value:
            self.diags.error("E0515", f"a vector of {lanes} elements does not fit in the innermost dimension of "
                                      f"`{buf.name}` (extent {extent.value})", node.span)
            return False
        if isinstance(extent, ir.IntImm) and isinstance(last, ir.IntImm) and last.value + lanes > extent.value:
            self.diags.error("E0507", f"the vector covers elements {last.value}..{last.value + lanes - 1} of "
                                      f"dimension {buf.ndim - 1} of `{buf.name}` (extent {extent.value})",
                             index_node.elts[-1].span)
            return False
        if buf.layout is not None and not self.vector_contiguous(buf, indices, lanes):
            self.diags.error("E0515", f"the innermost dimension of `{buf.name}` is not contiguous in memory, so "
                                      f"it cannot be accessed as a vector", node.span,
                             help="vector accesses need a layout with stride 1 in the last dimension")
            return False
        offset = layouts.memory_index(buf.layout, indices, buf.shape, buf.elem_offset)
        modulus, residue = modular(offset)
        size = buf.dtype.nbytes
        if (modulus * size) % nbytes == 0 and (residue * size) % nbytes:
            step = nbytes // size
            where = f"starts at element {residue}" if modulus == 0 else \
                f"always starts {residue % step} elements past a multiple of {step}"
            self.diags.error("E0515", f"misaligned vector access to `{buf.name}`: it {where}", index_node.span,
                             help=f"a {nbytes}-byte vector starts at a multiple of {step} elements")
            return False
        return True

    def ramp_access(self, buf: ir.Buffer, nodes, span):
        """`A[i, T.ramp(base, 1, lanes)]`, the newer spelling of `A.vload([i, base], dtype=...)` /
        `A.vstore(...)`: (vector dtype, indices) for the same checks and IR; None when no index is a
        ramp, POISON after an error."""
        for node in nodes:
            if isinstance(node, ast.Call):
                break
        else:
            return None  # no index is a call: what nearly all indexing is, decided without building a list
        ramps = [k for k, n in enumerate(nodes) if self.is_dialect_call(n, ("ramp", "Ramp"))]
        if not ramps:
            return None
        if len(nodes) != buf.ndim:
            self.wrong_index_count(buf, len(nodes), span)
            return POISON
        misplaced = next((k for k in ramps if k != len(nodes) - 1), None)
        if misplaced is not None:
            self.diags.error("E0524", "only the last index can be a `T.ramp`", nodes[misplaced].span,
                             help="a vector access covers consecutive elements of the innermost dimension")
            return POISON
        leading = self.indices(buf, nodes[:-1])
        ramp = self.elab(nodes[-1])
        if leading is POISON or ramp is POISON:
            return POISON
        vec = buf.dtype.with_lanes(ramp.lanes) if buf.dtype.lanes == 1 else None
        if vec is None or not has_c_vector(vec):
            self.diags.error("E0524", f"no CUDA vector type holds {ramp.lanes} {buf.dtype} elements",
                             nodes[-1].span, help=f"use a lane count such as {max(1, 16 // buf.dtype.nbytes)} "
                                                  f"(vectors move at most 16 bytes)")
            return POISON
        indices = tuple(leading) + (ramp.base,)
        access, index_list = ast.Tuple(span, tuple(nodes)), ast.Tuple(nodes[-1].span, tuple(nodes))
        if not self.check_vector_access(buf, vec, indices, access, index_list):
            return POISON
        return vec, indices

    @staticmethod
    def base_alignment(buf: ir.Buffer) -> int:
        """The alignment in bytes of the start of a buffer's storage."""
        storage = buf.storage
        while storage is not None and storage.kind == "view_pointer" and storage.base is not None:
            storage = storage.base
        if storage is None:
            return buf.align
        return storage.align if storage.align > 0 else storage.dtype.nbytes

    @staticmethod
    def vector_contiguous(buf: ir.Buffer, indices, lanes: int) -> bool:
        """Whether `lanes` consecutive elements of the last dimension are consecutive in memory
        (checked at the given indices when they are constant, else at the origin)."""
        if not all(isinstance(i, ir.IntImm) for i in indices) or not buf.const_shape():
            indices = [ir.IntImm(INT32, 0)] * len(indices)
            if not buf.const_shape():
                return True
        first = layouts.memory_index(buf.layout, indices, buf.shape, ir.IntImm(INT32, 0))
        for k in range(1, lanes):
            moved = list(indices[:-1]) + [ir.IntImm(INT32, indices[-1].value + k)]
            at = layouts.memory_index(buf.layout, moved, buf.shape, ir.IntImm(INT32, 0))
            if isinstance(first, ir.IntImm) and isinstance(at, ir.IntImm) and at.value != first.value + k:
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
                self.diags.error("E0514", f"cannot view {count} elements of `{buf.name}` as "
                                          f"({', '.join(map(str, shape))})", node.span,
                                 help=f"the known extents must divide {count}")
                return POISON
            shape[shape.index(-1)] = count // known
        if any(x <= 0 for x in shape) or prod(shape) != count:
            self.diags.error("E0514", f"cannot view {count} elements of `{buf.name}` as "
                                      f"({', '.join(map(str, shape))})", node.span,
                             help=f"the extents must multiply to {count}; one of them may be -1 to infer it")
            return POISON
        new_shape = tuple(ir.IntImm(INT32, x) for x in shape)
        layout = None
        if layout_node is not None:
            layout = self.layout_arg(layout_node, new_shape, buf.dtype, buf.scope, node.span)
            if layout is POISON:
                return POISON
        return replace(buf, name=self.source_text(node.span) or f"{buf.name}.view(...)", shape=new_shape,
                       layout=layout, span=node.span, scalar=False)

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
            self.diags.error("E0517", f"{len(extents)} extent{'s' if len(extents) != 1 else ''} but {len(strides)} "
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
                if not v.dtype.is_int:
                    self.diags.error("E0517", "layout offsets are integers", sub.span)
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
        if name == "ComposeLayout":
            return self.compose_layout(node)
        if name != "TileLayout":
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
        """`T.cuda.func_call(name, *args, source_code=SRC, return_type=...)` (DECISIONS 18), or in the
        newer spelling `T.cuda.func_call(name, *args, SRC, ty=dtype)`: the source as the last positional
        argument, the result type as `ty=`."""
        name = self.literal_string(a["name"], "the function name", "write it in quotes: `\"my_func\"`")
        arg_nodes, vals = list(a["args"]), [self.elab(arg) for arg in a["args"]]
        source_node = a["source_code"]
        last = vals[-1] if vals else None
        if isinstance(last, PyConst) and isinstance(last.value, str):
            if not is_default(a["source_code"]):
                self.diags.error("E0510", "the source is given twice: as the last argument and as `source_code=`",
                                 arg_nodes[-1].span, help="keep one of them")
                return POISON
            source_node = arg_nodes.pop()
            vals.pop()
        source = None
        if is_default(source_node):
            self.diags.error("E0510", "`T.cuda.func_call` needs `source_code=`", node.span,
                             help="pass the CUDA text that defines the function, e.g. a module-level "
                                  "`SRC = r\"\"\"__device__ float f(float x) { ... }\"\"\"`")
        else:
            source = self.literal_string(source_node, "`source_code`",
                                         "define the source as a module-level string constant")
        ty_given = not is_default(a["ty"])
        if ty_given and not is_default(a["return_type"]):
            self.diags.error("E0510", "the result type is given twice: `ty=` and `return_type=`", a["ty"].span,
                             help="keep one of them")
            return POISON
        rtype = self.return_type(a["ty"], "ty") if ty_given else self.return_type(a["return_type"])
        args = []
        for arg, val in zip(arg_nodes, vals):
            if isinstance(val, Pointer):
                args.append(ir.BufferAddress(HANDLE, val.buffer, None, arg.span))
            else:
                args.append(self.as_value(val, arg.span))
        if name is None or source is None or rtype is None or POISON in args:
            return POISON
        if not C_IDENT.match(name) or name.startswith(("tirx_", "tvm_builtin_", "__")) or name in C_KEYWORDS:
            self.diags.error("E0510", f"`{name}` is not a usable C function name", a["name"].span,
                             help="use a C identifier that is not a keyword and does not start with `tirx_`, "
                                  "`tvm_builtin_` or `__`")
            return POISON
        if not re.search(rf"\b{name}\b", source):
            self.diags.error("E0510", f"the source code does not mention `{name}`", source_node.span,
                             help=f"the source must define `{name}`")
            return POISON
        known = self.module.func_sources.get(name)
        if known is None:
            self.module.func_sources[name] = source
            self.module.func_source_spans[name] = node.span
        elif known != source:
            self.diags.error("E0510", f"`{name}` was already defined with different source code", node.span,
                             notes=[Note("first defined here", self.module.func_source_spans[name])],
                             help="one name has one source; rename one of the functions, or pass the same text")
            return POISON
        if rtype == "void":
            return Void(ir.Evaluate(ir.Call(VOID, name, tuple(args), node.span), node.span))
        return ir.Call(rtype, name, tuple(args), node.span)

    def literal_string(self, node, what: str, fix: str):
        val = self.elab(node)
        if isinstance(val, PyConst) and isinstance(val.value, str):
            return self.text_str(val.value, node.span)
        if val is not POISON:
            self.diags.error("E0510", f"{what} must be a compile-time string, not {kind_of(val)}", node.span,
                             help=fix)
        return None

    def return_type(self, arg, keyword: str = "return_type"):
        """`return_type=` (or `ty=`): a dtype, or "void" (the default); None on error."""
        if is_default(arg):
            return "void"
        val = self.elab(arg)
        if isinstance(val, PyConst) and val.value in ("void", None):
            return "void"
        if isinstance(val, DTypeVal):
            return val.dtype
        if isinstance(val, PyConst) and isinstance(val.value, str):
            dtype = parse_dtype(val.value)
            if dtype is None:
                self.diags.error("E0510", f"`{keyword}=\"{val.value}\"` is neither a dtype nor \"void\"", arg.span,
                                 help=did_you_mean(val.value, known_dtype_names() + ["void"]))
            return dtype
        if val is not POISON:
            self.diags.error("E0510", f"`{keyword}=` takes a dtype or \"void\", not {kind_of(val)}", arg.span)
        return None

    def decl_tmem(self, node, a):
        """A tensor-memory view: columns from `allocated_addr` on, addressed through a TLane/TCol layout."""
        if not is_default(a["data"]):
            self.diags.error("E0305", "a tensor-memory buffer takes `allocated_addr=`, not `data=`", a["data"].span)
            return POISON
        shape = self.shape_arg(a["shape"], symbolic=False)
        dtype = self.dtype_or_default(a["dtype"])
        column = self.int_value(a["allocated_addr"])
        if None in (shape, dtype) or column is POISON:
            return POISON
        if dtype.bits != 32:
            self.diags.error("E0517", f"tensor memory holds 32-bit cells; a {dtype} buffer needs packing", node.span)
            return POISON
        layout = None
        if not is_default(a["layout"]):
            layout = self.layout_value(a["layout"])
            if layout is POISON:
                return POISON
        if isinstance(column, ir.IntImm) and self.tmem_alloc is not None and self.tmem_alloc[1] is not None:
            columns = self.tmem_alloc[1]
            if not 0 <= column.value < columns:
                self.diags.error("E0708", f"`allocated_addr={column.value}` is outside the {columns} allocated "
                                          f"columns", a["allocated_addr"].span,
                                 notes=[Note("allocated here", self.tmem_alloc[2])])
                return POISON
        buf = self.tmem_buffer(shape, dtype, layout, ir.cast(INT32, column), node.span)
        if buf is not POISON and isinstance(column, ir.IntImm) and self.tmem_alloc is not None \
                and self.tmem_alloc[1] is not None:
            columns, width = self.tmem_alloc[1], layouts.tmem_columns(buf.layout)
            if width is not None and column.value + width > columns:
                self.diags.error("E0708", f"this view needs columns {column.value}..{column.value + width}, "
                                          f"past the {columns} allocated columns", node.span,
                                 notes=[Note("allocated here", self.tmem_alloc[2])],
                                 help=f"allocate at least {column.value + width} columns or start it earlier")
                return POISON
        return buf

    def local_view(self, buf: ir.Buffer, node):
        """`R.local(*shape, layout=None)`: this thread's registers of a buffer spread over threads.

        The registers are the layout's memory span (its thread iters take no storage); with no
        shape the view is 1-D over that span, a shape reshapes it row-major, and `layout=` maps
        a free shape onto it."""
        if buf.scope != "local":
            self.diags.error("E0514", f"`local()` is for register buffers; `{buf.name}` is {buf.scope}", node.span)
            return POISON
        span_elems = layouts.memory_span(buf.layout) if buf.layout is not None else buf.storage.size
        layout_node = next((k.value for k in node.keywords if k.name == "layout"), None)
        for k in node.keywords:
            if k.name != "layout":
                self.diags.error("E0311", f"`local` has no parameter `{k.name}`", k.span)
                return POISON
        dims = [self.const_int(d, "a register view extent") for d in node.args]
        if None in dims:
            return POISON
        shape = tuple(dims) if dims else (span_elems,)
        if any(d <= 0 for d in shape):
            self.diags.error("E0514", f"register view extents must be positive, got {shape}", node.span)
            return POISON
        new_shape = tuple(ir.IntImm(INT32, d) for d in shape)
        layout = None
        if layout_node is not None:
            layout = self.layout_arg(layout_node, new_shape, buf.dtype, "local", node.span)
            if layout is POISON:
                return POISON
            if layouts.thread_axes(layout):
                self.diags.error("E0517", "the layout of a `local()` view maps onto this thread's registers; it "
                                          "cannot name thread axes", layout_node.span)
                return POISON
        elif prod(shape) != span_elems:
            self.diags.error("E0514", f"`{buf.name}` holds {span_elems} registers per thread, but the view has "
                                      f"{prod(shape)} elements", node.span,
                             help=f"use extents whose product is {span_elems}, or pass `layout=`")
            return POISON
        return replace(buf, name="", shape=new_shape, layout=layout, elem_offset=ir.IntImm(INT32, 0),
                       span=node.span, scalar=False)

    def access_ptr(self, buf: ir.Buffer, node):
        """`B.access_ptr(mask, ptr_type="handle", content_lanes=1, offset=0, extent=None)`: the
        address of element `offset` of the buffer's storage order, for passing a region to a call."""
        args = self.bind_args(node, ("access_mask", "ptr_type='handle'", "content_lanes=1", "offset=0",
                                     "extent=None"), "access_ptr")
        if args is None:
            return POISON
        mask = self.const_str(args["access_mask"], "the access mask")
        if mask is None:
            return POISON
        if mask not in ("r", "w", "rw"):
            self.diags.error("E0305", f"access mask \"{mask}\" is not \"r\", \"w\" or \"rw\"",
                             args["access_mask"].span)
            return POISON
        if buf.scope == "tmem" and not self.direct_access_ok(buf, node.span, "addressed"):
            return POISON
        offset = ir.IntImm(INT32, 0) if is_default(args["offset"]) else self.int_value(args["offset"])
        if offset is POISON:
            return POISON
        if ir.is_const(offset, 0):
            return ir.BufferAddress(HANDLE, buf, None, node.span)
        flat = replace(buf, name=buf.name, shape=(ir.IntImm(INT32, 1 << 30),), layout=None)
        return ir.BufferAddress(HANDLE, flat, (offset,), node.span)

    def compose_layout(self, node: ast.Call):
        """`ComposeLayout(per_element, swizzle_len, atom_len, tile_layout, swizzle_inner=True)`: an XOR
        swizzle of the element address a memory tile layout gives (reference 3.6)."""
        args = self.bind_args(node, ("per_element", "swizzle_len", "atom_len", "tile_layout",
                                     "swizzle_inner=True"), "ComposeLayout")
        if args is None:
            return POISON
        numbers = [self.const_int(args[k], f"`{k}`") for k in ("per_element", "swizzle_len", "atom_len")]
        if None in numbers:
            return POISON
        per_element, length, atom = numbers
        if min(numbers) < 0 or length > atom:
            self.diags.error("E0517", f"a swizzle needs 0 <= swizzle_len <= atom_len, got swizzle_len={length}, "
                                      f"atom_len={atom}", node.span,
                             help="the bits folded in ([atom_len, atom_len + swizzle_len)) must not overlap the "
                                  "bits they fold into ([0, swizzle_len))")
            return POISON
        if per_element + atom + length > 31:
            self.diags.error("E0517", f"this swizzle reaches bit {per_element + atom + length} of the element index, "
                                      "which is a 32-bit int", node.span,
                             help="per_element + atom_len + swizzle_len must be at most 31")
            return POISON
        inner = True
        if not is_default(args["swizzle_inner"]):
            flag = self.elab(args["swizzle_inner"])
            if not (isinstance(flag, PyConst) and isinstance(flag.value, bool)):
                self.diags.error("E0305", "`swizzle_inner` is True or False", args["swizzle_inner"].span)
                return POISON
            inner = flag.value
        tile = self.elab(args["tile_layout"])
        if isinstance(tile, LayoutPart):
            tile = self.make_layout(tile, args["tile_layout"])
        if not isinstance(tile, LayoutVal) or tile.layout.swizzle is not None or not layouts.is_memory_only(tile.layout):
            if tile is not POISON:
                self.diags.error("E0517", "`ComposeLayout` wraps a memory `TileLayout(S[...])`", args["tile_layout"].span)
            return POISON
        base = tile.layout
        return LayoutVal(ir.Layout(base.shard, base.replica, base.offset, (per_element, length, atom, inner),
                                   self.source_text(node.span)))

