"""Statements of a kernel body: blocks and scoping, assignments and bindings, stores, loops
(`range`, `T.serial`, `T.unroll`, `T.grid`, unrolling), if / while / with, assert."""
from __future__ import annotations

from transpiler import ir
from transpiler.diag.diagnostics import Note
from transpiler.syntax import ast
from transpiler.syntax.frozen import replace
from transpiler.syntax.source import Span
from transpiler.target.dtypes import BOOL, DType, FLOAT32, INT32
from transpiler.sema import state
from transpiler.sema.expressions import scalars, expr, effects, indexing, stores
from transpiler.sema.kernel import threads, loops, unrolled, legacy_launch, implicit_entry
from transpiler.sema.memory import views
from transpiler.sema.memory.typed_pointers import PointerTypeVal, TypedPointer, VarType, check_let_pointer, is_address
from transpiler.evaluator import builtins as pyeval_builtins, core as pyeval, lists as pyeval_lists
from transpiler.evaluator.values import (Binding, DTypeVal, IdTuple, LoopRange, POISON, Poison, PyConst, Void,
                                         PyDict, Helper)
from transpiler.sema.values import ArrayType, LayoutPart, LayoutVal, LetType, Pointer, Region, SmemPool, TmemPool
from transpiler.sema.state import _SymbolicPending
from transpiler.sema.library.class_values import CLASS_VALUES, name_instance
from transpiler.sema.registry import DispatchTable, handler, is_default
from transpiler.sema.expressions.scalars import SCALAR_INDEX
from transpiler.evaluator.values import article
from transpiler.sema.expressions.expr import _BINOPS, kind_of
from transpiler.sema.expressions.indexing import index_nodes


# -- statements -------------------------------------------------------------------------------------
def block(st, stmts, *, new_scope: bool = True) -> list[ir.Stmt]:
    """Statements in order; each one's declarations (`pending`) come before it."""
    if new_scope:
        state.push(st)
    out: list[ir.Stmt] = []
    for stmt in stmts:
        produced = statement(st, stmt)
        if st.pending:
            name_anonymous_storage(st)
            out.extend(st.pending)
            st.pending = []
        if isinstance(produced, list):
            out.extend(produced)
        elif produced is not None:
            out.append(produced)
    if new_scope:
        state.pop(st)
    return out


def statement(st, stmt):
    return _STMT[stmt.__class__](st, stmt)


def _stmt_Global(st, stmt):
    st.diags.error("E0201", "a `global` statement has no meaning in a kernel body", stmt.span,
                   help="module-level names are read directly; rebind one in a plain helper function, which runs at "
                        "compile time")
    return None


def _stmt_Delete(st, stmt):  # (and `nonlocal`: statements of the Python level, run by plain helpers)
    word = "del" if stmt.__class__ is ast.Delete else "nonlocal"
    st.diags.error("E0201", f"a `{word}` statement has no meaning in a kernel body", stmt.span,
                   help="a plain helper function runs it at compile time")
    return None


_stmt_Nonlocal = _stmt_Delete


def loop_else_refused(st, stmt) -> bool:
    """True (reported) for a kernel loop with an `else` block, which a kernel does not run."""
    if not stmt.orelse:
        return False
    st.diags.error("E0201", "an `else` block on a kernel loop is not supported", stmt.orelse[0].span,
                   help="use a flag variable")
    return True


def _stmt_Try(st, stmt):
    st.diags.error("E0201", "a `try` statement has no meaning in a kernel body", stmt.span,
                   help="TVMScript compiles a kernel body, it does not run it: nothing in it raises")
    return None


def _stmt_unsupported(st, stmt):
    st.diags.error("E0201", f"`{type(stmt).__name__}` is not allowed in a kernel body", stmt.span)
    return None


def _stmt_Pass(st, stmt):
    return None


def _stmt_ExprStmt(st, stmt):
    if isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str):
        return None
    if isinstance(stmt.value, ast.Constant) and stmt.value.value is Ellipsis:
        return implicit_entry.ellipsis(st, stmt)
    if expr.is_dialect_call(st, stmt.value, ("device_entry",), module_level=True):
        return None  # reported once by run()
    val = expr.elab(st, stmt.value)
    if isinstance(val, IdTuple):
        return None  # ids declared for the launch shape only
    if isinstance(val, Void):
        return val.stmt
    if isinstance(val, ir.Call) and not val.func.startswith("math:"):
        return ir.Evaluate(val, stmt.span)  # calls with effects: atomics, inline CUDA, votes ...
    if isinstance(val, Poison) or isinstance(val, PyConst) and val.value is None and isinstance(stmt.value, ast.Call):
        return None  # (or a call made for its effect on compile-time values, `xs.append(v)`: no code)
    if isinstance(val, ir.Expr) or isinstance(val, PyConst):
        st.diags.warning("W0002", "this expression's value is not used", stmt.span)
        return None
    st.diags.warning("W0002", "this expression has no effect", stmt.span)
    return None


