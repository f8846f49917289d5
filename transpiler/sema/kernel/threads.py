"""The thread hierarchy: `T.cta_id`, `T.thread_id`, warp and lane ids, `T.device_entry()`,
the launch shape and its closure checks."""
from __future__ import annotations

from math import prod
from transpiler import ir
from transpiler.diag.diagnostics import Note, did_you_mean
from transpiler.syntax import ast
from transpiler.target.arch import MAX_CLUSTER_CTAS as MAX_CLUSTER
from transpiler.target.arch import MAX_GRID
from transpiler.target.arch import MAX_THREADS_PER_BLOCK as MAX_BLOCK
from transpiler.target.cuda_lib import sreg_helper
from transpiler.target.dtypes import INT32, UINT32, VOID, parse_dtype
from transpiler.sema import state, registry
from transpiler.sema.expressions import scalars, expr
from transpiler.evaluator.values import Binding, IdTuple, POISON, PyConst, Void
from transpiler.sema.registry import default_arg, handler, is_default
from transpiler.sema.expressions.expr import kind_of


_ID_KINDS = {  # kind of id -> the most extents it takes
    "cta_id": 3, "thread_id": 3, "warp_id": 1, "lane_id": 1, "warpgroup_id": 1, "warp_id_in_wg": 1,
    "thread_id_in_wg": 1, "cta_id_in_cluster": 3, "cluster_id": 3, "cta_id_in_pair": 1,
}
# the ids of the launch's shape, which the warp-level ids are not computed from
_LAUNCH_KINDS = ("cta_id", "thread_id", "cta_id_in_cluster", "cluster_id", "cta_id_in_pair")
# Ids a branch may declare first, as TIRx gathers a kernel's scope-id definitions wherever they
# stand: each reads a special register, the same in every thread of a CTA, so it is computed where
# it is declared; its extents describe the launch as a top-level declaration's do.
_BRANCH_KINDS = ("cta_id", "cta_id_in_cluster", "cluster_id", "cta_id_in_pair")
CLUSTER_ATTR = "tirx.cluster_dims"  # the kernel attribute (Kernel.attrs) lowering puts in LaunchSpec.cluster


_INFERRED_ID = {"extents": default_arg("None"), "dtype": default_arg("'int32'")}  # `T.cuda.warp_id()`: from the block


def _launch_index(kind: str, axis: int) -> ir.Builtin:
    """`blockIdx.x` ... of a block id (cta_id), `threadIdx.x` ... of a thread id, on axis 0, 1 or 2."""
    return ir.Builtin(INT32, ("blockIdx." if kind == "cta_id" else "threadIdx.") + "xyz"[axis])


@handler("cta_id", "extents=None", "preferred=None", "dtype='int32'")
def _cta_id(st, node, a):
    if not is_default(a["preferred"]):
        return registry.unsupported(st, node, "`preferred=` (preferred cluster shapes)", "E0406")
    return scope_id(st, "cta_id", node, a)


@handler("cta_id_in_cluster", "extents=None", "preferred=None", "dtype='int32'")
def _cta_id_in_cluster(st, node, a):
    if not is_default(a["preferred"]):
        return registry.unsupported(st, node, "`preferred=` (preferred cluster shapes)", "E0406")
    return cluster_scope_id(st, "cta_id_in_cluster", node, a)


@handler("cluster_id", "extents=None", "dtype='int32'")
def _cluster_id(st, node, a):
    return cluster_scope_id(st, "cluster_id", node, a)


@handler("cta_id_in_pair", "dtype='int32'")
def _cta_id_in_pair(st, node, a):
    return cluster_scope_id(st, "cta_id_in_pair", node, {"extents": default_arg("None"), "dtype": a["dtype"]})


@handler("cuda.cluster_sync")
def _cluster_sync(st, node, a):
    state.require(st, "cluster", "`T.cuda.cluster_sync`", node.span)
    return Void(ir.Evaluate(ir.Call(VOID, "tirx_cuda_cluster_sync", (), node.span), node.span))


