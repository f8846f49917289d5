"""`Tx.<op>(...)` and `Tx.<scope>.<op>(...)`: a tile-primitive call, bound against its op's
signature (ir/tile_ops.py) and recorded as an `ir.TileCall` with what dispatch needs to know of
the threads that reach it. transpiler/tile/ chooses the lowering later (docs/design.md, decision 32)."""
from __future__ import annotations

from transpiler import ir
from transpiler.diag.diagnostics import did_you_mean
from transpiler.ir.tile_ops import OPS, REQUIRED, SCOPES
from transpiler.syntax import ast
from transpiler.target.dtypes import INT32
from transpiler.sema.expressions import expr, scalars
from transpiler.sema.library import macros
from transpiler.evaluator.box import dict_entries
from transpiler.evaluator.values import POISON, Helper, Poison, PyConst, PyDict, Void, SliceVal
from transpiler.sema.values import Region

# The thread hierarchy, finest first: a guard on an id of one level splits the levels above it.
LEVELS = ("thread", "warp", "warpgroup", "cta", "cluster")
_ID_LEVEL = {"thread_id": "thread", "lane_id": "thread", "thread_id_in_wg": "thread", "warp_id": "warp",
             "warp_id_in_wg": "warp", "warpgroup_id": "warpgroup", "cta_id": "cta", "cta_id_in_cluster": "cta",
             "cta_id_in_pair": "cta", "cluster_id": "cluster"}


def tile_call(st, path: tuple[str, ...], node: ast.Call):
    parsed = _op_and_scope(st, path, node)
    if parsed is None:
        return POISON
    op, scope = parsed
    if not st.device:
        st.diags.error("E0902", f"`{'.'.join(path)}` runs on the GPU: call it after `T.device_entry()`", node.span)
        return POISON
    bound = _bind(st, op, node)
    if bound is None:
        return POISON
    operands, config, workspace, dispatch = bound
    st.pending.append(ir.TileCall(op.name, scope, operands, config, workspace, dispatch, thread_context(st),
                                  node.span))
    return Void(ir.Seq(()))


def _op_and_scope(st, path, node):
    """(the op, its scope) of `Tx.copy` / `Tx.warp.copy`; None after an error."""
    names = path[1:]
    if len(names) == 2 and names[0] in SCOPES and names[1] in OPS:
        return OPS[names[1]], SCOPES[names[0]]
    if len(names) == 1 and names[0] in OPS:
        return OPS[names[0]], "thread"
    if len(names) == 1 and names[0] in SCOPES:
        st.diags.error("E0901", f"`Tx.{names[0]}` is a scope; call one of its primitives: `Tx.{names[0]}.copy(...)`",
                       node.func.span)
        return None
    if len(names) == 2 and names[0] not in SCOPES:
        st.diags.error("E0901", f"`Tx.{names[0]}` is not a scope of tile primitives", node.func.span,
                       help=did_you_mean(names[0], list(SCOPES)) or f"the scopes are {', '.join(SCOPES)}")
        return None
    name = names[-1]
    st.diags.error("E0901", f"`{'.'.join(path)}` is not a tile primitive", node.func.span,
                   help=did_you_mean(name, list(OPS)) or "docs/tile-primitives.md lists the primitives")
    return None


def _bind(st, op, node):
    """Operands by name (the op's order), config options, workspace and dispatch; None after an error."""
    names = op.names
    given: dict[str, object] = {}
    spans = {}
    if len(node.args) > len(names):
        st.diags.error("E0305", f"`Tx.{op.name}` takes at most {len(names)} operands, got {len(node.args)}",
                       node.args[len(names)].span)
        return None
    for name, arg in zip(names, node.args):
        given[name], spans[name] = arg, arg.span
    config, workspace, dispatch = [], (), None
    ok = True
    for kw in node.keywords:
        if kw.name in given:
            st.diags.error("E0305", f"`Tx.{op.name}` got two values for `{kw.name}`", kw.span)
            ok = False
        elif kw.name in names:
            given[kw.name], spans[kw.name] = kw.value, kw.span
        elif kw.name == "dispatch":
            dispatch = expr.const_str(st, kw.value, "a dispatch variant's name")
            ok = ok and dispatch is not None
        elif kw.name == "workspace":
            workspace = _workspace(st, kw.value)
            ok = ok and workspace is not None
        elif kw.name == "scope":
            st.diags.error("E0902", "the scope of a tile primitive is given by its namespace", kw.span,
                           help="write `Tx.warp.copy(...)`, `Tx.cta.sum(...)` ...")
            ok = False
        else:
            value = _config_value(st, kw.value)
            ok = ok and value is not POISON
            config.append((kw.name, value))
    operands = []
    for name, default in op.params:
        if name not in given:
            if default is REQUIRED:
                st.diags.error("E0305", f"`Tx.{op.name}` is missing its `{name}` operand", node.span)
                ok = False
                continue
            operands.append((name, default))
            continue
        if op.name == "select" and name == "pred":
            value = _predicate(st, given[name], dict(operands).get("dst"))
        else:
            value = operand(st, given[name])
        ok = ok and value is not POISON
        operands.append((name, value))
    if not ok:
        return None
    return tuple(operands), tuple(config), workspace, dispatch