def chained(st, stmt: ast.Assign) -> None:
    """`a = b = c` in a kernel: TIRx's parser refuses it there (E0308); the first assignment is
    checked as written and the other names are bound to an unknown value, so later errors show."""
    if not stmt.chain:
        return
    st.diags.error("E0308", "chained assignment `a = b = c` is not allowed in a kernel body (TIRx's "
                              "parser refuses it too)", stmt.chain[0].span, help="write two assignments")
    for target in stmt.chain:
        for name in target_names(target) if isinstance(target, (ast.Tuple, ast.List)) else (target,):
            if isinstance(name, ast.Name) and existing_binding(st, name.id) is None:
                state.bind(st, name.id, Binding(POISON, "other", name.span))


def _stmt_Assign(st, stmt: ast.Assign):
    chained(st, stmt)
    target = stmt.target
    if isinstance(target, ast.Subscript):
        return store(st, target, expr.elab(st, stmt.value), stmt)
    if isinstance(target, (ast.Tuple, ast.List)):
        return assign_tuple(st, target, expr.elab(st, stmt.value), stmt)
    if not isinstance(target, ast.Name):
        st.diags.error("E0312", "cannot assign to this expression", target.span)
        return None
    existing = assigned_binding(st, target.id)
    if existing is not None:
        return reassign(st, target, existing, stmt.value, stmt)
    val = expr.elab(st, stmt.value)
    return bind_new(st, target, val, stmt)


def assigned_binding(st, name: str) -> Binding | None:
    """What an assignment `name = v` in the kernel rebinds: a kernel name, or the dialect's own
    names; a module-level constant is shadowed by a new name of the kernel, as a function's
    assignment makes a local name in Python (and in TVMScript's parser)."""
    local = state.binding(st, name)
    if local is not None:
        return local
    module = st.module.globals.get(name)
    return module if module is not None and module.kind in ("builtin", "namespace") else None


def existing_binding(st, name: str) -> Binding | None:
    """What a name is bound to in the kernel or at module level."""
    local = state.binding(st, name)
    return local if local is not None else st.module.globals.get(name)


def is_new_name(st, target) -> bool:
    """A name about to be bound must not be bound already (no shadowing)."""
    name = target.id if isinstance(target, ast.Name) else target.name
    existing = existing_binding(st, name)
    if existing is None:
        return True
    notes = [Note("defined here", existing.span)] if existing.kind != "builtin" else []
    st.diags.error("E0314", f"`{name}` is already defined", getattr(target, "span"), notes=notes,
                     help="use another name")
    return False


def may_annotate(st, target: ast.Name) -> bool:
    """An annotated assignment binds a new scalar or let, as TIRx's does, even where the name is
    bound already (the new binding shadows the old one to the end of the scope); only the
    dialect's own names cannot be rebound."""
    existing = existing_binding(st, target.id)
    if existing is None or existing.kind not in ("builtin", "namespace"):
        return True
    return is_new_name(st, target)


def reassign(st, target: ast.Name, existing: Binding, value_node, stmt):
    value = existing.value
    if isinstance(value, ir.Buffer) and is_scalar_like(value):
        val = stores.stored(st, expr.elab(st, value_node), value_node.span, value.dtype)
        return scalar_store(st, value, val, stmt.span, value_node.span)
    if value is POISON:
        expr.elab(st, value_node)  # the binding already had an error; still check the value
        return None
    if existing.kind == "buffer":
        fix = f"store into its elements instead: `{target.id}[i] = ...`"
    elif existing.kind == "pointer":
        fix = "bind the new pointer to a new name"
    elif existing.kind in ("let", "const", "param", "loopvar", "id", "var"):
        dtype = value.dtype if isinstance(value, ir.Expr) else FLOAT32 if isinstance(value, PyConst) \
            and isinstance(value.value, float) else INT32
        fix = f"bind the new value to a new name, or copy it into a mutable scalar first " \
              f"(`{target.id}_v: T.{dtype} = {target.id}`)"
    else:
        fix = "use another name"
    notes = [Note("bound here", existing.span)] if existing.kind != "builtin" else []
    st.diags.error("E0307", f"`{target.id}` is {_KINDS.get(existing.kind, 'immutable')} and cannot be "
                              f"reassigned", target.span, notes=notes, help=fix)
    return None


def is_scalar_like(buf: ir.Buffer) -> bool:
    return buf.scalar or (buf.ndim == 1 and isinstance(buf.shape[0], ir.IntImm) and buf.shape[0].value == 1
                          and buf.scope in ("local", "shared"))


