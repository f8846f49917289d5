"""T.* calls that are neither memory nor threads: casts, math, min/max, integer division,
bitwise operations, synchronisation, votes, shuffles, atomics, printf, `T.cuda.func_call`,
symbolic extents, ramps and the launch configuration."""
from __future__ import annotations

import re
from transpiler import ir
from transpiler.diag.diagnostics import Note, did_you_mean
from transpiler.syntax import ast
from transpiler.target.dtypes import (BOOL, DType, FLOAT32, HANDLE, INT32, UINT32, VOID, dtype_alias,
                                      known_dtype_names, parse_dtype)
from transpiler.sema import state, registry
from transpiler.sema.expressions import scalars, expr, effects
from transpiler.sema.calls import ptx as ptx_calls, tile_calls
from transpiler.sema.memory import retype, typed_pointers
from transpiler.sema.kernel import threads
from transpiler.evaluator import builtins as pyeval_builtins
from transpiler.evaluator.values import DTypeVal, POISON, PyConst, Void
from transpiler.sema.values import DynamicExtent, LaunchConfig, Namespace, Pointer, Ramp
from transpiler.sema.state import _SymbolicPending
from transpiler.sema.registry import MATH
from transpiler.target.cmath import PREDICATES
from transpiler.sema.registry import HANDLERS, _DefaultArg, _suggest, handler, is_default
from transpiler.evaluator.values import article
from transpiler.sema.expressions.expr import kind_of


# the fields of the wheel's `T.cuda.LaunchConfig` besides grid and block, none of which tirxc supports
# (dynamic_smem_bytes is checked against the arena; the launcher decides the rest)
LAUNCH_EXTRA_FIELDS = ("cluster", "preferred_cluster", "dynamic_smem_bytes", "stream", "cooperative",
                       "programmatic_stream_serialization", "cluster_scheduling_policy", "priority",
                       "mem_sync_domain", "mem_sync_domain_map", "access_policy_window",
                       "preferred_shared_memory_carveout", "nvlink_util_centric_scheduling",
                       "portable_cluster_size_mode", "shared_memory_mode", "programmatic_event",
                       "launch_completion_event")


C_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


C_KEYWORDS = frozenset("""
auto break case char const continue default do double else enum extern float for goto if inline int long
register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while
bool class namespace template typename new delete this true false operator private public protected virtual
""".split())


def call_dialect(st, func: Namespace, node: ast.Call):
    dotted = func.dotted
    if func.path[0] == "Tx":
        return tile_calls.tile_call(st, func.path, node)
    if dotted in MATH:
        return math(st, dotted, node)
    if func.path[1:2] == ("ptx",):
        if len(func.path) == 2:
            st.diags.error("E0601", "`T.ptx` needs an instruction: `T.ptx[\"mnemonic\"](...)` or "
                                      "`T.ptx.tcgen05.alloc(...)`", node.span)
            return POISON
        return ptx_calls.ptx_call(st, func.path[2:], node)
    if dotted == "Tensor":
        st.diags.error("E0525", "`T.Tensor(...)` is a tensor type, not a value", node.span,
                         help="use it as a parameter annotation or in `ty_args=[...]` of `T.alloc_tensor` / "
                              "`T.decl_tensor`")
        return POISON
    if dotted not in HANDLERS and dotted in registry.KNOWN_UNSUPPORTED:
        return registry.unsupported(st, node, f"`T.{dotted}`", help=registry.KNOWN_UNSUPPORTED[dotted])
    if dotted not in HANDLERS:
        st.diags.error("E0301", f"`T.{dotted}` is not a function", node.func.span,
                         help=_suggest(dotted, list(HANDLERS) + list(MATH), "T"))
        return POISON
    fn, params = HANDLERS[dotted]
    if params is None:  # an unsupported call: said so whatever its arguments are
        return fn(st, node, {})
    args = registry.bind_args(st, node, params, f"T.{dotted}")
    if args is None:
        return POISON
    return fn(st, node, args)


# -- values, casts and math ----------------------------------------------------------------------
def arg_value(st, arg, dtype=None):
    if isinstance(arg, _DefaultArg):
        return scalars.as_value(st, PyConst(arg.value()), ir.NOWHERE, dtype)
    return expr.value(st, arg, dtype)


