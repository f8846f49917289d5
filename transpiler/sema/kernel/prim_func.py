"""Checking one kernel: parameters, the host region, `T.device_entry()` and the launch
configuration, the shared-memory budget, and the kernel's IR (statements are statements.py,
the thread hierarchy threads.py)."""
from __future__ import annotations

from dataclasses import replace
from transpiler import ir
from transpiler.ir.launch import ParamKind
from transpiler.diag.diagnostics import Note
from transpiler.syntax import ast
from transpiler.target.arch import STATIC_SHARED_LIMIT
from transpiler.ir.program import Kernel
from transpiler.target.dtypes import INT32, UINT32, UINT64
from transpiler.sema import state, registry
from transpiler.sema.expressions import expr, effects
from transpiler.sema.kernel import threads, statements, attrs, legacy_launch, implicit_entry
from transpiler.sema.memory import views, buffers, open_arena, pools, register_bounds, tensormaps
from transpiler.evaluator.values import Binding, DTypeVal, POISON, PyConst, Void
from transpiler.sema.values import Handle, HandleType, LaunchConfig, LayoutPart, LayoutVal, LetType
from transpiler.sema.state import KernelState, ModuleState, _SymbolicPending
from transpiler.sema.registry import is_default
from transpiler.sema.expressions.expr import kind_of
from transpiler.sema.kernel.statements import existing_binding


# -- the kernel ------------------------------------------------------------------------------------
def check_kernel(module: ModuleState, fdef: ast.FunctionDef) -> Kernel:
    """Check one kernel and elaborate it into buffer-level IR."""
    return run(KernelState(module, fdef))


def run(st: KernelState) -> Kernel:
    fdef = st.fdef
    for param in fdef.params:
        parameter(st, param)
    body = list(fdef.body)
    if body and isinstance(body[0], ast.ExprStmt) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        body = body[1:]
    host, device = split_at_device_entry(st, body)
    for stmt in host:
        if not (st.host_function and implicit_entry.launches_by_name(st, stmt)):
            host_stmt(st, stmt)
    if st.host_function:
        return None  # (its handles may stay unbound: TIRx's host code passes them on as pointers)
    for name, handle in st.handles.items():
        st.diags.error("E0511", f"handle parameter `{name}` is never bound with `T.match_buffer`", handle.span,
                         help=f"bind it before `T.device_entry()`: `X = T.match_buffer({name}, shape, dtype)`")
    finish_params(st)
    st.device = True
    if st.entry is not None:
        launch_config(st, st.entry.value)
    stmts = statements.block(st, device, new_scope=False)
    if st.pools:  # (the liveness walk it needs costs a pass over the whole kernel)
        pools.finish_pools(st, ir.seq(stmts))
    if open_arena.is_open(st.arena) and not st.pools:  # `T.alloc_buffer((0,), ..., scope="shared.dyn")`
        open_arena.size_from_views(st)
    grid, block = threads.launch_shape(st)
    register_bounds.check_register_indices(st, ir.seq(stmts), block)
    static_bytes, arena_bytes = shared_budget(st)
    check_launch_smem(st, arena_bytes)
    attrs.check_dynamic_smem(st, arena_bytes)
    if st.diags.has_errors:
        return None
    return Kernel(fdef.name, fdef.span, fdef.name_span, st.params, st.args, ir.seq(stmts), grid, block,
                  st.nonneg, st.min_arch, st.arch_suffix, st.arena, arena_bytes, st.views, static_bytes,
                  attrs.values(st), st.cnames)