@handler("thread_id", "extents=None", "dtype='int32'")
def _thread_id(st, node, a):
    return scope_id(st, "thread_id", node, a)


@handler("warp_id", "extents=None", "dtype='int32'")
def _warp_id(st, node, a):
    return scope_id(st, "warp_id", node, a)


@handler("lane_id", "extents=None", "dtype='int32'")
def _lane_id(st, node, a):
    return scope_id(st, "lane_id", node, a)


@handler("warpgroup_id", "extents=None", "dtype='int32'")
def _warpgroup_id(st, node, a):
    return scope_id(st, "warpgroup_id", node, a)


@handler("warp_id_in_wg", "extents=None", "dtype='int32'")
def _warp_id_in_wg(st, node, a):
    return scope_id(st, "warp_id_in_wg", node, a)


@handler("thread_id_in_wg", "extents=None", "dtype='int32'")
def _thread_id_in_wg(st, node, a):
    return scope_id(st, "thread_id_in_wg", node, a)


@handler("cuda.block_idx", "axis")
def _block_idx(st, node, a):
    return launch_index(st, "cta_id", "block_idx", node, a)


@handler("cuda.thread_idx", "axis")
def _thread_idx(st, node, a):
    return launch_index(st, "thread_id", "thread_idx", node, a)


@handler("cuda.grid_dim", "axis")
def _grid_dim(st, node, a):
    return launch_dim(st, "cta_id", "grid_dim", node, a)


@handler("cuda.block_dim", "axis")
def _block_dim(st, node, a):
    return launch_dim(st, "thread_id", "block_dim", node, a)


@handler("cuda.warp_id")
def _cuda_warp_id(st, node, a):
    return scope_id(st, "warp_id", node, _INFERRED_ID, "`T.cuda.warp_id`")


@handler("cuda.lane_id")
def _cuda_lane_id(st, node, a):
    return scope_id(st, "lane_id", node, _INFERRED_ID, "`T.cuda.lane_id`")


@handler("cuda.warpgroup_id")
def _cuda_warpgroup_id(st, node, a):
    return scope_id(st, "warpgroup_id", node, _INFERRED_ID, "`T.cuda.warpgroup_id`")


@handler("cuda.warp_in_warpgroup")
def _cuda_warp_in_warpgroup(st, node, a):
    return scope_id(st, "warp_id_in_wg", node, _INFERRED_ID, "`T.cuda.warp_in_warpgroup`")


@handler("cuda.thread_in_warpgroup")
def _cuda_thread_in_warpgroup(st, node, a):
    return scope_id(st, "thread_id_in_wg", node, _INFERRED_ID, "`T.cuda.thread_in_warpgroup`")


def launch_axis(st, kind: str, what: str, node, a) -> int | None:
    """The axis (0, 1, 2) a `T.cuda.<what>("x")` call names, once the launch shape is known."""
    axis = expr.const_str(st, a["axis"], "the axis")
    if axis is None:
        return None
    if axis not in ("x", "y", "z"):
        st.diags.error("E0523", f"`T.cuda.{what}` takes the axis \"x\", \"y\" or \"z\", not \"{axis}\"",
                         a["axis"].span, help=did_you_mean(axis, ["x", "y", "z"]))
        return None
    if kind in st.failed_ids:
        return None  # the launch shape had an error already
    if st.ids.get(kind, (None,))[0] is None:
        st.diags.error("E0523", f"`T.cuda.{what}` needs the launch shape", node.span,
                         help="give it to `T.device_entry(launch=T.cuda.LaunchConfig(grid=..., block=...))`")
        return None
    return "xyz".index(axis)