def scalar_store(st, buf, val, span, value_span):
    if val is POISON:
        return None
    if val.dtype != buf.dtype:
        st.diags.error("E0303", f"cannot store {article(val.dtype)} value ({val.dtype.lanes} lanes) into "
                                  f"{buf.dtype} scalar `{buf.name}`", value_span,
                         help="store one lane, e.g. `v[0]`")
        return None
    if isinstance(val, ir.BufferLoad) and val.buffer is buf:
        return None  # `x = x` (an inline helper returning the scalar it was given): nothing to store
    return ir.BufferStore(buf, SCALAR_INDEX, val, span)


def bind_new(st, target: ast.Name, val, stmt):
    """`name = value` for a new name: names buffers, ids, pointers and constants; any
    other value becomes a mutable one-element local scalar (reference 1.5)."""
    name = target.id
    if val is POISON:
        state.bind(st, name, Binding(POISON, "other", target.span))
        return None
    if isinstance(val, _SymbolicPending):
        st.diags.error("E0401", "symbolic extents are declared before `T.device_entry()`", stmt.span)
        return None
    if isinstance(val, ir.Buffer):
        named = val if val.name.isidentifier() else replace(val, name=name)
        state.bind(st, name, Binding(named, "buffer", target.span))
        return flush_named(st, named, val)
    if isinstance(val, IdTuple):
        if len(val.vars) != 1:
            st.diags.error("E0312", f"this call returns {len(val.vars)} ids, one per extent", target.span,
                             help=f"unpack them: `{', '.join(f'{name}{i}' for i in range(len(val.vars)))} = ...`")
            return None
        return threads.bind_id(st, target, val.vars[0])
    if isinstance(val, (SmemPool, TmemPool)):
        state.bind(st, name, Binding(val, "pool", target.span))
        return None
    if isinstance(val, LayoutPart):
        val = views.make_layout(st, val, stmt.value)
    if isinstance(val, (Pointer, ir.BufferAddress, TypedPointer)):
        state.bind(st, name, Binding(val, "pointer", target.span))
        return None
    if is_address(val):  # a pointer made from an integer: named once, `void* p = (void*)x;`
        var = ir.Var(val.dtype, state.fresh(st, name), target.span)
        state.bind(st, name, Binding(var, "pointer", target.span))
        return ir.LetStmt(var, val, stmt.span)
    # `k = T.meta_var(v)` names v itself (a run-time expression is substituted at each use, as in
    # TVMScript); a plain `k = 4` is a mutable scalar; tuples, lists and dicts are compile-time values
    if isinstance(val, CLASS_VALUES[1:2]):
        name_instance(st, name, val)  # C names after the binding: `bar_buf_ptr`
    if isinstance(val, (LayoutVal, Region, tuple, PyDict, Helper) + CLASS_VALUES) or (
            isinstance(val, PyConst) and not isinstance(val.value, (bool, int, float))) or \
            expr.is_dialect_call(st, stmt.value, ("meta_var",)):
        state.bind(st, name, Binding(val, "const", target.span))
        return None
    value = scalars.as_value(st, val, stmt.value.span)
    if value is POISON:
        state.bind(st, name, Binding(POISON, "other", target.span))
        return None
    buf = new_scalar(st, name, value.dtype, target.span)
    return ir.BufferStore(buf, SCALAR_INDEX, value, stmt.span)


def flush_named(st, named: ir.Buffer, original: ir.Buffer):
    """Rename the buffer an allocation or view produced to the name it is bound to."""
    for i, s in enumerate(st.pending):
        if isinstance(s, (ir.Allocate, ir.DeclView)) and s.buffer is original:
            st.pending[i] = type(s)(named, s.span)
            rename_storage(st, original, named)
    return None


def rename_storage(st, original, named):
    storage = original.storage
    if storage is not None and storage.name.startswith("\0"):
        new_name = state.fresh(st, named.name + "_ptr")
        storage.name = new_name
    if st.arena is original:
        st.arena = named
    _replace_once(st.views, original, named)
    _replace_once(st.statics, original, named)


def _replace_once(buffers: list, original, named) -> None:
    """A buffer enters `st.views` / `st.statics` once, when it is made, just before the statement
    that binds it renames it: searched from the end, so that binding the n-th of many views costs
    O(1), not O(n) (a rebuilt list made 20,000 views quadratic)."""
    for i in range(len(buffers) - 1, -1, -1):
        if buffers[i] is original:
            buffers[i] = named
            return


def name_anonymous_storage(st) -> None:
    """Storage of an allocation or view not bound to a name (`T.alloc_shared(...)[0]`) gets a
    generated C name."""
    for s in st.pending:
        if isinstance(s, (ir.Allocate, ir.DeclView)) and s.buffer.storage is not None \
                and s.buffer.storage.name.startswith("\0"):
            base = {"shared": "smem", "shared.dyn": "smem", "local": "regs"}.get(s.buffer.scope, "buf")
            s.buffer.storage.name = state.fresh(st, base + "_ptr")


