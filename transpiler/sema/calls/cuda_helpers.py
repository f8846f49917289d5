"""The `T.cuda.*` helper library: mbarrier waits, wgmma / tcgen05 descriptors and fences,
address conversions, `__ldg`, timers, packed float2 / bfloat16x2 / fp8 conversions, fast
math, warp and CTA reductions, special registers. Each call becomes a call of a CUDA
builtin or of a helper of target/cuda_lib.py, with TIRx's argument order, keywords and
result dtype (as TVM's own `T.cuda` op definitions give it)."""
from __future__ import annotations

from transpiler import ir
from transpiler.syntax import ast
from transpiler.target import cuda_lib
from transpiler.target.dtypes import FLOAT32, HANDLE, INT32, UINT32, VOID, parse_dtype
from transpiler.sema import state, registry
from transpiler.sema.expressions import expr, scalars
from transpiler.sema.library.class_values import Instance
from transpiler.sema.memory import typed_pointers
from transpiler.evaluator.values import POISON, PyConst, Void
from transpiler.sema.values import Pointer
from transpiler.sema.registry import handler, is_default

UINT64 = parse_dtype("uint64")
SHARED = ("shared", "shared.dyn")


# -- arguments -------------------------------------------------------------------------------------
def pointer(st, node, what: str, scopes=None, dtype=None, val=None):
    """A pointer argument (`A.data`, `A.ptr_to([i])`, `T.address_of(x)`, `A.access_ptr(...)`),
    optionally into one of `scopes` and to elements of `dtype`; POISON on error. `val`: the
    argument already elaborated."""
    val = expr.elab(st, node) if val is None else val
    if isinstance(val, Pointer):
        val = ir.BufferAddress(HANDLE, val.buffer, None, node.span)
    if val is POISON:
        return POISON
    val = typed_pointers.operand_address(val, node.span)
    if typed_pointers.is_address(val):  # made from an integer: its space and element type are the author's
        return val
    if not isinstance(val, ir.BufferAddress):
        st.diags.error("E0720", f"{what} must be a pointer", node.span,
                       help="pass `A.data`, `A.ptr_to([i])` or `T.address_of(A[i])`")
        return POISON
    buf = val.buffer
    if scopes is not None and buf.scope not in scopes:
        st.diags.error("E0720", f"{what} must point into {scopes[0]} memory, but `{buf.name}` is in {buf.scope} "
                                f"memory", node.span)
        return POISON
    if dtype is not None and buf.dtype != dtype:
        st.diags.error("E0721", f"{what} must point to {dtype}, but `{buf.name}` holds {buf.dtype}", node.span,
                       help=f"declare it as \"{dtype}\"")
        return POISON
    return val


def int_arg(st, node, dtype=INT32):
    """An integer value converted to `dtype` (a literal or an int32 expression); POISON on error."""
    if is_default(node):
        return ir.const(node.value() or 0, dtype)
    val = expr.value(st, node, dtype)
    if val is POISON:
        return POISON
    if not val.dtype.is_int or val.dtype.lanes != 1:
        st.diags.error("E0721", f"expected an integer, found {val.dtype}", node.span)
        return POISON
    return ir.cast(dtype, val)


def float_arg(st, node):
    val = expr.value(st, node, FLOAT32)
    if val is POISON:
        return POISON
    if val.dtype != FLOAT32:
        st.diags.error("E0721", f"expected a float32 value, found {val.dtype}", node.span,
                       help="convert it: `T.float32(x)`")
        return POISON
    return val


def typed_arg(st, node, dtype):
    """A value of exactly `dtype` (literals take it); POISON on error."""
    val = expr.value(st, node, dtype)
    if val is POISON:
        return POISON
    if val.dtype != dtype:
        if isinstance(val, ir.IntImm) and dtype.is_int:
            return ir.cast(dtype, val)
        st.diags.error("E0721", f"expected {dtype}, found {val.dtype}", node.span,
                       help=f"convert it: `T.reinterpret(\"{dtype}\", x)` or `T.cast(x, \"{dtype}\")`")
        return POISON
    return val