def launch_index(st, kind: str, what: str, node, a):
    """`T.cuda.block_idx("x")` / `T.cuda.thread_idx("x")`: one id of the launch's grid or block,
    declared like `T.cta_id` / `T.thread_id` (named after what it is bound to)."""
    if not id_placement_ok(st, f"`T.cuda.{what}`", node):
        return POISON
    axis = launch_axis(st, kind, what, node, a)
    if axis is None:
        return POISON
    var = new_id_var(st, kind, f"{what}_{'xyz'[axis]}", INT32, _launch_index(kind, axis), node.span)
    return IdTuple((var,))


def launch_dim(st, kind: str, what: str, node, a):
    """`T.cuda.grid_dim("x")` / `T.cuda.block_dim("x")`: the launch's extent on that axis, a
    constant where the launch shape has one."""
    axis = launch_axis(st, kind, what, node, a)
    if axis is None:
        return POISON
    extents = st.ids[kind][0]
    extent = extents[axis] if axis < len(extents) else ir.IntImm(INT32, 1)
    if isinstance(extent, ir.IntImm):
        return extent
    builtin = ("gridDim." if kind == "cta_id" else "blockDim.") + "xyz"[axis]
    return ir.cast(INT32, ir.Builtin(INT32, builtin), node.span)


@handler("device_entry")
def _device_entry(st, node, a):
    st.diags.error("E0400", "`T.device_entry()` is a statement at the top level of the kernel", node.span,
                     help="write it on a line of its own, after the `T.match_buffer` calls")
    return POISON


def scope_id(st, kind: str, node, a, label: str | None = None):
    """`T.cta_id([...])` and friends: one C variable per extent, named after what it is bound to."""
    ids = declare_id(st, kind, node, a, label or f"`T.{kind}`")
    if ids is POISON:
        st.failed_ids.add(kind)
    return ids


def id_placement_ok(st, label: str, node) -> bool:
    """Thread ids are declared in the device region, at the top level of the kernel body."""
    if not st.device:
        st.diags.error("E0402", f"{label} belongs after `T.device_entry()`", node.span,
                         help="thread ids are part of the kernel body; declare them after `T.device_entry()`")
        return False
    if st.depth:
        st.diags.error("E0402", f"{label} must be declared at the top level of the kernel body, not inside "
                                  f"`if`, `for` or `while`", node.span,
                         help="declare it before the block; the ids describe the whole launch")
        return False
    return True


def declare_id(st, kind: str, node, a, label: str):
    if st.device and st.depth and kind in st.id_vars:
        return redeclared_id(st, kind, node, a)
    in_branch = st.device and st.depth and kind in _BRANCH_KINDS
    if not in_branch and not id_placement_ok(st, label, node):
        return POISON
    dtype = INT32
    if not is_default(a["dtype"]):
        name = expr.const_str(st, a["dtype"], "the id dtype")
        if name is None:
            return POISON
        if name not in ("int32", "uint32"):
            st.diags.error("E0405", f"thread ids are int32 or uint32, not {name}", a["dtype"].span,
                             help="leave `dtype=` out for int32")
            return POISON
        dtype = parse_dtype(name)
    extents = id_extents(st, kind, a["extents"], node)
    if extents is POISON:
        return POISON
    previous = st.ids.get(kind)
    if previous is not None and extents is not None and previous[0] is not None \
            and [str(e) for e in previous[0]] != [str(e) for e in extents]:
        if kind in st.launch_kinds:
            field = {"cta_id": "grid", "thread_id": "block"}.get(kind, "cluster")
            st.diags.error("E0521", f"`T.{kind}` gives other extents than the launch configuration's "
                                      f"`{field}=`", node.span,
                             notes=[Note(f"the launch configuration's `{field}=` is here", previous[1])],
                             help=f"leave the extents out (`T.{kind}()`)" + ("" if field == "cluster" else
                                  f", or use `T.cuda.{'block' if kind == 'cta_id' else 'thread'}_idx(\"x\")`"))
            return POISON
        st.diags.error("E0403", f"`T.{kind}` declared again with different extents", node.span,
                         notes=[Note("first declared here", previous[1])],
                         help="every declaration of one kind of id describes the same launch; repeat the "
                              "first extents or leave them out")
        return POISON
    if previous is None or previous[0] is None and extents is not None:
        st.ids[kind] = (extents, node.span)
    extents = st.ids[kind][0]
    if kind == "thread_id" and extents is not None and len(extents) > 1 and st.linear_id_users:
        st.diags.error("E0403", f"`T.thread_id` with {len(extents)} dimensions after warp-level ids", node.span,
                         notes=[Note("this id was computed from `threadIdx.x` alone",
                                     st.linear_id_users[0])],
                         help="declare `T.thread_id` before `T.warp_id`, `T.lane_id` and the other "
                              "warp-level ids")
        return POISON
    if kind not in _LAUNCH_KINDS:
        st.linear_id_users.append(node.span)
    count = len(extents) if extents is not None else 1
    names = [kind] if count == 1 else [f"{kind}_{axis}" for axis in "xyz"[:count]]
    return IdTuple(tuple(new_id_var(st, kind, name, dtype, value, node.span)
                         for name, value in zip(names, id_values(st, kind, count, node.span))))