def new_scalar(st, name: str, dtype: DType, span: Span) -> ir.Buffer:
    storage = ir.Storage(state.fresh(st, name + "_ptr"), dtype, "local", "array", 1, 0)
    buf = ir.Buffer(name, (ir.IntImm(INT32, 1),), dtype, "local", storage, None, None, 0, span, scalar=True)
    st.pending.append(ir.Allocate(buf, span))
    state.bind(st, name, Binding(buf, "scalar", span))
    return buf


def assign_tuple(st, target: ast.Tuple, val, stmt):
    """`a, b = x, y` (`*rest` and nested tuples allowed): the right side is evaluated in full,
    then each target is bound or assigned as `target = item` would be (a thread id, a buffer, a
    constant, a new mutable scalar, a store), each item evaluated once."""
    if val is POISON:
        for elt in target_names(target):
            if isinstance(elt, ast.Name) and existing_binding(st, elt.id) is None:
                state.bind(st, elt.id, Binding(POISON, "other", elt.span))
        return None
    if isinstance(val, IdTuple) and len(val.vars) != len(target.elts):
        st.diags.error("E0312", f"{len(target.elts)} names for {len(val.vars)} ids", target.span)
        return None
    parts = flatten_targets(st, target, val)
    if parts is None:
        return None
    # a mutable scalar is read now (its value, not the variable, is what the target gets)
    parts = [(t, scalars.load(st, v, SCALAR_INDEX, stmt.value.span) if isinstance(v, ir.Buffer) and v.scalar else v)
             for t, v in parts]
    writes = [t for t, _ in parts if not isinstance(t, ast.Name) or existing_binding(st, t.id) is not None]
    if writes and len(parts) > 1:  # `a, b = b, a`: every item is read before any target is written
        parts = [(t, effects.bind(st, v, "tmp", stmt.value.span) if isinstance(v, ir.Expr)
                  and not effects.is_invariant(v) else v) for t, v in parts]
    out = []
    for elt, item in parts:
        if isinstance(elt, ast.Subscript):
            out.append(store(st, elt, item, ast.Assign(stmt.span, elt, ast.Value(stmt.value.span, item))))
        elif not isinstance(elt, ast.Name):
            st.diags.error("E0312", "cannot assign to this expression", elt.span)
        elif existing_binding(st, elt.id) is not None:
            out.append(reassign(st, elt, existing_binding(st, elt.id), ast.Value(stmt.value.span, item), stmt))
        elif isinstance(item, ir.Var) and isinstance(val, IdTuple):
            threads.bind_id(st, elt, item)
        elif isinstance(item, PyConst):
            state.bind(st, elt.id, Binding(item, "const", elt.span))
        else:
            out.append(bind_new(st, elt, item, ast.Assign(stmt.span, elt, ast.Value(stmt.value.span, item))))
    return [s for s in out if s is not None]


def target_names(target):
    """The targets of a tuple target, nested tuples and `*rest` looked into."""
    for elt in target.elts:
        elt = elt.value if isinstance(elt, ast.Starred) else elt
        if isinstance(elt, (ast.Tuple, ast.List)):
            yield from target_names(elt)
        else:
            yield elt


def flatten_targets(st, target, val):
    """[(target, item)] for a tuple target unpacking val, nested tuples unpacked too; None after an error."""
    parts = pyeval.split_items(st, target, val)
    if parts is None:
        return None
    out = []
    for t, v in parts:
        if isinstance(t, (ast.Tuple, ast.List)):
            inner = flatten_targets(st, t, v)
            if inner is None:
                return None
            out.extend(inner)
        else:
            out.append((t, v))
    return out