def const_choice(st, node, what: str, choices):
    """A compile-time int or str among `choices`; None on error."""
    val = node.value() if is_default(node) else None
    if val is None:
        got = expr.elab(st, node)
        if got is POISON:
            return None
        if isinstance(got, ir.IntImm):
            val = got.value
        elif isinstance(got, PyConst) and isinstance(got.value, (int, str)) and not isinstance(got.value, bool):
            val = got.value
        else:
            st.diags.error("E0722", f"{what} is a compile-time constant", node.span)
            return None
    if val not in choices:
        st.diags.error("E0722", f"{what} is {val!r}; expected one of {', '.join(map(repr, choices))}",
                       node.span)
        return None
    return val


def call(st, node, dtype, name, args, what: str = "", feature: str | None = None):
    """A call of the helper or CUDA function `name`; the kernel then needs the FEATURES row
    `feature`, by default the helper's own (target/cuda_lib.py)."""
    if POISON in args:
        return POISON
    feature = feature or (cuda_lib.LIBRARY[name].feature if name in cuda_lib.LIBRARY else "base")
    if feature != "base":
        state.require(st, feature, what or f"`{name}`", node.span)
    c = ir.Call(dtype, name, tuple(args), node.span)
    return Void(ir.Evaluate(c, node.span)) if dtype == VOID else c


# -- mbarrier waits ------------------------------------------------------------------------------------
def _mbarrier_wait(st, node, a, helper: str, what: str):
    bar_val = expr.elab(st, a["bar"])
    if isinstance(bar_val, ir.Expr) and not isinstance(bar_val, ir.BufferAddress) and bar_val.dtype == UINT32 \
            and helper == "tirx_cuda_mbarrier_wait":
        bar, helper = bar_val, "tirx_cuda_mbarrier_wait_u32"  # a shared-window address (TIRx's raw form)
    else:
        bar = pointer(st, a["bar"], "the barrier", SHARED, UINT64, bar_val)
    return call(st, node, VOID, helper, [bar, int_arg(st, a["phase"])], what)


@handler("cuda.mbarrier_wait", "bar", "phase")
def _wait(st, node, a):
    return _mbarrier_wait(st, node, a, "tirx_cuda_mbarrier_wait", "`T.cuda.mbarrier_wait`")


@handler("cuda.mbarrier_wait_acquire_cluster", "bar", "phase")
def _wait_cluster(st, node, a):
    return _mbarrier_wait(st, node, a, "tirx_cuda_mbarrier_wait_acquire_cluster",
                          "`T.cuda.mbarrier_wait_acquire_cluster`")


# -- wgmma / tcgen05 companions -------------------------------------------------------------------------
@handler("cuda.wgmma.noop_barrier", "reg")
def _noop_barrier(st, node, a):
    reg = expr.elab(st, a["reg"])
    if reg is POISON:
        return POISON
    if not (isinstance(reg, ir.BufferLoad) and reg.buffer.scope == "local"):
        st.diags.error("E0721", "`T.cuda.wgmma.noop_barrier` fences a register: pass an element of a local "
                                "buffer, such as `C_local[i]`", a["reg"].span)
        return POISON
    helper = {"float32": "tirx_cuda_wgmma_fence_f32", "uint32": "tirx_cuda_wgmma_fence_u32"}.get(reg.dtype.name)
    if helper is None:
        st.diags.error("E0721", f"`T.cuda.wgmma.noop_barrier` fences a float32 or uint32 register, not "
                                f"{reg.dtype}", a["reg"].span)
        return POISON
    return call(st, node, VOID, helper, [reg])