def call_dtype(st, dtype: DType, node: ast.Call):
    if not node.args and not node.keywords:
        return symbolic_var(st, dtype, node)
    if len(node.args) != 1 or node.keywords:
        st.diags.error("E0305", f"`T.{dtype}(x)` takes one argument", node.span)
        return POISON
    arg = expr.elab(st, node.args[0])
    if isinstance(arg, PyConst):
        v = arg.value
        if isinstance(v, str) and dtype.is_float:
            special = {"inf": float("inf"), "-inf": float("-inf"), "nan": float("nan")}.get(v.lower())
            if special is None:
                st.diags.error("E0305", f"`T.{dtype}` takes \"inf\", \"-inf\" or \"nan\" as a string",
                                 node.args[0].span)
                return POISON
            return ir.FloatImm(dtype, special, node.span)
        if isinstance(v, float) and dtype.is_int:
            if v != v or v in (float("inf"), float("-inf")) or v != int(v):
                st.diags.error("E0303", f"`T.{dtype}({v!r})`: {v!r} is not an integer", node.span,
                                 help=f"write `T.{dtype}({int(v) if v == v and abs(v) != float('inf') else 0})`"
                                      f", or convert a float expression with `T.{dtype}(x)`")
                return POISON
            return scalars.literal(st, int(v), dtype, node.span)
        return scalars.literal(st, v, dtype, node.span)
    val = scalars.as_value(st, arg, node.args[0].span)
    if val is POISON:
        return POISON
    return ir.cast(dtype, val, node.span)


def math(st, name: str, node: ast.Call):
    arity, float_only = MATH[name]
    if len(node.args) != arity or node.keywords:
        st.diags.error("E0305", f"`T.{name}` takes {arity} argument{'s' if arity != 1 else ''}", node.span)
        return POISON
    vals = [expr.elab(st, a) for a in node.args]
    typed = next((v for v in vals if isinstance(v, ir.Expr)), None)
    dtype = typed.dtype if typed is not None else (FLOAT32 if float_only else None)
    args = [scalars.as_value(st, v, a.span, dtype) for v, a in zip(vals, node.args)]
    if POISON in args:
        return POISON
    for a, n in zip(args, node.args):
        if a.dtype != args[0].dtype:
            st.diags.error("E0303", f"`T.{name}` arguments have different dtypes: {args[0].dtype} and "
                                      f"{a.dtype}", n.span)
            return POISON
    if float_only and not args[0].dtype.is_float:
        st.diags.error("E0309", f"`T.{name}` needs a floating-point argument, found {args[0].dtype}",
                         node.args[0].span, help=f"convert it first: `T.{name}(T.float32(x))`")
        return POISON
    if name in ("clz", "popcount") and not args[0].dtype.is_int:
        st.diags.error("E0309", f"`T.{name}` needs an integer argument", node.args[0].span)
        return POISON
    result = BOOL if name in PREDICATES else INT32 if name in ("clz", "popcount") else args[0].dtype
    return ir.Call(result, "math:" + name, tuple(args), node.span)


@handler("cast", "x", "dtype")
def _cast(st, node, a):
    target = expr.elab(st, a["dtype"])
    if isinstance(target, typed_pointers.PointerTypeVal):  # `T.cast(u64, PointerType(...))`
        return typed_pointers.reinterpret(st, node, target, expr.elab(st, a["x"]), {**a, "dtype": a["dtype"]})
    dtype = expr.dtype_arg(st, ast.Value(a["dtype"].span, target))
    val = expr.value(st, a["x"])
    if dtype is None or val is POISON:
        return POISON
    return ir.cast(dtype, val, node.span)


@handler("Cast", "dtype", "x")
def _cast_upper(st, node, a):
    return _cast(st, node, a)


@handler("reinterpret", "dtype", "x")
def _reinterpret(st, node, a):
    target, source = expr.elab(st, a["dtype"]), expr.elab(st, a["x"])
    if isinstance(target, typed_pointers.PointerTypeVal):  # `PointerType(PrimType("int32"))`
        return typed_pointers.reinterpret(st, node, target, source, a)
    if isinstance(source, Pointer) or (isinstance(target, PyConst) and target.value == "handle") \
            or (isinstance(target, DTypeVal) and target.dtype.kind == "handle"):
        return retype.reinterpret_pointer(st, node, target, source, a)
    dtype = expr.dtype_arg(st, ast.Value(a["dtype"].span, target))
    val = scalars.as_value(st, source, a["x"].span)
    if dtype is None or val is POISON:
        return POISON
    if dtype.nbytes != val.dtype.nbytes:
        st.diags.error("E0303", f"cannot reinterpret {val.dtype} ({val.dtype.nbytes} bytes) as {dtype} "
                                  f"({dtype.nbytes} bytes)", node.span)
        return POISON
    return ir.Reinterpret(dtype, val, node.span)