def store(st, target: ast.Subscript, val, stmt):
    if any(i.__class__ is ast.Starred for i in target.indices):  # `A[*idx] = v`
        target = pyeval_lists.expand_subscript(st, target)
        if target is None:
            return None
    base = expr.elab(st, target.value)
    if base is POISON:
        return None
    if not isinstance(base, ir.Buffer):
        st.diags.error("E0312", f"cannot assign into {pyeval.kind_of(base)}", target.value.span)
        return None
    if len(target.indices) == 1 and (target.indices[0].__class__ is ast.Name or indexing.is_sequence_call(target.indices[0])):
        # `A[idx] = v`, `A[tuple(idx)] = v`: a tuple index is the indices written out
        target = pyeval_builtins.slice_index(st, target)
    indices, sliced = index_nodes(target)
    if sliced:
        st.diags.error("E0518", "assigning to a region is not supported", target.span,
                         help="store single elements in a loop")
        return None
    vector = indexing.ramp_access(st, base, indices, target.span)
    if vector is not None:
        return vector_store(st, base, vector, val, target, stmt)
    if len(indices) != base.ndim:
        indexing.wrong_index_count(st, base, len(indices), target.span)
        return None
    idx = indexing.index_values(st, base, indices)
    value_span = stmt.value.span
    value = stores.stored(st, val, value_span, base.dtype)
    if idx is POISON or value is POISON:
        return None
    if not scalars.direct_access_ok(st, base, target.span, "written"):
        return None
    if value.dtype != base.dtype:
        fix = f"store a vector with `{base.name}.vstore([...], value)`" if value.dtype.lanes > 1 else \
            f"convert it: `T.{base.dtype}(...)`"
        st.diags.error("E0303", f"cannot store {article(value.dtype)} value ({value.dtype.lanes} lanes) into one "
                                  f"{base.dtype} element of `{base.name}`", value_span, help=fix)
        return None
    return ir.BufferStore(base, idx, value, stmt.span)


def vector_store(st, base: ir.Buffer, vector, val, target: ast.Subscript, stmt):
    """`B[i, T.ramp(j, 1, 4)] = v`: the newer spelling of `B.vstore([i, j], v)`."""
    value = scalars.as_value(st, val, stmt.value.span)
    if vector is POISON or value is POISON or not scalars.direct_access_ok(st, base, target.span, "written"):
        return None
    vec, indices = vector
    if value.dtype != vec:
        st.diags.error("E0524", f"storing {article(value.dtype)} value into {vec.lanes} elements of "
                                  f"`{base.name}`", stmt.value.span,
                         help=f"store a {vec} vector, e.g. one loaded with `T.ramp`")
        return None
    return ir.BufferVecStore(base, indices, value, stmt.span)


def _stmt_AnnAssign(st, stmt: ast.AnnAssign):
    target = stmt.target
    if not isinstance(target, ast.Name):
        st.diags.error("E0312", "annotated assignments bind a plain name", target.span)
        return None
    if not may_annotate(st, target):
        return None
    ann = expr.elab(st, stmt.annotation)
    if isinstance(ann, LetType):
        return let(st, target, ann.dtype, stmt)
    if isinstance(ann, VarType):  # `T.let[T.Var(name, PointerType(...))]`
        return let(st, target, None, stmt, ann.pointer)
    if isinstance(ann, DTypeVal) and ann.dtype.kind != "handle":
        buf = new_scalar(st, target.id, ann.dtype, target.span)
        if stmt.value is None:
            return None
        val = stores.stored(st, expr.elab(st, stmt.value), stmt.value.span, ann.dtype)
        return scalar_store(st, buf, val, stmt.span, stmt.value.span)
    if isinstance(ann, ArrayType):
        if stmt.value is not None:
            st.diags.error("E0315", "a local array annotation takes no initial value", stmt.value.span,
                             help=f"declare it, then store the elements: `{target.id}[i] = ...`")
        elif any(e <= 0 for e in ann.shape):
            st.diags.error("E0503", "local array extents must be positive", stmt.annotation.span)
        else:
            shape = tuple(ir.IntImm(INT32, e) for e in ann.shape)
            buf = views.new_allocation(st, shape, ann.dtype, "local", None, 0, target.span)
            named = replace(buf, name=target.id)
            state.bind(st, target.id, Binding(named, "buffer", target.span))
            return flush_named(st, named, buf)
    elif ann is not POISON:
        st.diags.error("E0315", f"{kind_of(ann)} is not a type for a local name", stmt.annotation.span,
                         help="annotate with a dtype (`T.int32`), `T.let`, `T.let[T.int32]` or a local array "
                              "type (`T.float32[8]`)")
    state.bind(st, target.id, Binding(POISON, "other", target.span))
    return None


def let(st, target: ast.Name, dtype: DType | None, stmt, pointer: PointerTypeVal | None = None):
    """`x: T.let = v`: an immutable binding; constants are substituted where used. `pointer`: the
    pointer type a `T.let[T.Var(name, PointerType(...))]` binding holds."""
    name = target.id
    state.bind(st, name, Binding(POISON, "let", target.span))  # replaced below when the value checks
    if stmt.value is None:
        st.diags.error("E0315", "a `T.let` binding needs a value", stmt.span,
                         help=f"write `{name}: T.let = <value>`")
        return None
    val = expr.elab(st, stmt.value)
    if pointer is not None and not check_let_pointer(st, pointer, val, stmt.value.span):
        return None
    if isinstance(val, (Pointer, TypedPointer)) or (isinstance(val, PyConst)
                                                    and not isinstance(val.value, (bool, int, float))):
        state.bind(st, name, Binding(val, "let", target.span))
        return None
    value = scalars.as_value(st, val, stmt.value.span, dtype)
    if value is POISON:
        return None
    if dtype is not None and value.dtype != dtype:
        st.diags.error("E0303", f"`T.let[{dtype}]` bound to {article(value.dtype)} value", stmt.value.span,
                         help=f"convert it: `T.{dtype}(...)`")
        return None
    if isinstance(value, (ir.IntImm, ir.FloatImm)):
        state.bind(st, name, Binding(value, "let", target.span))  # a constant: substituted where used
        return None
    var = ir.Var(value.dtype, state.fresh(st, name), target.span)
    if is_nonneg(st, value):
        st.nonneg.add(var.name)
    if st.unroll_vars and value.dtype.is_int:  # a constant in each unrolled copy (unrolled.py)
        st.unroll_lets[var.name] = value
    state.bind(st, name, Binding(var, "let", target.span))
    return ir.LetStmt(var, value, stmt.span)