def _descriptor(st, a, layouts: dict):
    addr = pointer(st, a["addr"], "the matrix address", SHARED)
    ldo, sdo = int_arg(st, a["ldo"]), int_arg(st, a["sdo"])
    swizzle = int_arg(st, a["swizzle"])
    if isinstance(swizzle, ir.IntImm) and swizzle.value not in layouts:
        st.diags.error("E0722", f"swizzle mode {swizzle.value}: expected one of "
                                f"{', '.join(map(str, layouts))} (none, 32B, 64B, 128B"
                                f"{', 128B with 32B atoms' if len(layouts) > 4 else ''})", a["swizzle"].span)
        return [POISON]
    return [addr, ldo, sdo, swizzle]


def _encode(st, node, a, helper, layouts):
    """`encode_matrix_descriptor(desc, addr, ldo, sdo, swizzle)`: `*desc = <descriptor>`."""
    desc = pointer(st, a["desc"], "the descriptor", None, UINT64)
    args = _descriptor(st, a, layouts)
    if POISON in args or desc is POISON:
        return POISON
    value = ir.Call(UINT64, helper, tuple(args), node.span)
    buf = desc.buffer
    indices = desc.indices if desc.indices is not None else tuple(ir.IntImm(INT32, 0) for _ in buf.shape)
    return Void(ir.BufferStore(buf, indices, value, node.span))


@handler("cuda.wgmma.encode_matrix_descriptor", "desc", "addr", "ldo", "sdo", "swizzle")
def _wgmma_encode(st, node, a):
    return _encode(st, node, a, "tirx_cuda_wgmma_make_desc", cuda_lib.WGMMA_LAYOUT)


@handler("cuda.wgmma.make_matrix_descriptor", "addr", "ldo", "sdo", "swizzle")
def _wgmma_make(st, node, a):
    return call(st, node, UINT64, "tirx_cuda_wgmma_make_desc", _descriptor(st, a, cuda_lib.WGMMA_LAYOUT))


@handler("cuda.tcgen05.encode_matrix_descriptor", "desc", "addr", "ldo", "sdo", "swizzle")
def _tcgen05_encode(st, node, a):
    return _encode(st, node, a, "tirx_cuda_tcgen05_make_desc", cuda_lib.TCGEN05_LAYOUT)


@handler("cuda.tcgen05.make_matrix_descriptor", "addr", "ldo", "sdo", "swizzle")
def _tcgen05_make(st, node, a):
    return call(st, node, UINT64, "tirx_cuda_tcgen05_make_desc", _descriptor(st, a, cuda_lib.TCGEN05_LAYOUT))


@handler("cuda.get_tmem_addr", "addr", "row_offset", "col_offset")
def _get_tmem_addr(st, node, a):
    return call(st, node, UINT32, "tirx_cuda_get_tmem_addr",
                [typed_arg(st, a["addr"], UINT32), int_arg(st, a["row_offset"]), int_arg(st, a["col_offset"])])


# -- addresses, loads, timers -----------------------------------------------------------------------------
@handler("cuda.cvta_generic_to_shared", "ptr")
def _cvta(st, node, a):
    return call(st, node, UINT32, "tirx_cuda_cvta_generic_to_shared", [pointer(st, a["ptr"], "the argument", SHARED)])


@handler("cuda.sm100_2sm_leader_smem_addr", "ptr")
def _leader_smem_addr(st, node, a):
    addr = _cvta(st, node, a)
    return POISON if addr is POISON else ir.binop("&", addr, ir.const(0xFEFFFFFF, UINT32), node.span)


@handler("cuda.smem_addr_from_uint64", "cluster_addr")
def _smem_addr_from_uint64(st, node, a):
    val = typed_arg(st, a["cluster_addr"], UINT64)
    return POISON if val is POISON else ir.cast(UINT32, val, node.span)