# -- T.device_entry() -------------------------------------------------------------------------------
def split_at_device_entry(st, body: list) -> tuple[list, list]:
    """The host and device statements of the body, reporting a missing, repeated or nested
    `T.device_entry()`. Without a usable one the device part starts at the first statement
    that cannot belong to the host, so that the rest of the kernel is still checked."""
    entries = device_entries(st, body, None)
    top = [stmt for stmt, block in entries if block is None]
    first = top[0] if top else None
    for stmt, block in entries:
        if stmt is first:
            continue
        if block is None:
            st.diags.error("E0400", "a second `T.device_entry()`", stmt.span,
                             notes=[Note("the first one is here", first.span)],
                             help="a kernel has exactly one `T.device_entry()`; remove this one")
        else:
            notes = [Note("the kernel's device region starts here", first.span)] if first else []
            st.diags.error("E0400", f"`T.device_entry()` inside {'an' if block == 'if' else 'a'} `{block}` "
                                      f"block", stmt.span, notes=notes,
                             help="`T.device_entry()` is a statement at the top level of the kernel body, "
                                  "after the `T.match_buffer` calls")
    if first is not None:
        st.entry = first
        index = body.index(first)
        return body[:index], body[index + 1:]
    legacy = next((i for i, stmt in enumerate(body) if legacy_launch.starts_device_code(st, stmt)), None)
    if not entries and legacy is not None:  # `T.launch_thread(...)` (legacy_launch.py): the device code
        return body[:legacy], body[legacy:]
    if not entries and legacy is None and implicit_entry.is_host_function(st, body):
        return body, []
    split = next((i for i, stmt in enumerate(body) if not implicit_entry.looks_like_host(stmt)), len(body))
    if not entries:
        implicit_entry.no_device_entry(st, body[split:])
    return body[:split], body[split:]


def launch_config(st, call: ast.Call) -> None:
    """`T.device_entry(launch=T.cuda.LaunchConfig(grid=..., block=...))`: the grid and block given up
    front, as if declared by `T.cta_id(grid)` and `T.thread_id(block)` (the ids then name axes only)."""
    args = registry.bind_args(st, call, ("*launch_values", "launch=None", "kernel_attrs=None", "backend_config=None",
                                 "attrs=None", "body_params=None"), "T.device_entry")
    if args is None:
        return
    if args["launch_values"]:
        st.diags.error("E0520", "`T.device_entry` takes its launch configuration as `launch=`",
                         args["launch_values"][0].span,
                         help="write `T.device_entry(launch=T.cuda.LaunchConfig(grid=..., block=...))`")
        return
    for name in ("kernel_attrs", "backend_config", "attrs", "body_params"):
        if not is_default(args[name]):
            st.diags.error("E0518", f"`T.device_entry({name}=...)` is not supported yet", args[name].span)
    if is_default(args["launch"]):
        return
    config = expr.elab(st, args["launch"])
    if not isinstance(config, LaunchConfig):
        if config is not POISON:
            st.diags.error("E0520", f"`launch=` takes a `T.cuda.LaunchConfig(...)`, not {kind_of(config)}",
                             args["launch"].span, help="write `launch=T.cuda.LaunchConfig(grid=..., block=...)`")
        return
    for name, arg in config.args.items():
        if name in ("cluster", "preferred_cluster"):
            registry.unsupported(st, arg, f"`T.cuda.LaunchConfig({name}=...)` (thread-block clusters)", "E0406")
        elif name not in ("grid", "block", "dynamic_smem_bytes"):
            st.diags.error("E0520", f"tirxc does not support `T.cuda.LaunchConfig({name}=...)`", arg.span,
                             help="the generated launcher chooses the stream and the other launch attributes; "
                                  "give `grid=`, `block=` and `dynamic_smem_bytes=` only")
    for kind, field in (("cta_id", "grid"), ("thread_id", "block")):
        extents = threads.id_extents(st, kind, config.args[field], call, f"`{field}=`")
        if extents is POISON:
            st.failed_ids.add(kind)
        else:
            st.ids[kind] = (extents, config.args[field].span)
        st.launch_kinds.add(kind)
    smem = config.args.get("dynamic_smem_bytes")
    if smem is not None:
        size = expr.const_int(st, smem, "`dynamic_smem_bytes`")
        if size is not None:
            st.launch_smem = (size, smem.span)