def is_nonneg(st, e: ir.Expr) -> bool:
    return ir.nonneg(e, st.nonneg)


def _stmt_AugAssign(st, stmt: ast.AugAssign):
    op = _BINOPS.get(stmt.op)
    if op is None:
        st.diags.error("E0306", f"`{stmt.op}=` is not supported", stmt.span)
        return None
    target = stmt.target
    if isinstance(target, ast.Name):
        existing = existing_binding(st, target.id)
        if existing is None:
            state.lookup(st, target.id, target.span)
            return None
        if not (isinstance(existing.value, ir.Buffer) and is_scalar_like(existing.value)):
            return reassign(st, target, existing, stmt.value, stmt)
        buf = existing.value
        current = scalars.load(st, buf, SCALAR_INDEX, target.span)
        new = scalars.arith(st, op, current, expr.elab(st, stmt.value), stmt.span, target.span, stmt.value.span)
        new = stores.stored(st, new, stmt.value.span, buf.dtype)
        return scalar_store(st, buf, new, stmt.span, stmt.value.span) if new is not POISON else None
    if isinstance(target, ast.Subscript):
        current = expr.elab(st, target)
        if isinstance(current, (ir.BufferLoad, ir.BufferVecLoad)):  # read and written at one index
            return update_element(st, op, current, stmt)
        new = scalars.arith(st, op, current, expr.elab(st, stmt.value), stmt.span, target.span, stmt.value.span)
        if new is POISON:
            return None
        return store(st, target, new, stmt)
    st.diags.error("E0312", "cannot assign to this expression", target.span)
    return None


def update_element(st, op: str, current, stmt: ast.AugAssign):
    """`A[i] op= v`: the element is read, then written at the same index, checked once; an index
    with side effects is computed once (effects.py). The read's checks are the write's."""
    indices = effects.share(st, list(current.indices), range(len(current.indices)),
                            "an element update whose index has side effects", stmt.target.span, "idx")
    if indices is None:
        return None
    current = current.__class__(current.dtype, current.buffer, tuple(indices), current.span)
    new = scalars.arith(st, op, current, expr.elab(st, stmt.value), stmt.span, stmt.target.span, stmt.value.span)
    if new is POISON:
        return None
    if isinstance(current, ir.BufferVecLoad):
        return ir.BufferVecStore(current.buffer, current.indices, new, stmt.span)
    return ir.BufferStore(current.buffer, current.indices, new, stmt.span)


def _stmt_If(st, stmt: ast.If):
    test = expr.elab(st, stmt.test)
    if isinstance(test, PyConst) or isinstance(test, ir.IntImm):
        taken = stmt.body if (test.value if isinstance(test, PyConst) else test.value) else stmt.orelse
        return block(st, taken, new_scope=False)  # docs/design.md, decision 6: only the taken branch exists
    cond = scalars.condition(st, test, stmt.test.span)
    header, st.pending = st.pending, []  # what the condition needs: before the `if`, not in its body
    st.depth += 1
    st.guards.append(cond if cond is not POISON else ir.IntImm(INT32, 1))
    with effects.Guard(st, cond):
        then = block(st, stmt.body)
    orelse = None
    if stmt.orelse:
        st.guards[-1] = ir.unary("!", st.guards[-1])
        with effects.Guard(st, effects.negate(cond)):
            orelse = block(st, stmt.orelse)
    st.guards.pop()
    st.depth -= 1
    st.pending = header
    if cond is POISON:
        return None
    return ir.If(cond, ir.seq(then), ir.seq(orelse) if orelse else None, stmt.span)