@handler("cuda.ldg", "addr", "dtype=None", "dst=None", "vec=''")
def _ldg(st, node, a):
    """`T.cuda.ldg(addr, dtype)` (dtype defaults to the pointee's) or the vector form
    `T.cuda.ldg(addr, dtype, dst=(p0, p1), vec="v2")` storing through the `dst` pointers."""
    src = pointer(st, a["addr"], "the address", ("global",))
    if src is POISON:
        return POISON
    dtype = src.buffer.dtype if is_default(a["dtype"]) else expr.dtype_arg(st, a["dtype"])
    if dtype is None:
        return POISON
    vec = const_choice(st, a["vec"], "`vec`", ("", "v2", "v4"))
    if vec is None:
        return POISON
    if dtype.name not in cuda_lib.LDG:
        st.diags.error("E0721", f"`__ldg` loads {', '.join(cuda_lib.LDG)}, not {dtype}",
                       node.span if is_default(a["dtype"]) else a["dtype"].span)
        return POISON
    if not vec:
        if not is_default(a["dst"]):
            st.diags.error("E0722", "`dst=` goes with `vec=\"v2\"` or `vec=\"v4\"`", a["dst"].span)
            return POISON
        return call(st, node, dtype, cuda_lib.ldg_helper(dtype.name), [src])
    if dtype.name not in cuda_lib.LDG_VECTOR:
        st.diags.error("E0721", f"vector `__ldg` loads int32, uint32 or float32, not {dtype}", node.span)
        return POISON
    lanes = int(vec[1:])
    dst_node = a["dst"]
    if is_default(dst_node) or not hasattr(dst_node, "elts") or len(dst_node.elts) != lanes:
        st.diags.error("E0722", f"`vec=\"{vec}\"` stores through {lanes} pointers: `dst=({', '.join(f'p{i}' for i in range(lanes))})`",
                       dst_node.span if not is_default(dst_node) else node.span)
        return POISON
    dsts = [pointer(st, d, f"`dst[{i}]`", None, dtype) for i, d in enumerate(dst_node.elts)]
    return call(st, node, VOID, cuda_lib.ldg_helper(dtype.name, lanes), dsts + [src])


@handler("cuda.clock64")
def _clock64(st, node, a):
    return call(st, node, UINT64, "tirx_cuda_clock64", [])


# -- the profiler's timer ring (target/cuda_lib.py; tvm.tirx.bench.CudaProfiler calls them) -----------------
def _ring(st, a) -> list:
    """The buffer, tag and write-offset pointers every timer call takes."""
    return [pointer(st, a["profiler_buffer"], "`profiler_buffer`", None, UINT64),
            pointer(st, a["profiler_tag"], "`profiler_tag`", ("local",), UINT64),
            pointer(st, a["profiler_write_offset"], "`profiler_write_offset`", ("local",), UINT32)]


def _event(st, node):
    """An event: a member of an Enum class (its value, as TIRx takes `event_type.value`) or an integer."""
    val = expr.elab(st, node)
    if isinstance(val, Instance) and val.cls.enum is not None:
        val = val.attrs["value"]
    return int_arg(st, ast.Value(node.span, val)) if val is not POISON else POISON


_RING = ("profiler_buffer", "profiler_tag", "profiler_write_offset")


@handler("cuda.timer_init", *_RING, "num_groups", "group_id")
def _timer_init(st, node, a):
    return call(st, node, VOID, "tirx_cuda_timer_init",
                _ring(st, a) + [int_arg(st, a["num_groups"]), int_arg(st, a["group_id"])])


def _timer(name: str, event: bool):
    def fn(st, node, a):
        head = [_event(st, a["event_type"])] if event else []
        tail = [int_arg(st, a["profiler_write_stride"]), scalars.condition(st, expr.elab(st, a["leader_cond"]),
                                                                          a["leader_cond"].span)]
        return call(st, node, VOID, f"tirx_cuda_timer_{name}", head + _ring(st, a) + tail)
    fn.__name__ = f"_timer_{name}"
    params = (("event_type",) if event else ()) + _RING + ("profiler_write_stride", "leader_cond")
    registry.HANDLERS[f"cuda.timer_{name}"] = (fn, params)