def check_launch_smem(st, arena_bytes: int) -> None:
    """The launch configuration's `dynamic_smem_bytes=` is the arena's size (tirxc sizes the launch
    from the arena)."""
    if st.launch_smem is None or st.launch_smem[0] == arena_bytes:
        return
    size, span = st.launch_smem
    notes = [Note(f"the arena ({arena_bytes} bytes) is allocated here", st.arena.span)] if st.arena else []
    arena = f"is {arena_bytes} bytes" if st.arena else "does not exist"
    st.diags.error("E0522", f"`dynamic_smem_bytes={size}`, but the kernel's dynamic shared arena {arena}",
                     span, notes=notes,
                     help=f"write `dynamic_smem_bytes={arena_bytes}`, or leave it out: tirxc sizes the launch "
                          f"from the arena")


def device_entries(st, stmts, block: str | None, found: list | None = None) -> list:
    """(statement, enclosing block keyword or None) for every `T.device_entry()` statement,
    in order (collected into one list: the walk visits every statement of the kernel)."""
    found = [] if found is None else found
    for stmt in stmts:
        if isinstance(stmt, ast.ExprStmt):
            if expr.is_dialect_call(st, stmt.value, ("device_entry",), module_level=True):
                found.append((stmt, block))
        elif isinstance(stmt, ast.If):
            device_entries(st, stmt.body, block or "if", found)
            device_entries(st, stmt.orelse, block or "if", found)
        elif isinstance(stmt, (ast.For, ast.While, ast.With)):
            device_entries(st, stmt.body, block or type(stmt).__name__.lower(), found)
    return found


# -- parameters ------------------------------------------------------------------------------------
def parameter(st, param: ast.Param) -> None:
    if param.star:  # (a helper takes them: macros.py)
        st.diags.error("E0342", f"a kernel takes no `{param.star}{param.name}` parameter", param.span,
                       help="a kernel's parameters are buffers, handles and scalars, each named")
        return
    if param.annotation is None:
        st.diags.error("E0310", f"parameter `{param.name}` needs a type annotation", param.span,
                         help="annotate it with `T.handle`, `T.Buffer(shape, dtype)` or a dtype like `T.int32`")
        state.bind(st, param.name, Binding(POISON, "param", param.span))
        return
    if not statements.is_new_name(st, param):
        return
    annotation = param.annotation
    if isinstance(annotation, ast.Call) and isinstance(annotation.func, ast.Attribute) \
            and annotation.func.attr in ("Buffer", "Tensor"):
        if annotation.func.attr == "Tensor":
            args = buffers.tensor_type_args(st, annotation)
        else:
            args = registry.bind_args(st, annotation, ("shape", "dtype='float32'", "data=None", "strides=None",
                                               "elem_offset=None", "scope='global'", "align=-1",
                                               "offset_factor=0", "layout='default'"), "T.Buffer")
        handle = Handle(param.name, param.span)
        st.args.append(ir.Param(param.name, ParamKind.PENDING, UINT32, None, param.span))
        buf = buffers.param_buffer(st, handle, annotation, args) if args is not None else POISON
        if isinstance(buf, ir.Buffer):
            buf = attach_param(st, param.name, buf, param.name, param.span)
        state.bind(st, param.name, Binding(buf, "buffer", param.span))
        return
    kind = expr.elab(st, annotation)
    if tensormaps.is_type(kind):
        slot = tensormaps.parameter(st, param.name, param.span)
        st.args.append(ir.Param(slot.c_name, ParamKind.TENSOR_MAP, UINT64, None, param.span))
        state.bind(st, param.name, Binding(slot, "tensormap", param.span))
        return
    if isinstance(kind, HandleType):
        handle = Handle(param.name, param.span)
        st.handles[param.name] = handle
        st.args.append(ir.Param(param.name, ParamKind.PENDING, UINT32, None, param.span))
        state.bind(st, param.name, Binding(handle, "handle", param.span))
        return
    if isinstance(kind, DTypeVal) and kind.dtype.lanes == 1 and kind.dtype.kind != "handle":
        var = ir.Var(kind.dtype, state.fresh(st, param.name), param.span)
        p = ir.Param(var.name, ParamKind.SCALAR, kind.dtype, None, param.span)
        st.args.append(p)
        state.bind(st, param.name, Binding(var, "param", param.span))
        return
    if isinstance(kind, DTypeVal) and kind.dtype.lanes > 1:
        st.diags.error("E0310", f"parameter `{param.name}` has the vector dtype {kind.dtype}; kernel "
                                  f"parameters are scalars, handles or buffers", annotation.span,
                         help=f"pass the elements in a buffer (`T.Buffer((n,), \"{kind.dtype.element}\")`) and "
                              f"`vload` them")
    elif kind is not POISON:
        st.diags.error("E0310", f"parameter `{param.name}` has an unsupported annotation: {kind_of(kind)}",
                         annotation.span,
                         help="use `T.handle`, `T.Buffer(shape, dtype)` or a scalar dtype like `T.float32`")
    state.bind(st, param.name, Binding(POISON, "param", param.span))