def redeclared_id(st, kind: str, node, a):
    """`lane = T.lane_id([32])` inside a branch, after the kernel declared that id at its top level
    (TIRx accepts it): the same id, read from the variable the top level bound, with the same
    extents (E0403 otherwise); nothing is recomputed in the branch (a warp id's `__shfl_sync` would
    need the whole warp there)."""
    extents = id_extents(st, kind, a["extents"], node)
    if extents is POISON:
        return POISON
    previous = st.ids[kind]
    if extents is not None and previous[0] is not None and [str(e) for e in previous[0]] != [str(e) for e in extents]:
        st.diags.error("E0403", f"`T.{kind}` declared again with different extents", node.span,
                       notes=[Note("first declared here", previous[1])],
                       help="every declaration of one kind of id describes the same launch; repeat the first "
                            "extents or leave them out")
        return POISON
    return IdTuple((st.id_vars[kind],))


def new_id_var(st, kind: str, name: str, dtype, value: ir.Expr, span) -> ir.Var:
    """An id's variable, set to value; it takes the name it is bound to later (bind_id)."""
    var = ir.Var(dtype, state.fresh(st, name), span)
    st.id_kinds[var.name] = kind
    st.unnamed_ids.add(var.name)
    st.nonneg.add(var.name)
    st.pending.append(ir.LetStmt(var, ir.cast(dtype, value), span))
    return var


def id_extents(st, kind: str, node, call, label: str | None = None):
    """The extents of an id declaration (or of the launch configuration's `grid=` / `block=`,
    named by `label` in messages); None when left out (inferred from the other ids)."""
    label = label or f"`T.{kind}`"
    if is_default(node) or (isinstance(node, ast.Constant) and node.value is None):
        if kind in ("cta_id", "thread_id") and kind not in st.launch_kinds:
            st.diags.error("E0405", f"`T.{kind}` needs its extents", call.span,
                             help=f"write `T.{kind}([{_EXAMPLE_EXTENTS[kind]}])`")
            return POISON
        return None
    raw = expr.elab(st, node)
    if raw is POISON:
        return POISON
    if isinstance(raw, PyConst) and isinstance(raw.value, tuple):
        items = [PyConst(v) for v in raw.value]
    else:
        items = list(raw) if isinstance(raw, tuple) else [raw]
    elts = node.elts if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) == len(items) else None
    limit = _ID_KINDS[kind]
    if not 1 <= len(items) <= limit:
        st.diags.error("E0405", f"{label} takes {'1 to 3 extents' if limit == 3 else 'one extent'}, got "
                                  f"{len(items)}", node.span,
                         help=None if limit == 3 else f"write `T.{kind}([{_EXAMPLE_EXTENTS[kind]}])`")
        return POISON
    extents = []
    for i, item in enumerate(items):
        span = elts[i].span if elts else node.span
        if isinstance(item, PyConst) and (not isinstance(item.value, int) or isinstance(item.value, bool)):
            st.diags.error("E0405", f"thread extents are integers, not {kind_of(item)}", span)
            return POISON
        v = scalars.as_value(st, item, span, INT32)
        if v is POISON:
            return POISON
        if not (v.dtype.is_int and v.dtype.lanes == 1):
            st.diags.error("E0405", f"thread extents are integers, not {v.dtype}", span)
            return POISON
        if isinstance(v, ir.IntImm) and v.value <= 0:
            st.diags.error("E0405", f"extent {v.value} is not positive", span)
            return POISON
        if kind not in ("cta_id", "cluster_id") and not isinstance(v, ir.IntImm):
            st.diags.error("E0405", f"{label} extents must be compile-time constants", span,
                             help="only the grid (`T.cta_id`, `grid=`, `T.cluster_id`) may depend on parameters")
            return POISON
        if kind == "cta_id" and isinstance(v, ir.IntImm) and v.value > MAX_GRID[i]:
            st.diags.error("E0405", f"a grid has at most {MAX_GRID[i]} blocks in dimension "
                                      f"{'xyz'[i]}, got {v.value}", span)
            return POISON
        extents.append(v)
    return extents