for _name in ("start", "end", "finalize"):
    _timer(_name, _name != "finalize")


@handler("cuda.mov_sreg", "bits", "reg_name")
def _mov_sreg(st, node, a):
    bits = const_choice(st, a["bits"], "the register width", (32, 64))
    name = expr.const_str(st, a["reg_name"], "the special register's name")
    if bits is None or name is None:
        return POISON
    if name not in cuda_lib.SREGS:
        from transpiler.diag.diagnostics import did_you_mean
        st.diags.error("E0722", f"`%{name}` is not a special register tirxc knows", a["reg_name"].span,
                       help=did_you_mean(name, list(cuda_lib.SREGS)))
        return POISON
    width, _ = cuda_lib.SREGS[name]
    if width != bits:
        st.diags.error("E0722", f"`%{name}` is a {width}-bit register", a["bits"].span)
        return POISON
    raw = call(st, node, UINT64 if bits == 64 else UINT32, cuda_lib.sreg_helper(name), [], f"`%{name}`")
    # TIRx types the result as a signed integer of the register's width
    return POISON if raw is POISON else ir.cast(parse_dtype(f"int{bits}"), raw, node.span)


@handler("cuda.thread_rank")
def _thread_rank(st, node, a):
    return call(st, node, INT32, "tirx_cuda_thread_rank", [])


# -- fast math and bit casts -----------------------------------------------------------------------------
@handler("cuda.fdividef", "x", "y")
def _fdividef(st, node, a):
    return call(st, node, FLOAT32, "__fdividef", [float_arg(st, a["x"]), float_arg(st, a["y"])])


@handler("cuda.ffs_u32", "value")
def _ffs(st, node, a):
    val = typed_arg(st, a["value"], UINT32)
    return call(st, node, INT32, "__ffs", [POISON if val is POISON else ir.cast(INT32, val)])


@handler("cuda.uint_as_float", "bits")
def _uint_as_float(st, node, a):
    val = typed_arg(st, a["bits"], UINT32)
    return POISON if val is POISON else ir.Reinterpret(FLOAT32, val, node.span)


@handler("cuda.float_as_uint", "x")
def _float_as_uint(st, node, a):
    val = float_arg(st, a["x"])
    return POISON if val is POISON else ir.Reinterpret(UINT32, val, node.span)


@handler("cuda.reduce_add_sync_u32", "mask", "value")
def _reduce_add(st, node, a):
    return call(st, node, UINT32, "__reduce_add_sync", [typed_arg(st, a["mask"], UINT32),
                                                        typed_arg(st, a["value"], UINT32)],
                "`T.cuda.reduce_add_sync_u32`", "redux")


@handler("cuda.reduce_min_sync_u32", "mask", "value")
def _reduce_min(st, node, a):
    return call(st, node, UINT32, "__reduce_min_sync", [typed_arg(st, a["mask"], UINT32),
                                                        typed_arg(st, a["value"], UINT32)],
                "`T.cuda.reduce_min_sync_u32`", "redux")


# -- packed float2 (uint64), bfloat16x2 and fp8x4 (uint32) ----------------------------------------------
def _packed(name, result, params):
    def fn(st, node, a):
        args = [float_arg(st, a[p]) if kind == "f32" else typed_arg(st, a[p], UINT64 if kind == "u64" else UINT32)
                for p, kind in params]
        return call(st, node, result, f"tirx_cuda_{name}", args, f"`T.cuda.{name}`")
    fn.__name__ = f"_{name}"
    handler(f"cuda.{name}", *(p for p, _ in params))(fn)