def _stmt_While(st, stmt: ast.While):
    if loop_else_refused(st, stmt):
        return None
    cond = scalars.condition(st, expr.elab(st, stmt.test), stmt.test.span)
    header, st.pending = st.pending, []
    with effects.Guard(st, cond):
        body = loop_body(st, stmt.body, "while")
    if cond is POISON:
        return None
    if header:
        # What the condition binds first (effects.py) is evaluated before every test:
        # `while (true) { int tmp = ...; if (!(cond)) { break; } body }`.
        st.pending = header
        name_anonymous_storage(st)
        st.pending = []
        test = ir.If(ir.unary("!", cond), ir.Break(stmt.span), None, stmt.test.span)
        return ir.While(ir.IntImm(BOOL, 1), ir.seq(header + [test] + body), stmt.span)
    return ir.While(cond, ir.seq(body), stmt.span)


def loop_body(st, stmts, kind: str) -> list[ir.Stmt]:
    """The body of a loop of kind serial / unroll / while, in the current scope."""
    st.depth += 1
    st.loops.append(kind)
    body = block(st, stmts, new_scope=kind == "while")
    st.loops.pop()
    st.depth -= 1
    return body


def _stmt_For(st, stmt: ast.For):
    if loop_else_refused(st, stmt):
        return None
    if legacy_launch.starts_device_code(st, stmt):  # `for tx in T.thread_binding(128, thread="threadIdx.x"):`
        launch = legacy_launch.binding_as_launch(st, stmt)
        return legacy_launch.with_launch(st, launch, block) if launch is not None else None
    rng = expr.elab(st, stmt.iter)
    targets = stmt.target.elts if isinstance(stmt.target, ast.Tuple) else (stmt.target,)
    ok = isinstance(rng, LoopRange)
    if not ok and rng is not POISON:
        st.diags.error("E0306", "a `for` loop iterates over `range(...)`, `T.serial`, `T.unroll` or "
                                  "`T.grid`", stmt.iter.span)
    if not all(isinstance(t, ast.Name) for t in targets):
        st.diags.error("E0312", "loop variables are plain names", stmt.target.span)
        return None
    if ok and len(targets) != len(rng.starts):
        st.diags.error("E0312", f"{len(targets)} loop variable{'s' if len(targets) != 1 else ''} for "
                                  f"{len(rng.starts)} loop{'s' if len(rng.starts) != 1 else ''}", stmt.target.span,
                         help=f"`T.grid` with {len(targets)} extents gives {len(targets)} loop variables"
                         if len(targets) > 1 else None)
        ok = False
    unrolled = ok and rng.kind == "unroll"
    wide = [False] * len(targets)
    if ok and not unrolled:  # the range is evaluated once, before the loop (loops.py)
        rng, wide = loops.evaluate_once(st, rng, [t.id for t in targets], stmt.iter.span)
    header, st.pending = st.pending, []  # what the range needs: before the loop, not in its body
    state.push(st)
    loop_vars = []
    for i, target in enumerate(targets):
        fresh = is_new_name(st, target)
        if not ok or not fresh:
            state.bind(st, target.id, Binding(POISON, "loopvar", target.span))
            continue
        start, step = rng.starts[i], rng.steps[i]
        var = ir.Var(start.dtype, state.fresh(st, target.id), target.span)
        if isinstance(step, ir.IntImm) and step.value > 0 and is_nonneg(st, start):
            st.nonneg.add(var.name)
        state.bind(st, target.id, Binding(var, "loopvar", target.span))
        loop_vars.append(var)
    copies = loops.unroll_copies(st, stmt, rng) if unrolled else 1
    if copies is None:
        state.pop(st)
        st.pending = header
        return None
    enclosing, st.unrolled = st.unrolled, st.unrolled * max(copies, 1)
    guards = 0
    if unrolled and loop_vars:  # unrolled.py checks each copy's divisions
        st.unroll_vars[loop_vars[0].name] = (loop_vars[0], loops.unroll_values(st, rng), targets[0].id)
    elif len(loop_vars) == len(targets):  # the body runs only when the range is not empty
        for var, start, stop, step in zip(loop_vars, rng.starts, rng.stops, rng.steps):
            if isinstance(step, ir.IntImm):
                st.conds.append(ir.binop("<" if step.value > 0 else ">", start, stop))
                guards += 1
    body = loop_body(st, stmt.body, "unroll" if unrolled else "serial")
    del st.conds[len(st.conds) - guards:]
    if unrolled and loop_vars:
        st.unroll_vars.pop(loop_vars[0].name, None)
    st.unrolled = enclosing
    st.pending = header
    state.pop(st)
    if not ok or len(loop_vars) != len(targets):
        return None
    if unrolled and not unrolled_fits(st, stmt, body, copies):
        return None
    if unrolled and copies == 0:
        return None  # an empty `T.unroll`: nothing to expand (its body was still checked)
    out: ir.Stmt = ir.seq(body)
    for k in reversed(range(len(loop_vars))):
        var, start, stop, step = loop_vars[k], rng.starts[k], rng.stops[k], rng.steps[k]
        kind = "unroll" if unrolled else ("pragma_unroll" if rng.unroll_factor else "serial")
        if wide[k]:
            out = loops.wide_loop(st, var, targets[k].id, start, stop, step, out, kind, rng.unroll_factor, stmt.span)
        else:
            out = ir.For(var, start, stop, step, out, kind, rng.unroll_factor, stmt.span)
    return out