def bind_id(st, target: ast.Name, var: ir.Var):
    """A fresh id takes the name it is bound to (`tx = T.thread_id([128])` -> `int tx`)."""
    if var.name in st.unnamed_ids:
        st.unnamed_ids.discard(var.name)
        st.cnames.discard(var.name)  # the placeholder's name is free again
        new = ir.Var(var.dtype, state.fresh(st, target.id), var.span)
        st.nonneg.discard(var.name)
        st.nonneg.add(new.name)
        for i, s in enumerate(st.pending):
            if isinstance(s, ir.LetStmt) and s.var is var:
                st.pending[i] = ir.LetStmt(new, s.value, s.span)
        st.id_kinds[new.name] = st.id_kinds.pop(var.name, "")
        var = new
    if not st.depth:  # one declared in a branch is that branch's: a later declaration computes its own
        st.id_vars.setdefault(st.id_kinds.get(var.name, ""), var)
    state.bind(st, target.id, Binding(var, "id", target.span))
    return None


def warp_uniform(st) -> set[str]:
    """Ids with one value per warp: tests on them keep whole warps together."""
    return {name for name, kind in st.id_kinds.items()
            if kind in ("warp_id", "warpgroup_id", "warp_id_in_wg") + _LAUNCH_KINDS[:1] + _LAUNCH_KINDS[2:]}


def warp_id_var(st) -> ir.Var | None:
    return st.id_vars.get("warp_id")


def id_values(st, kind: str, count: int, span=None) -> list[ir.Expr]:
    if kind in ("cta_id", "thread_id"):
        return [_launch_index(kind, axis) for axis in range(count)]
    if kind in _CLUSTER_SREGS:
        return [_sreg(f"{_CLUSTER_SREGS[kind]}.{axis}", span) for axis in "xyz"[:count]]
    if kind == "cta_id_in_pair":  # the CTA's rank in the cluster, modulo 2 (TIRx: the linear cluster index)
        return [ir.binop("floormod", ir.cast(INT32, _sreg("cluster_ctarank", span)), ir.IntImm(INT32, 2))]
    linear = linear_tid(st)
    full = ir.IntImm(UINT32, 0xFFFFFFFF)
    zero = ir.IntImm(INT32, 0)
    if kind == "lane_id":
        return [ir.binop("floormod", linear, ir.IntImm(INT32, 32))]
    if kind == "thread_id_in_wg":
        return [ir.binop("floormod", linear, ir.IntImm(INT32, 128))]
    if kind == "warp_id":
        return [ir.Call(INT32, "__shfl_sync", (full, ir.binop("floordiv", linear, ir.IntImm(INT32, 32)), zero))]
    if kind == "warpgroup_id":
        return [ir.Call(INT32, "__shfl_sync", (full, ir.binop("floordiv", linear, ir.IntImm(INT32, 128)), zero))]
    if kind == "warp_id_in_wg":
        warp = ir.binop("floordiv", linear, ir.IntImm(INT32, 32))
        return [ir.Call(INT32, "__shfl_sync", (full, ir.binop("floormod", warp, ir.IntImm(INT32, 4)), zero))]
    raise KeyError(kind)