def finish_params(st) -> None:
    """C parameter order (docs/design.md, decision 8): buffer pointers, scalars, then symbolic extents."""
    args = []
    for p in st.args:
        if p.kind is ParamKind.BUFFER and p.buffer is not None:
            args.append(p)
        elif p.kind in (ParamKind.SCALAR, ParamKind.TENSOR_MAP):
            args.append(p)
    st.args = args
    for p in args:
        if p.dtype.bits == 128 or (p.buffer is not None and p.buffer.dtype.bits == 128):
            st.diags.error("E0212", f"a 128-bit parameter (`{p.buffer.name if p.buffer else p.name}` of {p.buffer.dtype if p.buffer else p.dtype}) "
                                    "is not supported yet", p.span,
                           help="the launcher's NumPy has no 128-bit integer: pass uint64 pairs and pack them with "
                                "`T.ptx.mov.b128(q, lo, hi)`")
    pointers = [p for p in args if p.kind is ParamKind.BUFFER]
    scalars = [p for p in args if p.kind is ParamKind.SCALAR]
    passed = {p.name for p in scalars}
    extents = []
    for name, (var, span) in st.extents.items():
        if not any(shape_mentions(p.buffer, var) for p in pointers):
            st.diags.error("E0512", f"symbolic extent `{name}` is not a dimension of any parameter buffer",
                             span, help="use it in the shape of a `T.match_buffer` so the launcher can read "
                                        "it from the array")
        if var.name not in passed:
            extents.append(ir.Param(var.name, ParamKind.EXTENT, INT32, None, span))
    st.params = pointers + scalars + extents + tensormaps.params(st)


def shape_mentions(buf, var) -> bool:
    return any(isinstance(e, ir.Var) and e.name == var.name for e in buf.shape)