def unrolled_fits(st, stmt: ast.For, body, copies: int) -> bool:
    """The code an unrolled loop becomes (with the enclosing `T.unroll` loops) stays within
    unrolled.UNROLL_NODES expression nodes and statements."""
    total = st.unrolled * copies * unrolled.unrolled_size(body)
    if total <= unrolled.UNROLL_NODES:
        return True
    st.diags.error("E0305", f"unrolling makes {total} expression nodes and statements (with the enclosing "
                            f"`T.unroll` loops); the limit is {unrolled.UNROLL_NODES}", stmt.iter.span,
                   help="use `T.serial(n, unroll=True)` for some of the loops and let the compiler unroll")
    return False


def _stmt_Break(st, stmt):
    return loop_exit(st, stmt, ir.Break(stmt.span), "break")


def _stmt_Continue(st, stmt):
    return loop_exit(st, stmt, ir.Continue(stmt.span), "continue")


def loop_exit(st, stmt, node, word):
    if not st.loops:
        st.diags.error("E0316", f"`{word}` outside a loop", stmt.span)
        return None
    if st.loops[-1] == "unroll":
        st.diags.error("E0316", f"`{word}` inside an unrolled loop (`T.unroll`)", stmt.span,
                         help="`T.unroll` expands its body at compile time; use `T.serial(n, unroll=True)` "
                              "for a loop that can be left early")
        return None
    return node


def _stmt_Return(st, stmt: ast.Return):
    if stmt.value is not None:
        val = expr.elab(st, stmt.value)
        if not (isinstance(val, PyConst) and val.value in (0, None)):
            st.diags.error("E0306", "a kernel returns nothing; write `return`", stmt.value.span)
            return None
    return ir.Return(stmt.span)


def _stmt_Assert(st, stmt: ast.Assert):
    return static_assert(st, stmt, host=False)


def static_assert(st, stmt: ast.Assert, *, host: bool):
    """A constant condition is checked now; otherwise device code traps when it fails."""
    test = expr.elab(st, stmt.test)
    message = ""
    if stmt.msg is not None:
        message = expr.const_str(st, stmt.msg, "the assertion message") or ""
    if isinstance(test, (PyConst, ir.IntImm)):
        if not test.value:
            st.diags.error("E0317", "static assertion failed" + (f": {message}" if message else ""),
                             stmt.test.span)
        return None
    if host:  # a check of the parameters (`assert n % 4 == 0`): the kernel traps at its start
        if isinstance(test, ir.Expr) and test.dtype.lanes == 1 and effects.is_invariant(test):
            cond = scalars.condition(st, test, stmt.test.span)
            return None if cond is POISON else ir.Trap(cond, message, stmt.span)
        if test is not POISON:
            st.diags.error("E0401", "an `assert` before `T.device_entry()` on more than the parameters is not "
                                      "supported yet", stmt.test.span,
                             help="move it after `T.device_entry()`, where it traps when it fails")
        return None
    cond = scalars.condition(st, test, stmt.test.span)
    return None if cond is POISON else ir.Trap(cond, message, stmt.span)


@handler("static_assert", "cond", "msg=''")
def _static_assert(st, node, a):
    test = expr.elab(st, a["cond"])
    message = "" if is_default(a["msg"]) else expr.const_str(st, a["msg"], "the assertion message") or ""
    if isinstance(test, (PyConst, ir.IntImm)):
        if not test.value:
            st.diags.error("E0317", "static assertion failed" + (f": {message}" if message else ""),
                             a["cond"].span)
    elif test is not POISON:
        st.diags.error("E0202", "`T.static_assert` needs a compile-time condition", a["cond"].span,
                         help="use `assert cond` for a check at run time")
    return Void(ir.Seq(()))


def _stmt_Import(st, stmt):
    st.diags.error("E0201", "imports belong at module level", stmt.span)
    return None


_KINDS = {"let": "an immutable `T.let` binding", "loopvar": "a loop variable", "id": "a thread id",
          "param": "a kernel parameter", "const": "a constant", "var": "a symbolic extent",
          "buffer": "a buffer", "pointer": "a pointer binding", "handle": "a handle parameter",
          "namespace": "the dialect module", "builtin": "the dialect module", "layout": "an imported layout name",
          "axis": "an imported layout axis", "import": "an imported name"}


_stmt_ImportFrom = _stmt_Import
_STMT = DispatchTable("_stmt_", globals())  # statement class -> its _stmt_ function