_packed("make_float2", UINT64, (("x", "f32"), ("y", "f32")))
_packed("float2_x", FLOAT32, (("packed", "u64"),))
_packed("float2_y", FLOAT32, (("packed", "u64"),))
_packed("fmul2_rn", UINT64, (("a", "u64"), ("b", "u64")))
_packed("fadd2_rn", UINT64, (("a", "u64"), ("b", "u64")))
_packed("float22bfloat162_rn", UINT32, (("v0", "f32"), ("v1", "f32")))
_packed("bfloat1622float2", UINT64, (("packed", "u32"),))
_packed("hmin2", UINT32, (("a", "u32"), ("b", "u32")))
_packed("hmax2", UINT32, (("a", "u32"), ("b", "u32")))
_packed("fp8x4_e4m3_from_float4", UINT32, (("x", "f32"), ("y", "f32"), ("z", "f32"), ("w", "f32")))


@handler("cuda.float22bfloat162_rn_from_float2", "packed")
def _bf162_from_float2(st, node, a):
    packed = typed_arg(st, a["packed"], UINT64)
    if packed is POISON:
        return POISON
    x = ir.Call(FLOAT32, "tirx_cuda_float2_x", (packed,), node.span)
    y = ir.Call(FLOAT32, "tirx_cuda_float2_y", (packed,), node.span)
    return call(st, node, UINT32, "tirx_cuda_float22bfloat162_rn", [x, y],
                "`T.cuda.float22bfloat162_rn_from_float2`")


@handler("cuda.half2float", "src")
def _half2float(st, node, a):
    return _to_float32(st, node, a, "float16")


@handler("cuda.bfloat162float", "src")
def _bfloat162float(st, node, a):
    return _to_float32(st, node, a, "bfloat16")


def _to_float32(st, node, a, dtype_name):
    val = typed_arg(st, a["src"], parse_dtype(dtype_name))
    return POISON if val is POISON else ir.cast(FLOAT32, val, node.span)


# -- warp and CTA reductions -----------------------------------------------------------------------------
_OPS = ("sum", "max", "min")


def _reduce_value(st, node):
    val = expr.value(st, node)
    if val is POISON:
        return POISON
    if val.dtype.lanes != 1 or val.dtype.kind == "handle" or val.dtype.bits < 32 or val.dtype.name == "bool":
        st.diags.error("E0721", f"a warp reduction takes a 32- or 64-bit number, not {val.dtype}", node.span,
                       help="convert it first, e.g. `T.float32(x)`")
        return POISON
    return val


def _warp_reduce(st, node, a, op):
    if op is None:
        return POISON
    width = const_choice(st, a["width"], "the reduction width", (2, 4, 8, 16, 32))
    val = _reduce_value(st, a["value"])
    if width is None or val is POISON:
        return POISON
    return ir.Call(val.dtype, f"tirx_cuda_warp_{op}", (val, ir.IntImm(INT32, width)), node.span)


def _cta_reduce(st, node, a, op):
    if op is None:
        return POISON
    warps = const_choice(st, a["num_warps"], "`num_warps`", (1, 2, 4, 8, 16, 32))
    val = _reduce_value(st, a["value"])
    scratch = pointer(st, a["scratch"], "the scratch buffer", SHARED)
    if warps is None or POISON in (val, scratch):
        return POISON
    if scratch.buffer.dtype != val.dtype:
        st.diags.error("E0721", f"the scratch buffer holds {scratch.buffer.dtype}, but the value is {val.dtype}",
                       a["scratch"].span)
        return POISON
    return ir.Call(val.dtype, f"tirx_cuda_cta_{op}", (val, ir.IntImm(INT32, warps), scratch), node.span)


@handler("cuda.warp_reduce", "value", "op", "width=32")
def _warp_reduce_op(st, node, a):
    return _warp_reduce(st, node, a, const_choice(st, a["op"], "the reduction", _OPS))


@handler("cuda.cta_reduce", "value", "op", "num_warps", "scratch")
def _cta_reduce_op(st, node, a):
    return _cta_reduce(st, node, a, const_choice(st, a["op"], "the reduction", _OPS))