def linear_tid(st) -> ir.Expr:
    threads = st.ids.get("thread_id")
    x = ir.Builtin(INT32, "threadIdx.x")
    if threads is None or len(threads[0]) == 1:
        return x
    ext = threads[0]
    y = ir.mul(ir.Builtin(INT32, "threadIdx.y"), ext[0])
    total = ir.add(x, y)
    if len(ext) == 3:
        total = ir.add(total, ir.mul(ir.Builtin(INT32, "threadIdx.z"), ir.mul(ext[0], ext[1])))
    return total


def launch_shape(st):
    one = ir.IntImm(INT32, 1)
    grid = list(st.ids["cta_id"][0]) if "cta_id" in st.ids else []
    grid += [one] * (3 - len(grid))
    grid = cluster_shape(st, grid)
    consts = {k: e[0].value for k, (e, _) in st.ids.items() if k not in _LAUNCH_KINDS and e}
    spans = {k: span for k, (_, span) in st.ids.items()}
    source = None  # the declaration the block size comes from
    if "thread_id" in st.failed_ids:
        return grid, [one] * 3  # the block size is unknown; its declaration has an error already
    if "thread_id" in st.ids:
        block = list(st.ids["thread_id"][0])
        threads = prod(e.value for e in block)
        source = "thread_id"
        if len(block) == 3 and block[2].value > 64:
            st.diags.error("E0404", f"a block has at most 64 threads in dimension z, got {block[2].value}",
                             spans["thread_id"])
    else:
        threads, source = block_from_ids(consts)
        if threads is None and spans:
            inferred = [k for k in spans if k not in _LAUNCH_KINDS]
            if inferred:
                st.diags.error("E0405", "the block size cannot be inferred", spans[inferred[0]],
                                 help="give the extents (`T.warp_id([4])`) or declare `T.thread_id([...])`")
        block = [ir.IntImm(INT32, threads or 1)]
    block += [one] * (3 - len(block))
    if threads is not None and threads > MAX_BLOCK:
        where = spans[source] if source else st.fdef.name_span
        st.diags.error("E0404", f"the block has {threads} threads; CUDA allows at most {MAX_BLOCK}", where,
                         help="use fewer threads per block and more blocks (`T.cta_id`)")
    elif threads is not None:
        check_closure(st, threads, consts, spans, source)
    return grid, block