def operand(st, node):
    """A buffer or region as an ir.TileRegion, a number or string as its Python value, a run-time
    value as an expression, a tuple of them as a tuple; POISON after an error."""
    val = expr.elab(st, node)
    return _operand_value(st, val, node)


def _operand_value(st, val, node):
    if isinstance(val, Poison):
        return POISON
    if isinstance(val, ir.Buffer):
        return ir.TileRegion(val, tuple(ir.IntImm(INT32, 0) for _ in val.shape), tuple(val.shape), node.span)
    if isinstance(val, Region):
        return ir.TileRegion(val.buffer, tuple(val.starts), tuple(val.extents), node.span)
    if isinstance(val, PyConst):
        return val.value
    if isinstance(val, tuple):
        items = tuple(_operand_value(st, v, node) for v in val)
        return POISON if POISON in items else items
    if isinstance(val, (SliceVal, PyDict)):
        st.diags.error("E0903", f"{expr.kind_of(val)} is not an operand of a tile primitive", node.span)
        return POISON
    if isinstance(val, Helper):
        st.diags.error("E0903", "a function is an operand only as `Tx.select`'s `pred`", node.span)
        return POISON
    value = scalars.as_value(st, val, node.span)
    return POISON if isinstance(value, Poison) else value


def _predicate(st, node, dst):
    """`pred=lambda i, j: ...` (or a helper): called once, now, with one index variable per dimension
    of the destination buffer, as TIRx calls it; its value, over those variables, is the predicate
    each element's lowering substitutes its coordinates into."""
    val = expr.elab(st, node)
    if isinstance(val, Poison) or not isinstance(dst, ir.TileRegion):
        return POISON
    if not isinstance(val, Helper) or val.kind != "def":
        st.diags.error("E0903", "`pred` is a function of the destination's coordinates: `lambda i, j: i < j`",
                       node.span)
        return POISON
    params = [p.name for p in val.fdef.params if not p.star]
    ndim = len(dst.buffer.shape)
    if len(params) != ndim:
        st.diags.error("E0903", f"`pred` takes {len(params)} argument{'s' if len(params) != 1 else ''}; the "
                                f"destination has {ndim} dimension{'s' if ndim != 1 else ''}", node.span)
        return POISON
    index = tuple(ir.Var(INT32, st.cnames.fresh(f"i{k}")) for k in range(ndim))
    result = macros.interpret(st, val, dict(zip(params, index)), node)
    if isinstance(result, Poison):
        return POISON
    body = scalars.as_value(st, result, node.span)
    return POISON if isinstance(body, Poison) else ir.TileLambda(index, body)


def _config_value(st, node):
    return operand(st, node)


def _workspace(st, node):
    val = expr.elab(st, node)
    if isinstance(val, Poison):
        return None
    if isinstance(val, PyConst) and val.value is None:
        return ()
    if not isinstance(val, PyDict):
        st.diags.error("E0903", "`workspace=` takes a dict of buffers: `{\"name\": buf}`", node.span)
        return None
    out = []
    for key, item in dict_entries(val):
        if not isinstance(item, (ir.Buffer, Region)):
            st.diags.error("E0903", f"workspace entry `{key}` is {expr.kind_of(item)}, not a buffer", node.span)
            return None
        out.append((str(key), _operand_value(st, item, node)))
    return tuple(out)


# -- the threads that reach the call ------------------------------------------------------------------

def thread_context(st) -> ir.ThreadContext:
    block = tuple(st.ids["thread_id"][0] or ()) if "thread_id" in st.ids else ()
    cluster = None
    if "cta_id_in_cluster" in st.ids and st.ids["cta_id_in_cluster"][0]:
        dims = st.ids["cta_id_in_cluster"][0]
        if all(isinstance(d, ir.IntImm) for d in dims):
            cluster = tuple(d.value for d in dims)
    guards = []
    for cond in st.guards:
        level = guard_level(st, cond)
        if level is not None:
            guards.append(ir.ThreadGuard(cond, level))
    return ir.ThreadContext(block, cluster, tuple(guards), st.module.target,
                            st.tmem_alloc[0] if getattr(st, "tmem_alloc", None) is not None else None)


def guard_level(st, cond: ir.Expr) -> str | None:
    """The finest thread level a condition depends on; None when it depends on no thread id
    (the same for all threads, as far as dispatch can tell)."""
    finest = None
    for e in ir.walk_expr(cond):
        level = None
        if isinstance(e, ir.Var):
            level = _ID_LEVEL.get(st.id_kinds.get(e.name, ""))
        elif isinstance(e, ir.Builtin) and e.name.startswith("threadIdx"):
            level = "thread"
        elif isinstance(e, ir.Call) and e.func == "tirx_elect_sync":
            level = "thread"
        if level is not None and (finest is None or LEVELS.index(level) < LEVELS.index(finest)):
            finest = level
    return finest


