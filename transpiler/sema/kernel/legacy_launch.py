"""TIR's older spellings of the launch: `T.launch_thread("blockIdx.x", n)` and
`T.launch_thread("threadIdx.x", 128)`, one axis each, as a `with` scope (`with T.launch_thread(...)
as bx:`) or an assignment (`tx = T.launch_thread("threadIdx.x", 128)`), and the loop
`for tx in T.thread_binding(128, thread="threadIdx.x"):`, which means the `with`. This is what TIRx's
lowering prints (the docs' "ir-listing" kernels), and such a kernel has no `T.device_entry()`: its
device code starts at the first `T.launch_thread` (kernel.py).

Each call declares one axis of the grid (`blockIdx`) or of the block (`threadIdx`), as `T.cta_id`
/ `T.thread_id` declare all of them at once, and its value is that axis's index. The axes of one
kind are declared x first, then y, then z; declaring an axis again (another scope launching the
same axis) must repeat its extent."""
from __future__ import annotations

from transpiler import ir
from transpiler.diag.diagnostics import Note
from transpiler.syntax import ast
from transpiler.target.dtypes import INT32
from transpiler.sema.expressions import expr
from transpiler.sema import state
from transpiler.sema.kernel import threads
from transpiler.sema.registry import handler
from transpiler.evaluator.values import IdTuple, POISON

_TAGS = {f"{base}.{axis}": (kind, k) for base, kind in (("blockIdx", "cta_id"), ("threadIdx", "thread_id"),
                                                         ("clusterCtaIdx", "cta_id_in_cluster"))
         for k, axis in enumerate("xyz")}


@handler("launch_thread", "thread", "extent")
def _launch_thread(st, node, a):
    tag = expr.const_str(st, a["thread"], "the thread tag")
    if tag is None:
        return POISON
    if tag not in _TAGS:
        st.diags.error("E0518", f'`T.launch_thread("{tag}", ...)` is not supported yet', a["thread"].span,
                       help="tirxc launches \"blockIdx.x/y/z\", \"clusterCtaIdx.x/y/z\" and \"threadIdx.x/y/z\"")
        return POISON
    kind, axis = _TAGS[tag]
    label = f'`T.launch_thread("{tag}", ...)`'
    if not threads.id_placement_ok(st, label, node):
        return POISON
    got = threads.id_extents(st, kind, ast.List(a["extent"].span, (a["extent"],)), node, label)
    if got is POISON:
        st.failed_ids.add(kind)
        return POISON
    extent = got[0]
    previous = st.ids.get(kind)
    extents = list(previous[0]) if previous is not None and previous[0] is not None else []
    if axis < len(extents):
        if str(extents[axis]) != str(extent):
            st.diags.error("E0403", f"{label} launched again with another extent", node.span,
                           notes=[Note("the launch is first declared here", previous[1])],
                           help="every launch of one axis describes the same launch: repeat its extent")
            return POISON
    elif axis > len(extents):
        st.diags.error("E0518", f"launching {tag} before {tag[:-1]}{'xyz'[len(extents)]} is not supported yet",
                       node.span, help="launch the axes in the order x, y, z")
        return POISON
    else:
        if previous is not None and axis == 0 and kind in st.launch_kinds:
            return POISON  # (a launch configuration was given: unreachable without `T.device_entry`)
        extents.append(extent)
        st.ids[kind] = (extents, previous[1] if previous is not None else node.span)
    name = tag.replace(".", "_")
    if kind == "cta_id_in_cluster":  # the CTA's place in its cluster (`__cluster_dims__` from its extents)
        state.require(st, "cluster", "thread-block clusters", node.span)
        value = ir.cast(INT32, threads.id_values(st, kind, axis + 1, node.span)[axis])
    else:
        value = threads._launch_index(kind, axis)
    return IdTuple((threads.new_id_var(st, kind, name, INT32, value, node.span),))


def is_launch_thread(st, node) -> bool:
    """Whether node is a call `T.launch_thread(...)` (any alias of the dialect)."""
    return expr.is_dialect_call(st, node, ("launch_thread",), module_level=True)


def binding_as_launch(st, stmt) -> ast.With | None:
    """`for v in T.thread_binding(n, thread="threadIdx.x"):` (TIR's loop form of a launch) as the
    `with T.launch_thread("threadIdx.x", n) as v:` it means; None for any other statement."""
    if not (isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name) and isinstance(stmt.iter, ast.Call)
            and expr.is_dialect_call(st, stmt.iter, ("thread_binding",), module_level=True)):
        return None
    call = stmt.iter
    positional = list(call.args)
    thread = next((k.value for k in call.keywords if k.name == "thread"), None)
    if thread is None and len(positional) >= 2:
        thread = positional.pop()  # `T.thread_binding(n, "threadIdx.x")`
    if thread is None or not 1 <= len(positional) <= 2:
        st.diags.error("E0305", "`T.thread_binding` takes an extent (or a start and a stop) and `thread=`", call.span)
        return None
    if len(positional) == 2:  # `T.thread_binding(start, stop, thread=...)`: a launch starts at 0
        start = expr.const_int(st, positional[0], "the start of `T.thread_binding`")
        if start != 0:
            if start is not None:
                st.diags.error("E0518", "a `T.thread_binding` that does not start at 0 is not supported yet",
                               positional[0].span)
            return None
    launch = ast.Call(call.span, ast.Attribute(call.func.span, call.func.value, "launch_thread"),
                      (thread, positional[-1]), ())
    return ast.With(stmt.span, (ast.WithItem(call.span, launch, stmt.target),), stmt.body)


@handler("thread_binding", "*args", "thread=None", "annotations=None")
def _thread_binding(st, node, a):
    st.diags.error("E0306", "`T.thread_binding` launches a thread axis as the iterator of a `for` loop", node.span,
                   help='write `for tx in T.thread_binding(128, thread="threadIdx.x"):`')
    return POISON


def starts_device_code(st, stmt) -> bool:
    """Whether a kernel statement is a legacy launch (`with T.launch_thread(...)`, `v =
    T.launch_thread(...)`, `for v in T.thread_binding(...)`): where a kernel without
    `T.device_entry()` starts its device code."""
    if isinstance(stmt, ast.For):
        return isinstance(stmt.iter, ast.Call) and expr.is_dialect_call(st, stmt.iter, ("thread_binding",),
                                                                       module_level=True)
    if isinstance(stmt, ast.With):
        return all(is_launch_thread(st, item.context) for item in stmt.items)
    if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
        return stmt.value is not None and is_launch_thread(st, stmt.value)
    return False


def with_launch(st, stmt: ast.With, block):
    """`with T.launch_thread(...) [as v], ...:` runs its body with each axis declared (and named by
    `as`, else by its tag: `blockIdx_x`)."""
    from transpiler.sema import state
    from transpiler.evaluator.values import Binding
    state.push(st)
    for item in stmt.items:
        ids = expr.elab(st, item.context)
        target = item.target if isinstance(item.target, ast.Name) else None
        if isinstance(ids, IdTuple) and target is not None:
            threads.bind_id(st, target, ids.vars[0])
        elif target is not None:
            state.bind(st, target.id, Binding(POISON, "other", target.span))
        elif item.target is not None:
            st.diags.error("E0312", "`as` names one variable here", item.target.span)
    body = block(st, stmt.body, new_scope=False)
    state.pop(st)
    return body