def check_closure(st, threads: int, consts: dict, spans: dict, source: str | None) -> None:
    """The warp-level ids agree with the block size (docs/design.md, decision 9)."""
    def expect(kind, expected, message):
        if kind not in consts or kind == source:
            return
        if consts[kind] != expected:
            notes = [Note(f"the block of {threads} threads comes from here", spans[source])] if source else []
            st.diags.error("E0403", message, spans[kind], notes=notes,
                             help=f"write `T.{kind}([{expected}])`, or leave the extent out to infer it")

    warps = -(-threads // 32)
    expect("warp_id", warps, f"{consts.get('warp_id')} warps of 32 threads do not make a block of {threads} "
                             f"threads")
    expect("lane_id", min(32, threads), f"lane ids count {consts.get('lane_id')} lanes, but a warp of this "
                                        f"block has {min(32, threads)}")
    expect("warpgroup_id", -(-threads // 128), f"{consts.get('warpgroup_id')} warpgroups of 128 threads do not "
                                               f"make a block of {threads} threads")
    expect("warp_id_in_wg", min(4, warps), f"warps in a warpgroup count {consts.get('warp_id_in_wg')}, but this "
                                           f"block has {min(4, warps)} warps per warpgroup")
    expect("thread_id_in_wg", min(128, threads), f"threads in a warpgroup count {consts.get('thread_id_in_wg')}, "
                                                 f"but this block has {min(128, threads)} per warpgroup")
    for kind, unit in (("warp_id", 32), ("warpgroup_id", 128)):
        if consts.get(kind, 1) > 1 and threads % unit:
            st.diags.error("E0403", f"a block of {threads} threads is not a whole number of "
                                      f"{'warps' if unit == 32 else 'warpgroups'}", spans[kind],
                             help=f"with several {'warps' if unit == 32 else 'warpgroups'} make the block a "
                                  f"multiple of {unit} threads")


_EXAMPLE_EXTENTS = {"cta_id": "n", "thread_id": "128", "warp_id": "4", "lane_id": "32", "warpgroup_id": "1",
                    "warp_id_in_wg": "4", "thread_id_in_wg": "128"}


# the ids that fix the block size when `T.thread_id` is not declared: kind -> threads per unit
_BLOCK_FROM = (("warp_id", 32), ("warpgroup_id", 128), ("lane_id", 1), ("thread_id_in_wg", 1))


def block_from_ids(consts: dict) -> tuple[int | None, str | None]:
    """(threads, the id they come from) without `T.thread_id`. A nested chain of ids multiplies
    out, as TIRx closes its scope ids: `warpgroup_id([1])`, `warp_id_in_wg([1])`, `lane_id([32])`
    is a block of one warp; otherwise the coarsest id gives whole units of it."""
    if "warpgroup_id" in consts and "thread_id_in_wg" in consts:
        return consts["warpgroup_id"] * consts["thread_id_in_wg"], "thread_id_in_wg"
    if "warpgroup_id" in consts and "warp_id_in_wg" in consts:
        return consts["warpgroup_id"] * consts["warp_id_in_wg"] * consts.get("lane_id", 32), "warp_id_in_wg"
    if "warp_id" in consts and "lane_id" in consts:
        return consts["warp_id"] * consts["lane_id"], "lane_id"
    for kind, unit in _BLOCK_FROM:
        if kind in consts:
            return consts[kind] * unit, kind
    return None, None


# -- thread-block clusters ----------------------------------------------------------------------------
_CLUSTER_SREGS = {"cta_id_in_cluster": "cluster_ctaid", "cluster_id": "clusterid"}


def _sreg(reg: str, span=None) -> ir.Expr:
    return ir.Call(UINT32, sreg_helper(reg), (), span) if span is not None else ir.Call(UINT32, sreg_helper(reg), ())


def cluster_scope_id(st, kind: str, node, a):
    """`T.cta_id_in_cluster([...])`, `T.cluster_id([...])`, `T.cta_id_in_pair()`: ids read from the
    cluster special registers; the cluster's shape goes to the launch (`__cluster_dims__`)."""
    if st.device:
        state.require(st, "cluster", "thread-block clusters", node.span)
    return scope_id(st, kind, node, a)


def launch_cluster(st, node) -> None:
    """`T.cuda.LaunchConfig(cluster=(x, y, z))`: the cluster shape given up front, as if declared by
    `T.cta_id_in_cluster([x, y, z])`."""
    extents = id_extents(st, "cta_id_in_cluster", node, node, "`cluster=`")
    if extents is POISON:
        st.failed_ids.add("cta_id_in_cluster")
        return
    st.ids["cta_id_in_cluster"] = (extents, node.span)
    st.launch_kinds.add("cta_id_in_cluster")
    state.require(st, "cluster", "thread-block clusters", node.span)


def cluster_shape(st, grid: list) -> list:
    """The cluster shape, from `T.cta_id_in_cluster` (or the launch configuration) or inferred from
    the grid and `T.cluster_id`; checked against the grid, which `T.cluster_id` may imply. Records
    it as the kernel attribute CLUSTER_ATTR and returns the grid."""
    kinds = ("cta_id_in_cluster", "cluster_id", "cta_id_in_pair")
    if not any(k in st.ids for k in kinds) or any(k in st.failed_ids for k in kinds):
        return grid
    one = ir.IntImm(INT32, 1)
    cluster, span = st.ids.get("cta_id_in_cluster", (None, None))
    counts, counts_span = st.ids.get("cluster_id", (None, None))
    counts = list(counts) + [one] * (3 - len(counts)) if counts else None
    has_grid = st.ids.get("cta_id", (None,))[0] is not None
    if cluster is None:
        if counts and has_grid and all(isinstance(e, ir.IntImm) for e in grid + counts) \
                and all(g.value % c.value == 0 for g, c in zip(grid, counts)):
            cluster = [ir.IntImm(INT32, g.value // c.value) for g, c in zip(grid, counts)]
        else:
            where = next(s for k in kinds for e, s in [st.ids.get(k, (None, None))] if s is not None)
            st.diags.error("E0723", "the cluster's shape is not known", where,
                           help="give it: `T.cta_id_in_cluster([2])` or `T.cuda.LaunchConfig(..., cluster=(2, 1, 1))`")
            return grid
        span = counts_span
    dims = [e.value for e in cluster] + [1] * (3 - len(cluster))
    size = prod(dims)
    if size > MAX_CLUSTER:
        registry.unsupported(st, _At(span), f"a cluster of {size} CTAs (more than the portable {MAX_CLUSTER})",
                             "E0406", help="use at most 8 CTAs per cluster")
        return grid
    if "cta_id_in_pair" in st.ids and size % 2:
        st.diags.error("E0723", f"`T.cta_id_in_pair` needs CTA pairs, but a cluster has {size} CTA"
                                f"{'s' if size != 1 else ''}", st.ids["cta_id_in_pair"][1],
                       notes=[Note("the cluster's shape is given here", span)])
    if "cta_id_in_pair" in st.ids and "cta_id_in_cluster" not in st.ids:
        st.diags.error("E0723", "`T.cta_id_in_pair` needs the cluster's shape from `T.cta_id_in_cluster`",
                       st.ids["cta_id_in_pair"][1])
    if not has_grid and counts:
        grid = [ir.mul(c, ir.IntImm(INT32, d)) for c, d in zip(counts, dims)]
    one_block = all(isinstance(g, ir.IntImm) and g.value == 1 for g in grid)
    for axis, (g, d) in enumerate(zip(grid, dims)):
        c = counts[axis] if counts else None
        if one_block and g.value % d:  # (TIRx compiles it: a kernel only compiled, never launched, is fine)
            st.diags.warning("W0723", f"a grid of one block does not fill a cluster of {size} CTAs: CUDA refuses "
                                      f"to launch the kernel as written", st.ids["cta_id"][1] if has_grid else span,
                             notes=[Note("the cluster's shape is given here", span)],
                             help="make the grid a whole number of clusters before launching it")
            break
        if isinstance(g, ir.IntImm) and g.value % d:
            st.diags.error("E0723", f"the grid's {g.value} blocks in {'xyz'[axis]} are not a whole number of "
                                    f"clusters of {d}", st.ids["cta_id"][1] if has_grid else span,
                           notes=[Note("the cluster's shape is given here", span)])
        elif has_grid and isinstance(g, ir.IntImm) and isinstance(c, ir.IntImm) and c.value * d != g.value:
            st.diags.error("E0723", f"{c.value} clusters of {d} blocks in {'xyz'[axis]} do not make the grid's "
                                    f"{g.value}", counts_span, notes=[Note("the grid is given here", st.ids["cta_id"][1])])
    st.kernel_attrs[CLUSTER_ATTR] = (tuple(dims), span)
    return grid


class _At:
    """A node stand-in for a diagnostic at a span."""
    def __init__(self, span):
        self.span = span