def _two_values(st, a, b, span):
    x, y = expr.elab(st, a), expr.elab(st, b)
    if isinstance(x, PyConst) and isinstance(y, PyConst):
        return x, y
    return scalars.unify(st, x, y, a.span, b.span)


@handler("min", "a", "b")
def _min(st, node, a):
    return _minmax(st, "min", node, a)


@handler("max", "a", "b")
def _max(st, node, a):
    return _minmax(st, "max", node, a)


def _minmax(st, op, node, a):
    x, y = _two_values(st, a["a"], a["b"], node.span)
    if POISON in (x, y):
        return POISON
    if isinstance(x, PyConst):
        if not all(isinstance(v.value, (int, float)) for v in (x, y)):
            st.diags.error("E0306", f"`T.{op}` needs numbers", node.span)
            return POISON
        return PyConst(min(x.value, y.value) if op == "min" else max(x.value, y.value))
    if x.dtype.lanes > 1 or x.dtype.kind == "handle":
        st.diags.error("E0309", f"`T.{op}` needs scalar numbers, found {x.dtype}", node.span)
        return POISON
    return ir.binop(op, x, y, node.span)


@handler("if_then_else", "cond", "true_value", "false_value")
def _if_then_else(st, node, a):
    cond = scalars.condition(st, expr.elab(st, a["cond"]), a["cond"].span)
    with effects.Lazy(st, cond):  # printed as `c ? x : y`: each value runs only when selected
        x = expr.elab(st, a["true_value"])
    with effects.Lazy(st, effects.negate(cond)):
        y = expr.elab(st, a["false_value"])
    x, y = scalars.unify(st, x, y, a["true_value"].span, a["false_value"].span)
    if POISON in (cond, x, y):
        return POISON
    return ir.select(cond, x, y, node.span)


@handler("Select", "cond", "true_value", "false_value")
def _select(st, node, a):
    return _if_then_else(st, node, a)


def _int_pair(st, op, node, a):
    x, y = _two_values(st, a["a"], a["b"], node.span)
    if POISON in (x, y):
        return POISON
    return scalars.arith(st, op, x, y, node.span, a["a"].span, a["b"].span)


@handler("floordiv", "a", "b")
def _floordiv(st, node, a):
    return _int_pair(st, "floordiv", node, a)


@handler("floormod", "a", "b")
def _floormod(st, node, a):
    return _int_pair(st, "floormod", node, a)


@handler("truncdiv", "a", "b")
def _truncdiv(st, node, a):
    return _trunc(st, "truncdiv", node, a)


@handler("truncmod", "a", "b")
def _truncmod(st, node, a):
    return _trunc(st, "truncmod", node, a)


def _trunc(st, op, node, a):
    x, y = _int_operands(st, op, node, a)
    if x is POISON or not _divisor_in_copies(st, op, x, y, a):
        return POISON
    return effects.binop(st, op, x, y, node.span)  # `T.truncmod(f(), 1)`: f() still runs


def _divisor_in_copies(st, op, x, y, a) -> bool:
    """A divisor that becomes a constant in `T.unroll` copies is not 0 in those that run it."""
    if not st.unroll_vars or isinstance(y, ir.IntImm):
        return True
    return scalars.checked_in_copies(st, op, y, x.dtype, a["a"].span, a["b"].span)


def _int_operands(st, op, node, a, values=None):
    """Two integer operands of one dtype and a divisor that is not a constant zero; POISONs on error.
    values: the operands as _two_values checked them already (each argument is checked once)."""
    x, y = _two_values(st, a["a"], a["b"], node.span) if values is None else values
    if isinstance(x, PyConst):  # both constants
        x, y = scalars.as_value(st, x, a["a"].span), scalars.as_value(st, y, a["b"].span)
    if POISON in (x, y):
        return POISON, POISON
    if not (x.dtype.is_int and y.dtype.is_int and x.dtype.lanes == 1 and y.dtype.lanes == 1):
        st.diags.error("E0309", f"`T.{op}` needs integers", node.span)
        return POISON, POISON
    if x.dtype != y.dtype:
        st.diags.error("E0303", f"operands have different dtypes: {x.dtype} and {y.dtype}", node.span,
                         help=scalars.conversion_help(st, x.dtype, y.dtype, a["a"].span, a["b"].span))
        return POISON, POISON
    if isinstance(y, ir.IntImm) and y.value == 0:
        st.diags.error("E0306", "integer division by zero", a["b"].span)
        return POISON, POISON
    return x, y