# -- host region -------------------------------------------------------------------------------------
def host_stmt(st, stmt) -> None:
    move = "move it after `T.device_entry()`"
    if isinstance(stmt, ast.ExprStmt) and isinstance(stmt.value, ast.Constant) and stmt.value.value is Ellipsis:
        implicit_entry.ellipsis(st, stmt)
        return
    if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.ExprStmt) and isinstance(stmt.value, ast.Constant)):
        return
    if isinstance(stmt, ast.ExprStmt) and isinstance(stmt.value, ast.Call):
        val = expr.elab(st, stmt.value)
        if isinstance(val, Void) and isinstance(val.stmt, ir.Seq) and not val.stmt.body:
            return  # T.func_attr and hints
        if isinstance(val, PyConst) and val.value is None:
            return  # a call made for its effect on compile-time values (`xs.append(v)`)
        if isinstance(val, ir.Buffer) and val.storage is None and handle_of(st, stmt.value) is not None:
            handle = handle_of(st, stmt.value)  # an unnamed `T.match_buffer(B_ptr, ...)` binds the handle
            name = handle[:-4] if handle.endswith("_ptr") and len(handle) > 4 else handle
            bind_param_buffer(st, name, val, ast.Assign(stmt.span, ast.Name(stmt.span, name), stmt.value),
                              bind=False)
        elif val is not POISON:
            st.diags.error("E0401", "this statement before `T.device_entry()` is not supported yet", stmt.span,
                             help=f"{move}; before it tirxc accepts parameter bindings, symbolic extents "
                                  f"and compile-time values")
        return
    if isinstance(stmt, ast.If):  # on a compile-time condition: the taken branch, as TVMScript evaluates it
        cond = expr.elab(st, stmt.test)
        if isinstance(cond, PyConst):
            for inner in (stmt.body if cond.value else stmt.orelse):
                host_stmt(st, inner)
            return
        if cond is POISON:
            return
    if isinstance(stmt, ast.Assert):
        check = statements.static_assert(st, stmt, host=True)
        if check is not None:
            st.pending.append(check)  # first in the device code (statements.block flushes pending)
        return
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None \
            and expr.is_dialect_call(st, stmt.value, ("tvm_stack_alloca",)):
        stmt = ast.Assign(stmt.span, stmt.target, stmt.value)  # `A_map: T.handle("tensormap") = ...`
    if isinstance(stmt, ast.Assign):
        statements.chained(st, stmt)
    if isinstance(stmt, ast.Assign) and isinstance(stmt.target, ast.Name):
        name = stmt.target.id
        if not statements.is_new_name(st, stmt.target):
            return
        val = expr.elab(st, stmt.value)
        if tensormaps.is_allocation(val):
            state.bind(st, name, Binding(tensormaps.bind(st, name, val, stmt.target.span), "tensormap",
                                         stmt.target.span))
            return
        if isinstance(val, ir.Buffer) and val.storage is None:
            bind_param_buffer(st, name, val, stmt)
            return
        if val is POISON and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute) \
                and stmt.value.func.attr == "match_buffer":
            st.handles.pop(handle_of(st, stmt.value), None)  # bound, with an error reported already
        if isinstance(val, _SymbolicPending):
            var = state.declare_extent(st, name, stmt.target.span)
            state.bind(st, name, Binding(var, "var", stmt.target.span))
            return
        if isinstance(val, (PyConst, LayoutVal)):
            state.bind(st, name, Binding(val, "const", stmt.target.span))
            return
        if host_value(val):  # a shape read (`M = A.shape[0]`) or arithmetic on parameters
            state.bind(st, name, Binding(val, "let", stmt.target.span))
            return
        if isinstance(val, LayoutPart):
            state.bind(st, name, Binding(views.make_layout(st, val, stmt.value), "const", stmt.target.span))
            return
        if isinstance(val, ir.Buffer) and val.storage is not None and root_storage(val.storage).kind == "param":
            statements.bind_new(st, stmt.target, val, stmt)  # a view of a parameter (`A.view(-1)`)
            return
        state.bind(st, name, Binding(POISON, "other", stmt.target.span))
        if val is not POISON:
            st.diags.error("E0401", "this value before `T.device_entry()` is not supported yet", stmt.span,
                             help=f"{move}; before it tirxc binds parameters, symbolic extents, constants "
                                  f"and arithmetic on parameters")
        return
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None \
            and isinstance(expr.elab(st, stmt.annotation), LetType):
        if not statements.is_new_name(st, stmt.target):
            return
        val = expr.elab(st, stmt.value)
        if isinstance(val, PyConst) or host_value(val):
            state.bind(st, stmt.target.id, Binding(val, "let", stmt.target.span))
            return
        state.bind(st, stmt.target.id, Binding(POISON, "let", stmt.target.span))
        if val is POISON:
            return
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) \
            and existing_binding(st, stmt.target.id) is None:
        state.bind(st, stmt.target.id, Binding(POISON, "other", stmt.target.span))  # its uses stay quiet
    st.diags.error("E0401", "this statement before `T.device_entry()` is not supported yet", stmt.span,
                     help=f"{move}; before it tirxc accepts parameter bindings, symbolic extents and "
                          f"compile-time values")