for _op in _OPS:
    handler(f"cuda.warp_{_op}", "value", "width=32")(lambda st, node, a, op=_op: _warp_reduce(st, node, a, op))
    handler(f"cuda.cta_{_op}", "value", "num_warps", "scratch")(
        lambda st, node, a, op=_op: _cta_reduce(st, node, a, op))


# -- half <-> float through pointers, traps, runtime descriptor patches ------------------------------
F16 = parse_dtype("float16")


@handler("cuda.float22half2", "dst", "src")
def _float22half2(st, node, a):
    return call(st, node, VOID, "tirx_cuda_float22half2",
                [pointer(st, a["dst"], "the destination", None, F16), pointer(st, a["src"], "the source", None, FLOAT32)])


@handler("cuda.half8tofloat8", "src_addr", "dst_addr")
def _half8tofloat8(st, node, a):
    return call(st, node, VOID, "tirx_cuda_half8tofloat8", [pointer(st, a["src_addr"], "the source", None, F16),
                                                            pointer(st, a["dst_addr"], "the destination", None, FLOAT32)])


@handler("cuda.float8tohalf8", "src_addr", "dst_addr")
def _float8tohalf8(st, node, a):
    return call(st, node, VOID, "tirx_cuda_float8tohalf8", [pointer(st, a["src_addr"], "the source", None, FLOAT32),
                                                            pointer(st, a["dst_addr"], "the destination", None, F16)])


@handler("cuda.trap_when_assert_failed", "cond")
def _trap_when_assert_failed(st, node, a):
    cond = scalars.condition(st, expr.elab(st, a["cond"]), a["cond"].span)
    return call(st, node, VOID, "tirx_cuda_trap_when_assert_failed", [cond])


@handler("cuda.runtime_instr_desc", "desc", "sf_id")
def _runtime_instr_desc(st, node, a):
    return call(st, node, VOID, "tirx_cuda_runtime_instr_desc",
                [pointer(st, a["desc"], "the descriptor", None, UINT32), typed_arg(st, a["sf_id"], UINT32)])


# -- CUDA's own spellings of the shuffles --------------------------------------------------------------
def _cuda_shuffle(name):
    def fn(st, node, a):
        value = expr.value(st, a["var"])
        if value is POISON:
            return POISON
        if value.dtype.lanes != 1 or value.dtype.kind == "handle" or value.dtype.name == "bool":
            st.diags.error("E0721", f"`{name}` moves a number, not {value.dtype}", a["var"].span)
            return POISON
        args = [typed_arg(st, a["mask"], UINT32), value, int_arg(st, a["lane"]), int_arg(st, a["width"])]
        return call(st, node, value.dtype, name, args)
    handler(f"cuda.{name}", "mask", "var", "lane", "width")(fn)


for _name in ("__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync"):
    _cuda_shuffle(_name)


@handler("cuda.__activemask")
def _activemask(st, node, a):
    return call(st, node, UINT32, "__activemask", [])


# -- TIRx's T.cuda names tirxc does not implement ---------------------------------------------------------
def _unsupported(name: str, help: str | None = None) -> None:
    def fn(st, node, a):
        return registry.unsupported(st, node, f"`T.cuda.{name}`", help=help)
    fn.__name__ = "_unsupported_" + name.replace(".", "_")
    registry.HANDLERS[f"cuda.{name}"] = (fn, None)


for _name, _help in (
        ("mma_store", "use `T.ptx[\"stmatrix...\"]` or plain stores"), ("mma_fill", "fill the registers in a loop"),
        ("mma_store_legacy", None), ("mma_fill_legacy", None),
        ("iket.mark", None), ("iket.range_start", None), ("iket.range_end", None), ("iket.range_push", None),
        ("iket.range_pop", None), ("iket.sentinel_token", None), ("iket.official_event", None)):
    _unsupported(_name, _help)