@handler("ceildiv", "a", "b")
def _ceildiv(st, node, a):
    x, y = _two_values(st, a["a"], a["b"], node.span)
    if isinstance(x, PyConst) and all(type(v.value) is int for v in (x, y)) and y.value != 0:
        return PyConst(-(-x.value // y.value))  # a compile-time constant, e.g. for extents
    x, y = _int_operands(st, "ceildiv", node, a, (x, y))
    if x is POISON or not _divisor_in_copies(st, "floordiv", x, y, a):
        return POISON
    # `(x + y - 1) // y` uses the divisor twice: evaluated once (effects.py)
    shared = effects.share(st, [x, y], (1,), "a `T.ceildiv` whose divisor has side effects", a["b"].span)
    if shared is None:
        return POISON
    x, y = shared
    one = ir.const(1, x.dtype)
    return ir.binop("floordiv", ir.binop("-", ir.add(x, y), one), y, node.span)


def _bitwise(st, op, node, a):
    x, y = _two_values(st, a["a"], a["b"], node.span)
    return scalars.arith(st, op, x, y, node.span, a["a"].span, a["b"].span)


@handler("bitwise_and", "a", "b")
def _bitwise_and(st, node, a):
    return _bitwise(st, "&", node, a)


@handler("bitwise_or", "a", "b")
def _bitwise_or(st, node, a):
    return _bitwise(st, "|", node, a)


@handler("bitwise_xor", "a", "b")
def _bitwise_xor(st, node, a):
    return _bitwise(st, "^", node, a)


@handler("shift_left", "a", "b")
def _shift_left(st, node, a):
    return _bitwise(st, "<<", node, a)


@handler("shift_right", "a", "b")
def _shift_right(st, node, a):
    return _bitwise(st, ">>", node, a)


@handler("bitwise_not", "a")
def _bitwise_not(st, node, a):
    val = expr.value(st, a["a"])
    if val is POISON:
        return POISON
    if not val.dtype.is_int:
        st.diags.error("E0309", "`T.bitwise_not` needs an integer", node.span)
        return POISON
    return ir.unary("~", val, node.span)


@handler("likely", "cond")
def _likely(st, node, a):
    return scalars.condition(st, expr.elab(st, a["cond"]), a["cond"].span)


@handler("meta_var", "value")
def _meta_var(st, node, a):
    # dispatch.py sends `T.meta_var(...)` to the evaluator's meta_var before any handler; this row names it in
    # the handler table (suggestions, the construct tables)
    return pyeval_builtins.meta_var(st, node)


@handler("func_attr", "attrs")
def _func_attr(st, node, a):
    return Void(ir.Seq(()))


# -- synchronisation and warp-level ---------------------------------------------------------------
def _void_call(st, name, args, node):
    return Void(ir.Evaluate(ir.Call(VOID, name, tuple(args), node.span), node.span))


@handler("cuda.cta_sync")
def _cta_sync(st, node, a):
    return _void_call(st, "__syncthreads", (), node)


@handler("tvm_storage_sync", "scope='shared'")
def _storage_sync(st, node, a):
    return _void_call(st, "__syncthreads", (), node)


@handler("cuda.warp_sync", "mask=0xFFFFFFFF")
def _warp_sync(st, node, a):
    if isinstance(a["mask"], _DefaultArg):
        return _void_call(st, "__syncwarp", (), node)
    mask = arg_value(st, a["mask"], UINT32)
    return POISON if mask is POISON else _void_call(st, "__syncwarp", (mask,), node)


@handler("cuda.thread_fence")
def _thread_fence(st, node, a):
    return _void_call(st, "__threadfence", (), node)


@handler("cuda.thread_fence_block")
def _thread_fence_block(st, node, a):
    return _void_call(st, "__threadfence_block", (), node)


@handler("cuda.warpgroup_sync", "barrier_id")
def _warpgroup_sync(st, node, a):
    bar = expr.const_int(st, a["barrier_id"], "a named barrier id")
    if bar is None:
        return POISON
    if not 1 <= bar <= 15:
        st.diags.error("E0305", f"named barrier id {bar} is outside 1..15 (0 is `__syncthreads`)",
                         a["barrier_id"].span)
        return POISON
    state.require(st, "bar.count", "bar.sync with a thread count (warpgroup_sync)", node.span)
    return _void_call(st, "tirx_warpgroup_sync", (ir.IntImm(INT32, bar),), node)


@handler("cuda.syncthreads_and", "cond")
def _syncthreads_and(st, node, a):
    return _vote_block(st, "__syncthreads_and", node, a)


@handler("cuda.syncthreads_or", "cond")
def _syncthreads_or(st, node, a):
    return _vote_block(st, "__syncthreads_or", node, a)


@handler("cuda.syncthreads_count", "cond")
def _syncthreads_count(st, node, a):
    return _vote_block(st, "__syncthreads_count", node, a)


def _vote_block(st, name, node, a):
    cond = scalars.condition(st, expr.elab(st, a["cond"]), a["cond"].span)
    if cond is POISON:
        return POISON
    return ir.Call(INT32, name, (ir.cast(INT32, cond),), node.span)


@handler("cuda.ballot_sync", "mask", "pred")
def _ballot(st, node, a):
    return _vote(st, "__ballot_sync", UINT32, node, a)


@handler("cuda.any_sync", "mask", "pred")
def _any(st, node, a):
    return _vote(st, "__any_sync", INT32, node, a)


@handler("cuda.all_sync", "mask", "pred")
def _all(st, node, a):
    return _vote(st, "__all_sync", INT32, node, a)


def _vote(st, name, result, node, a):
    mask = arg_value(st, a["mask"], UINT32)
    pred = scalars.condition(st, expr.elab(st, a["pred"]), a["pred"].span)
    if POISON in (mask, pred):
        return POISON
    return ir.Call(result, name, (mask, ir.cast(INT32, pred)), node.span)


@handler("cuda.elect_sync")
def _elect_sync(st, node, a):
    state.require(st, "cluster", "elect.sync", node.span)
    return ir.Call(UINT32, "tirx_elect_sync", (), node.span)


@handler("elected")
def _elected(st, node, a):
    st.diags.error("E0301", "`T.elected()` was removed from TIRx", node.span,
                     help="write `if T.cuda.elect_sync():`")
    return POISON


@handler("cuda.nano_sleep", "ns")
def _nano_sleep(st, node, a):
    ns = arg_value(st, a["ns"], UINT32)
    return POISON if ns is POISON else _void_call(st, "__nanosleep", (ns,), node)


def _shuffle(st, name, node, a, third):
    mask = arg_value(st, a["mask"], UINT32)
    value = expr.value(st, a["value"])
    lane = arg_value(st, a[third], INT32)
    width = arg_value(st, a["width"], INT32)
    if POISON in (mask, value, lane, width):
        return POISON
    if value.dtype.lanes > 1 and value.dtype.name not in ("float16x2", "bfloat16x2"):
        st.diags.error("E0309", f"cannot shuffle a {value.dtype} value", a["value"].span)
        return POISON
    warp_size = a.get("warp_size")
    if warp_size is not None and not isinstance(warp_size, _DefaultArg):
        size = expr.const_int(st, warp_size, "the warp size")
        if size is not None and size != 32:
            st.diags.error("E0305", f"warp size must be 32, got {size}", warp_size.span)
            return POISON
    if isinstance(width, ir.IntImm) and width.value not in (1, 2, 4, 8, 16, 32):
        st.diags.error("E0305", f"shuffle width must be a power of two up to 32, got {width.value}",
                         a["width"].span)
        return POISON
    args = (mask, value, lane) if isinstance(width, ir.IntImm) and width.value == 32 else (mask, value, lane, width)
    return ir.Call(value.dtype, name, args, node.span)


@handler("gpu_warp_shuffle", "mask", "value", "src_lane", "width=32", "warp_size=32")
@handler("tvm_warp_shuffle", "mask", "value", "src_lane", "width=32", "warp_size=32")
def _shfl(st, node, a):
    return _shuffle(st, "__shfl_sync", node, a, "src_lane")


@handler("gpu_warp_shuffle_xor", "mask", "value", "lane_mask", "width=32", "warp_size=32")
@handler("tvm_warp_shuffle_xor", "mask", "value", "lane_mask", "width=32", "warp_size=32")
def _shfl_xor(st, node, a):
    return _shuffle(st, "__shfl_xor_sync", node, a, "lane_mask")


@handler("gpu_warp_shuffle_up", "mask", "value", "delta", "width=32", "warp_size=32")
@handler("tvm_warp_shuffle_up", "mask", "value", "delta", "width=32", "warp_size=32")
def _shfl_up(st, node, a):
    return _shuffle(st, "__shfl_up_sync", node, a, "delta")


@handler("gpu_warp_shuffle_down", "mask", "value", "delta", "width=32", "warp_size=32")
@handler("tvm_warp_shuffle_down", "mask", "value", "delta", "width=32", "warp_size=32")
def _shfl_down(st, node, a):
    return _shuffle(st, "__shfl_down_sync", node, a, "delta")


@handler("cuda.atomic_add", "ptr", "value")
def _atomic_add(st, node, a):
    return _atomic(st, "atomicAdd", node, a)


@handler("cuda.atomic_max", "ptr", "value")
def _atomic_max(st, node, a):
    return _atomic(st, "atomicMax", node, a)


@handler("cuda.atomic_min", "ptr", "value")
def _atomic_min(st, node, a):
    return _atomic(st, "atomicMin", node, a)


def _atomic(st, name, node, a):
    ptr = pointer_arg(st, a["ptr"])
    if ptr is POISON:
        return POISON
    pointee = ptr.buffer.dtype
    value = expr.value(st, a["value"], pointee)
    if value is POISON:
        return POISON
    if value.dtype != pointee:
        st.diags.error("E0303", f"`{name}` on a {pointee} pointer with {article(value.dtype)} value",
                         a["value"].span, help=f"convert the value: `T.{pointee}(...)`")
        return POISON
    supported = {"atomicAdd": ("int32", "uint32", "uint64", "float32", "float64", "float16x2", "float16",
                               "bfloat16"),
                 "atomicMax": ("int32", "uint32", "int64", "uint64"),
                 "atomicMin": ("int32", "uint32", "int64", "uint64")}[name]
    if pointee.name not in supported:
        st.diags.error("E0309", f"CUDA has no `{name}` for {pointee}", node.span,
                         help=f"`{name}` works on {', '.join(supported)}")
        return POISON
    return ir.Call(value.dtype, name, (ptr, value), node.span)


@handler("cuda.atomic_cas", "ptr", "compare", "value")
def _atomic_cas(st, node, a):
    ptr = pointer_arg(st, a["ptr"])
    if ptr is POISON:
        return POISON
    pointee = ptr.buffer.dtype
    compare, value = expr.value(st, a["compare"], pointee), expr.value(st, a["value"], pointee)
    if POISON in (compare, value):
        return POISON
    if pointee.name not in ("int32", "uint32", "uint64", "uint16"):
        st.diags.error("E0309", f"CUDA has no `atomicCAS` for {pointee}", node.span,
                         help="`atomicCAS` works on int32, uint32, uint64 and uint16")
        return POISON
    for operand, arg in ((compare, a["compare"]), (value, a["value"])):
        if operand.dtype != pointee:
            st.diags.error("E0303", f"`atomicCAS` on a {pointee} pointer with {article(operand.dtype)} value",
                             arg.span, help=f"convert the value: `T.{pointee}(...)`")
            return POISON
    return ir.Call(pointee, "atomicCAS", (ptr, compare, value), node.span)


@handler("cuda.printf", "format", "*args")
def _printf(st, node, a):
    fmt = expr.const_str(st, a["format"], "the printf format")
    args = [expr.value(st, x) for x in a["args"]]
    if fmt is None or POISON in args:
        return POISON
    for value, arg in zip(args, a["args"]):
        if value.dtype.bits == 16 and value.dtype.is_float or value.dtype.lanes > 1:
            st.diags.error("E0309", f"printf cannot print a {value.dtype} value", arg.span,
                             help="convert it first, e.g. `T.float32(x)`")
            return POISON
    return _void_call(st, "printf", [ir.StrImm(VOID, fmt)] + args, node)


@handler("cuda.func_call", "name", "*args", "source_code=None", "return_type='void'", "ty=None")
def _func_call(st, node, a):
    return func_call(st, node, a)


# -- the newer spelling: symbolic extents, vector indices, the launch configuration -----------------
@handler("dynamic", "name", "dtype='int32'")
def _dynamic(st, node, a):
    """`n = T.dynamic("n")`: the newer spelling of `n = T.int32()`, also allowed at module level."""
    name = expr.const_str(st, a["name"], "the name of a symbolic extent")
    dtype = expr.dtype_or_default(st, a["dtype"])
    if name is None or dtype is None:
        return POISON
    return symbolic_var(st, dtype, node)


@handler("Ramp", "base", "stride", "lanes")
@handler("ramp", "base", "stride", "lanes")
def _ramp(st, node, a):
    base = expr.int_value(st, a["base"])
    stride, lanes = expr.int_value(st, a["stride"]), expr.int_value(st, a["lanes"])
    if POISON in (base, stride, lanes):
        return POISON
    for key, what, val in (("stride", "stride", stride), ("lanes", "lane count", lanes)):
        if not isinstance(val, ir.IntImm):
            st.diags.error("E0524", f"the ramp's {what} is not a compile-time integer", a[key].span,
                             help="a vector access has a fixed width: write `T.ramp(base, 1, 4)`")
            return POISON
    stride, lanes = stride.value, lanes.value
    if stride != 1:
        st.diags.error("E0524", f"a ramp of stride {stride} is not a vector access", a["stride"].span,
                         help="vector accesses move consecutive elements: `T.ramp(base, 1, lanes)`")
        return POISON
    if lanes < 2:
        st.diags.error("E0524", f"a ramp of {lanes} lane{'s' if lanes != 1 else ''} is not a vector",
                         a["lanes"].span, help="index a single element without `T.ramp`")
        return POISON
    return Ramp(base, lanes)


@handler("cuda.LaunchConfig", "*positional", "grid", "block", *(f"{f}=None" for f in LAUNCH_EXTRA_FIELDS))
def _launch_config(st, node, a):
    if a["positional"]:
        st.diags.error("E0520", "`T.cuda.LaunchConfig` takes keyword arguments only", a["positional"][0].span,
                         help="write `T.cuda.LaunchConfig(grid=..., block=...)`")
        return POISON
    if not is_default(a["cluster"]):  # the cluster shape is declared here; kernel.py sees grid and block
        threads.launch_cluster(st, a.pop("cluster"))
    return LaunchConfig({k: v for k, v in a.items() if k != "positional" and not is_default(v)})


def pointer_arg(st, node):
    """A pointer argument: `B.ptr_to([i])`, `B.data` or `T.address_of(B[i])`."""
    val = expr.elab(st, node)
    if isinstance(val, Pointer):
        return ir.BufferAddress(HANDLE, val.buffer, None, node.span)
    if isinstance(val, ir.BufferAddress):
        return val
    if val is not POISON:
        st.diags.error("E0306", "expected a pointer such as `A.ptr_to([i])`", node.span)
    return POISON


# -- inline CUDA ----------------------------------------------------------------------------------------------
def func_call(st, node, a):
    """`T.cuda.func_call(name, *args, source_code=SRC, return_type=...)` (docs/design.md, decision 18), or in the
    newer spelling `T.cuda.func_call(name, *args, SRC, ty=dtype)`: the source as the last positional
    argument, the result type as `ty=`."""
    name = literal_string(st, a["name"], "the function name", "write it in quotes: `\"my_func\"`")
    arg_nodes, vals = list(a["args"]), [expr.elab(st, arg) for arg in a["args"]]
    source_node = a["source_code"]
    last = vals[-1] if vals else None
    if isinstance(last, PyConst) and isinstance(last.value, str):
        if not is_default(a["source_code"]):
            st.diags.error("E0510", "the source is given twice: as the last argument and as `source_code=`",
                             arg_nodes[-1].span, help="keep one of them")
            return POISON
        source_node = arg_nodes.pop()
        vals.pop()
    source = None
    if is_default(source_node):
        st.diags.error("E0510", "`T.cuda.func_call` needs `source_code=`", node.span,
                         help="pass the CUDA text that defines the function, e.g. a module-level "
                              "`SRC = r\"\"\"__device__ float f(float x) { ... }\"\"\"`")
    else:
        source = literal_string(st, source_node, "`source_code`",
                                     "define the source as a module-level string constant")
    ty_given = not is_default(a["ty"])
    if ty_given and not is_default(a["return_type"]):
        st.diags.error("E0510", "the result type is given twice: `ty=` and `return_type=`", a["ty"].span,
                         help="keep one of them")
        return POISON
    rtype = return_type(st, a["ty"], "ty") if ty_given else return_type(st, a["return_type"])
    args = []
    for arg, val in zip(arg_nodes, vals):
        if isinstance(val, Pointer):
            args.append(ir.BufferAddress(HANDLE, val.buffer, None, arg.span))
        else:
            args.append(scalars.as_value(st, val, arg.span))
    if name is None or source is None or rtype is None or POISON in args:
        return POISON
    if not C_IDENT.match(name) or name.startswith(("tirx_", "tvm_builtin_", "__")) or name in C_KEYWORDS:
        st.diags.error("E0510", f"`{name}` is not a usable C function name", a["name"].span,
                         help="use a C identifier that is not a keyword and does not start with `tirx_`, "
                              "`tvm_builtin_` or `__`")
        return POISON
    if not re.search(rf"\b{name}\b", source):
        st.diags.error("E0510", f"the source code does not mention `{name}`", source_node.span,
                         help=f"the source must define `{name}`")
        return POISON
    known = st.module.func_sources.get(name)
    if known is None:
        st.module.func_sources[name] = source
        st.module.func_source_spans[name] = node.span
    elif known != source:
        st.diags.error("E0510", f"`{name}` was already defined with different source code", node.span,
                         notes=[Note("first defined here", st.module.func_source_spans[name])],
                         help="one name has one source; rename one of the functions, or pass the same text")
        return POISON
    if rtype == "void":
        return Void(ir.Evaluate(ir.Call(VOID, name, tuple(args), node.span), node.span))
    return ir.Call(rtype, name, tuple(args), node.span)


def literal_string(st, node, what: str, fix: str):
    val = expr.elab(st, node)
    if isinstance(val, PyConst) and isinstance(val.value, str):
        return scalars.text_str(st, val.value, node.span)
    if val is not POISON:
        st.diags.error("E0510", f"{what} must be a compile-time string, not {kind_of(val)}", node.span,
                         help=fix)
    return None


def return_type(st, arg, keyword: str = "return_type"):
    """`return_type=` (or `ty=`): a dtype, or "void" (the default); None on error."""
    if is_default(arg):
        return "void"
    val = expr.elab(st, arg)
    if isinstance(val, PyConst) and val.value in ("void", None):
        return "void"
    if isinstance(val, DTypeVal):
        return val.dtype
    if isinstance(val, PyConst) and isinstance(val.value, str):
        dtype = parse_dtype(val.value)
        if dtype is None:
            st.diags.error("E0510", f"`{keyword}=\"{val.value}\"` is neither a dtype nor \"void\"", arg.span,
                             help=f"did you mean `{dtype_alias(val.value)}`?" if dtype_alias(val.value)
                             else did_you_mean(val.value, known_dtype_names() + ["void"]))
        return dtype
    if val is not POISON:
        st.diags.error("E0510", f"`{keyword}=` takes a dtype or \"void\", not {kind_of(val)}", arg.span)
    return None


def symbolic_var(st, dtype: DType, node):
    if st.at_module_level:  # `n = T.dynamic("n")`: an extent each kernel using it declares for itself
        return _module_symbolic_var(st, dtype, node)
    if st.device:
        st.diags.error("E0401", f"`T.{dtype}()` declares a symbolic extent, which belongs before "
                                  f"`T.device_entry()`", node.span, help=f"for a typed zero write `T.{dtype}(0)`")
        return POISON
    if dtype.name not in ("int32",):
        st.diags.error("E0512", f"symbolic extents are int32, not {dtype}", node.span,
                         help="declare it with `T.int32()`")
        return POISON
    return _SymbolicPending()


def _module_symbolic_var(st, dtype, node: ast.Call):
    """`n = T.dynamic("n")` at module level: an extent each kernel using it declares for itself."""
    if dtype.name != "int32":
        st.diags.error("E0512", f"symbolic extents are int32, not {dtype}", node.span,
                       help="leave `dtype=` out")
        return POISON
    return DynamicExtent("", node.span)


# -- not (yet) supported ---------------------------------------------------------------------------
def _make_unsupported(name: str, what: str, code: str = "E0518", help: str | None = None) -> None:
    def unsupported(st, node, a):
        return registry.unsupported(st, node, what, code, help)
    unsupported.__name__ = "_unsupported_" + name.replace(".", "_")
    HANDLERS[name] = (unsupported, None)


for _name in ("cuda.cluster_id", "cuda.cluster_dim", "cuda.cluster_cta_id", "cuda.cta_pair_id"):
    _make_unsupported(_name, f"`T.{_name}` (thread-block clusters)", "E0406")

for _name, _help in (("parallel", "use thread ids; CUDA kernels have no parallel loops"),
                     ("Broadcast", None),
                     ("call_extern", "use `T.cuda.func_call` with its source"),
                     ("print_buffer", None), ("assume", None),
                     ("cuda.linear_thread_id", "use `T.cuda.thread_idx(\"x\")` or `T.thread_id`")):
    _make_unsupported(_name, f"`T.{_name}`", help=_help)