def root_storage(storage: ir.Storage) -> ir.Storage:
    while storage.base is not None:
        storage = storage.base
    return storage


def host_value(val) -> bool:
    """A scalar the host knows before the launch: arithmetic on parameters and symbolic extents,
    without loads or calls; used in the device region, it is recomputed there from the kernel's
    parameters."""
    return isinstance(val, ir.Expr) and val.dtype.lanes == 1 and effects.is_invariant(val)


def bind_param_buffer(st, name: str, buf: ir.Buffer, stmt, *, bind: bool = True) -> None:
    """`A = T.match_buffer(A_ptr, ...)`: the buffer takes the handle's place among the parameters."""
    handle = handle_of(st, stmt.value)
    first = st.matched.get(handle)
    if first is not None:
        st.diags.error("E0511", f"`{handle}` is already bound by `T.match_buffer`", stmt.value.span,
                         notes=[Note("first bound here", first)],
                         help="each handle parameter is bound exactly once; name that buffer instead")
        state.bind(st, name, Binding(POISON, "buffer", stmt.target.span))
        return
    st.matched[handle] = stmt.value.span
    st.handles.pop(handle, None)
    buf = attach_param(st, handle, buf, name, stmt.span)
    if bind:
        state.bind(st, name, Binding(buf, "buffer", stmt.target.span))


def handle_of(st, call) -> str | None:
    if isinstance(call, ast.Call) and call.args and isinstance(call.args[0], ast.Name):
        return call.args[0].id
    for kw in getattr(call, "keywords", ()):
        if kw.name == "param" and isinstance(kw.value, ast.Name):
            return kw.value.id
    return None


def attach_param(st, handle: str, buf: ir.Buffer, name: str, span) -> ir.Buffer:
    """Give a parameter buffer its pointer parameter, named after the buffer (`A_ptr`)."""
    storage = ir.Storage(state.fresh(st, name + "_ptr"), buf.dtype, "global", "param", None, buf.align)
    buf = replace(buf, name=name, storage=storage)
    for i, p in enumerate(st.args):
        if p.name == handle and p.kind is ParamKind.PENDING:
            st.args[i] = ir.Param(storage.name, ParamKind.BUFFER, buf.dtype, buf, span)
            break
    return buf


# -- the shared-memory budget (docs/design.md, decision 13) ----------------------------------------------------------
def shared_budget(st) -> tuple[int, int]:
    """Static shared bytes and the arena's bytes, checked against the limits (docs/design.md, decision 13)."""
    static, crossing = 0, None
    for buf in st.statics:
        if buf.storage is not None:
            static += buf.storage.size * buf.dtype.nbytes
            if static > STATIC_SHARED_LIMIT and crossing is None:
                crossing = buf
    # (an uncommitted pool has no size yet: finish_pools reports it)
    arena = (st.arena.storage.size or 0) * st.arena.dtype.nbytes if st.arena is not None else 0
    if crossing is not None:
        st.diags.error("E0508", f"static shared memory totals {static} bytes; the limit is "
                                  f"{STATIC_SHARED_LIMIT} bytes (48 KiB)", crossing.span,
                         help="move large tiles into the dynamic arena (`scope=\"shared.dyn\"`), which may "
                              "grow to 227 KiB")
    else:
        # without --arch: the most any architecture allows; with it: that architecture's limit
        target = st.module.target
        limit = target.shared_opt_in
        on = f" on {target.name}" if target.named else ""
        if static + arena > limit:
            where = st.arena.span if st.arena is not None else st.statics[-1].span
            st.diags.error("E0509", f"static ({static} bytes) plus dynamic ({arena} bytes) shared memory is "
                                      f"{static + arena} bytes; the limit{on} is {limit} bytes "
                                      f"({limit // 1024} KiB)",
                             where, help=f"shrink the tiles by {static + arena - limit} bytes")
    return static, arena


