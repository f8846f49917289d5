"""Functions of the file: plain `def` helpers, run by an interpreter over the AST when they are
called (they compute compile-time values, or expressions over run-time ones), and `@T.inline` /
`@T.macro` device helpers, whose bodies are checked as kernel statements at each call (inlined).

Scoping follows TVMScript: a helper sees its parameters, then the scopes it was defined in
(module level: the module's names; nested in a kernel: the kernel's scopes, late-bound, as
Python closures are), never the caller's names (`@T.macro(hygienic=False)`: the caller's). Its
own names live in a scope of their own, discarded after the call; their C names are fresh
(state.fresh), so two inlinings never collide. Every error inside a call gets a note for each
call on the way to it. Nothing here executes Python: the interpreter walks the AST, with the
step budget of the evaluator (evaluator/core.py) and a depth limit for recursion."""
from __future__ import annotations

from dataclasses import replace

from transpiler import ir
from transpiler.diag.diagnostics import Note, did_you_mean
from transpiler.syntax import ast
from transpiler.sema.expressions import effects, expr
from transpiler.evaluator import core as pyeval, lists as pyeval_lists
from transpiler.sema import state
from transpiler.sema.kernel import factories, statements
from transpiler.sema.library import instance_attrs
from transpiler.sema.library.scoping import bound_names, declared_names
from transpiler.evaluator.box import new_dict
from transpiler.evaluator.values import Binding, Frame, Helper, POISON, Poison, PyConst, Void
from transpiler.sema.values import Namespace

MAX_DEPTH = 64  # nested helper calls (recursion included)

DECORATORS = ("inline", "macro")


# -- definitions -----------------------------------------------------------------------------------
def decorator_kind(st, fdef: ast.FunctionDef):
    """"def" for no decorator, "inline" / "macro" / "macro-unhygienic" for `@T.inline` /
    `@T.macro` (any dialect alias, with or without arguments), None for anything else."""
    if not fdef.decorators:
        return "def"
    if len(fdef.decorators) != 1:
        return None
    dec = fdef.decorators[0]
    target = dec.func if isinstance(dec, ast.Call) else dec
    if not (isinstance(target, ast.Attribute) and target.attr in DECORATORS and isinstance(target.value, ast.Name)):
        return None
    base = target.value.id
    binding = state.binding(st, base) if not st.at_module_level else None
    binding = binding or st.module.globals.get(base)
    if binding is None or not isinstance(binding.value, Namespace) or binding.value.path != ("T",):
        return None
    if target.attr == "macro" and isinstance(dec, ast.Call):
        for kw in dec.keywords:
            if kw.name == "hygienic" and isinstance(kw.value, ast.Constant) and kw.value.value is False:
                return "macro-unhygienic"
    return target.attr


def define(st, fdef: ast.FunctionDef, kind: str) -> Helper | None:
    """The helper a `def` makes, its default values evaluated now (as Python does); None after an
    error."""
    defaults = []  # (annotations are documentation: never evaluated, as TVMScript leaves a helper's alone)
    if not _check_params(st, fdef):
        return None
    keyword_only = False
    for param in fdef.params:
        keyword_only = keyword_only or param.star == "*"
        if param.default is not None:
            value = expr.elab(st, param.default)
            if isinstance(value, Poison):
                return None
            defaults.append((param.name, value))
        elif defaults and not keyword_only and not param.star:
            st.diags.error("E0138", f"parameter `{param.name}` without a default follows one with a default",
                           param.span)
            return None
    # the scopes it is defined in: a kernel's, or a helper's or comprehension's (also at module level)
    declared = declared_names(fdef.body, ast.Global), declared_names(fdef.body, ast.Nonlocal)
    local_names = frozenset(p.name for p in fdef.params if p.name) | bound_names(fdef.body)
    return Helper(fdef, kind, tuple(st.scopes), tuple(defaults), *declared,
                  local_names=local_names - declared[0] - declared[1])


def _check_params(st, fdef) -> bool:
    """`*args` / `**kwargs` / a bare `*` where Python allows them (the parser takes them anywhere)."""
    seen_star = seen_kw = False
    for k, param in enumerate(fdef.params):
        problem = None
        if seen_kw:
            problem = "no parameter may follow `**" + fdef.params[k - 1].name + "`"
        elif param.star == "*" and seen_star:
            problem = "only one `*` parameter is allowed"
        elif param.star == "*" and not param.name and (k + 1 == len(fdef.params) or fdef.params[k + 1].star == "**"):
            problem = "a bare `*` must be followed by a keyword-only parameter"
        if problem is not None:
            st.diags.error("E0342", problem, param.span)
            return False
        seen_star = seen_star or param.star == "*"
        seen_kw = seen_kw or param.star == "**"
    return True


def nested_def(st, fdef: ast.FunctionDef):
    """A `def` inside a kernel: a helper bound in the current scope."""
    kind = decorator_kind(st, fdef)
    if kind is None:
        st.diags.error("E0203", "a function inside a kernel takes no decorator but `@T.inline` or `@T.macro`",
                       fdef.decorators[0].span)
        return None
    if not statements.is_new_name(st, ast.Name(fdef.name_span, fdef.name)):
        return None
    helper = define(st, fdef, kind)
    state.bind(st, fdef.name, Binding(helper if helper is not None else POISON, "const", fdef.name_span))
    return None


def _elab_Lambda(st, node: ast.Lambda):
    """`lambda params: body`: a plain helper whose body returns `body` (its defaults evaluated now,
    the scopes it is written in visible to it, as a Python closure sees them)."""
    fdef = ast.FunctionDef(node.span, "<lambda>", node.params, (), (ast.Return(node.body.span, node.body),),
                           node.span)
    helper = define(st, fdef, "def")
    return POISON if helper is None else helper



# -- calls -----------------------------------------------------------------------------------------
def bind_params(st, helper: Helper, node: ast.Call):
    """Parameter name -> elaborated argument, evaluated in the caller's scopes in source order;
    None after an error."""
    fdef = helper.fdef
    params = fdef.params
    star = next((p for p in params if p.star == "*"), None)
    kwstar = next((p for p in params if p.star == "**"), None)
    positional = [p.name for p in params[:params.index(star) if star else len(params)] if not p.star]
    names = [p.name for p in params if not p.star]  # may be given by keyword
    values: dict = {}
    ok = True
    if len(node.args) > len(positional) and (star is None or not star.name):
        st.diags.error("E0138", f"`{fdef.name}` takes {len(positional)} positional argument"
                                f"{'s' if len(positional) != 1 else ''}, got {len(node.args)}",
                       node.args[len(positional)].span)
        ok = False
    for name, arg in zip(positional, node.args):
        values[name] = expr.elab(st, arg)
    if star is not None and star.name:  # `*args`: the other positional arguments, a tuple
        rest = [expr.elab(st, arg) for arg in node.args[len(positional):]]
        values[star.name] = POISON if any(isinstance(v, Poison) for v in rest) else pyeval.pack(rest)
    extra: dict = {}
    for kw in node.keywords:
        if kw.name not in names and kwstar is None:
            st.diags.error("E0138", f"`{fdef.name}` has no parameter `{kw.name}`", kw.span,
                           help=did_you_mean(kw.name, names))
            ok = False
        elif kw.name in values or kw.name in extra:
            st.diags.error("E0138", f"`{fdef.name}` got two values for `{kw.name}`", kw.span)
            ok = False
        elif kw.name in names:
            values[kw.name] = expr.elab(st, kw.value)
        else:
            extra[kw.name] = expr.elab(st, kw.value)
    if kwstar is not None:  # `**kwargs`: the other keyword arguments, a dict
        values[kwstar.name] = new_dict(extra)
    for name, default in helper.defaults:
        values.setdefault(name, default)
    missing = [n for n in names if n not in values]
    if missing:
        st.diags.error("E0138", f"`{fdef.name}` is missing its `{missing[0]}` argument", node.span,
                       notes=[Note("defined here", fdef.name_span or fdef.span)])
        ok = False
    if not ok or any(isinstance(v, Poison) for v in values.values()):
        return None
    return values


def call_helper(st, helper: Helper, node: ast.Call):
    chain = getattr(st, "call_chain", None)
    if chain is None:
        chain = st.call_chain = []
    if len(chain) >= MAX_DEPTH:
        st.diags.error("E0136", f"helper calls nested more than {MAX_DEPTH} deep (`{helper.fdef.name}` "
                                f"calls itself without end?)", node.span)
        return POISON
    if st.at_module_level and helper.kind != "def":
        st.diags.error("E0139", f"`@T.{helper.kind}` helper `{helper.fdef.name}` holds device code; call it "
                                f"inside a kernel", node.span)
        return POISON
    # an `@T.inline` / `@T.macro` expansion costs its statements from the file's one step budget
    # (a plain helper's statements each draw a step as they run): a helper that calls itself twice
    # per level stops there, not after 2^depth expansions
    if helper.kind != "def" and not pyeval.step(st, node.span, 1 + len(helper.fdef.body)):
        return POISON
    values = bind_params(st, helper, node)
    if values is None:
        return POISON
    first_diag = len(st.diags.items)
    chain.append((helper.fdef.name, node.span))
    try:
        if helper.kind == "def":
            result = interpret(st, helper, values, node)
        else:
            result = inline(st, helper, values, node)
    finally:
        chain.pop()
    _annotate(st, first_diag, helper.fdef.name, node.span)
    return result


def _annotate(st, first: int, name: str, span) -> None:
    """Each diagnostic reported inside the call gets a note for the call; one reported already
    (the same helper failing the same way at another call) is dropped."""
    items = st.diags.items
    seen = {(d.code, d.span, d.message) for d in items[:first] if d.severity == "error"}
    kept = []
    for d in items[first:]:
        key = (d.code, d.span, d.message)
        if d.severity == "error" and key in seen:
            continue
        seen.add(key)
        note = Note(f"in `{name}`, called here", span)
        if any(n.message == note.message and n.span == note.span for n in d.notes):
            kept.append(d)  # recursion through one call: one note
        else:
            kept.append(replace(d, notes=d.notes + (note,)))
    items[first:] = kept


def _scopes_for(st, helper: Helper, values: dict, node) -> list:
    params = Frame(helper.local_names) if helper.kind == "def" else {}
    for p in helper.fdef.params:
        if p.name:  # (a bare `*` binds nothing)
            params[p.name] = Binding(values[p.name], "buffer" if isinstance(values[p.name], ir.Buffer) else "const",
                                     p.span)
    outer = list(st.scopes) if helper.kind == "macro-unhygienic" else list(helper.scopes)
    return outer + [params]


def inline(st, helper: Helper, values: dict, node: ast.Call):
    """An `@T.inline` / `@T.macro` call: the body checked as kernel statements where the call is;
    an argument with side effects is evaluated once, before the body. A body that ends with
    `return value` is an expression helper (a tirxc extension: TVMScript makes that `return` a
    return from the kernel): its statements come before the caller's statement, and the call's
    value is the returned value."""
    for name, value in values.items():
        if isinstance(value, ir.Expr) and not effects.is_pure(value):
            values[name] = effects.bind(st, value, name, node.span)
    body = _body(helper.fdef)
    ret = body[-1] if body and isinstance(body[-1], ast.Return) and body[-1].value is not None else None
    saved, outer = st.scopes, st.pending  # what the caller's statement declared stays before it
    st.scopes, st.pending = _scopes_for(st, helper, values, node), []
    try:
        stmts = statements.block(st, body[:-1] if ret is not None else body, new_scope=False)
        result = expr.elab(st, ret.value) if ret is not None else None
        stmts += st.pending
    finally:
        st.scopes, st.pending = saved, outer
    if ret is None:
        return Void(ir.seq(stmts))
    st.pending.extend(stmts)
    return result


def _body(fdef: ast.FunctionDef):
    body = fdef.body
    if body and isinstance(body[0], ast.ExprStmt) and isinstance(body[0].value, ast.Constant) \
            and isinstance(body[0].value.value, str):
        return body[1:]
    return body


# -- the interpreter of plain helpers ---------------------------------------------------------------
class _Return(Exception):
    def __init__(self, value):
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Stop(Exception):
    """An error was reported: the call's value is POISON (Python would have raised)."""


def interpret(st, helper: Helper, values: dict, node: ast.Call):
    """A plain helper's call: its statements run over elaborated values (compile-time ones, or
    expressions over run-time values, as Python builds them in TVMScript); its value is what
    `return` gives (None without one). Device statements it reaches (`T.cuda.cta_sync()`) are
    emitted before the statement that called it, as TVMScript's builder does."""
    saved, saved_globals, saved_nonlocals = st.scopes, st.global_names, st.nonlocal_names
    st.scopes, st.global_names = _scopes_for(st, helper, values, node), helper.global_names
    st.nonlocal_names = helper.nonlocal_names
    try:
        _run(st, _body(helper.fdef))
        return PyConst(None)
    except _Return as ret:
        return ret.value
    except _Stop:
        return POISON
    except (_Break, _Continue):  # the parser rejects them outside loops; kept safe
        return POISON
    finally:
        st.scopes, st.global_names, st.nonlocal_names = saved, saved_globals, saved_nonlocals


def _where(st) -> str:
    """Where the interpreter runs, for a message."""
    return "at module level" if st.scopes and st.scopes[0] is st.module.globals else "in a plain helper function"


def module_statement(st, stmt) -> None:
    """A statement of the file's own Python at module level (`for` building a list, `XS.append(v)`,
    `D[k] = v`, `if` on constants ...), which Python runs before TVMScript parses the kernels: run by
    this interpreter, its names bound as module-level names."""
    saved, st.scopes = st.scopes, [st.module.globals]
    try:
        _run(st, [stmt])
    except (_Stop, _Return, _Break, _Continue):
        pass
    finally:
        st.scopes = saved


def _run(st, stmts) -> None:
    for stmt in stmts:
        if not pyeval.step(st, stmt.span):
            raise _Stop
        before = pyeval.errors(st)
        _RUN.get(stmt.__class__, _unsupported)(st, stmt)
        if pyeval.errors(st) > before:
            raise _Stop


def _local(st, name: str, value, span) -> None:
    _scope_of(st, name, span)[name] = Binding(value, "buffer" if isinstance(value, ir.Buffer) else "const", span)


def _scope_of(st, name: str, span):
    """The scope an assignment to (or `del` of) name changes: the module's for a `global` name, the
    nearest enclosing function's that binds it for a `nonlocal` one, else the running frame's."""
    if name in st.global_names:
        return st.module.globals
    if name in st.nonlocal_names:
        for scope in reversed(st.scopes[:-1]):
            if scope is not st.module.globals and name in scope:
                return scope
        st.diags.error("E0346", f"no binding for nonlocal `{name}` found", span,
                       help="`nonlocal` names a variable of an enclosing function, bound before this call")
        raise _Stop
    return st.scopes[-1]


def _value(st, node):
    val = expr.elab(st, node)
    if isinstance(val, Poison):
        raise _Stop
    if isinstance(val, ir.Expr) and not effects.is_pure(val) and not st.at_module_level:
        val = effects.once(st, val, "a value with side effects", node.span)  # evaluated once, as in Python
        if val is None:
            raise _Stop
    return val


def _assign_to(st, target, value) -> None:
    if isinstance(target, ast.Name):
        _local(st, target.id, value, target.span)
        return
    if isinstance(target, ast.Attribute):  # `self.x = v` (classes.py)
        if not instance_attrs.assign_py(st, target, value):
            raise _Stop
        return
    if isinstance(target, (ast.Tuple, ast.List)):
        parts = pyeval.split_items(st, target, value)
        if parts is None:
            raise _Stop
        for t, v in parts:
            _assign_to(st, t, v)
        return
    if isinstance(target, ast.Subscript):
        if any(i.__class__ is ast.Starred for i in target.indices):
            target = pyeval_lists.expand_subscript(st, target)
            if target is None:
                raise _Stop
        base = expr.elab(st, target.value)
        if isinstance(base, Poison):
            raise _Stop
        if isinstance(base, ir.Buffer):
            st.diags.error("E0139", "a plain helper function computes values; a store into a buffer belongs in an "
                                    "`@T.inline` helper", target.span)
            raise _Stop
        if len(target.indices) != 1:
            st.diags.error("E0341", f"{pyeval.kind_of(base)} takes one index", target.span)
            raise _Stop
        if not pyeval_lists.set_item(st, base, target, value):
            raise _Stop
        return
    st.diags.error("E0139", "a plain helper function assigns names, tuples of names, attributes and list or "
                            "dict items", target.span)
    raise _Stop


def _run_Assign(st, stmt: ast.Assign) -> None:
    value = _value(st, stmt.value)
    for target in (stmt.target,) + stmt.chain:  # `a = b = value`: one value, each target in order
        _assign_to(st, target, value)


def _run_AnnAssign(st, stmt: ast.AnnAssign) -> None:
    if stmt.value is not None:
        _assign_to(st, stmt.target, _value(st, stmt.value))


def _run_AugAssign(st, stmt: ast.AugAssign) -> None:
    if isinstance(stmt.target, ast.Attribute):  # `self.x += v`
        _assign_to(st, stmt.target, _value(st, ast.BinOp(stmt.span, stmt.op, stmt.target, stmt.value)))
        return
    if isinstance(stmt.target, ast.Subscript):  # `xs[i] += v`: the index evaluated once
        target = stmt.target
        if len(target.indices) == 1 and target.indices[0].__class__ is not ast.Starred:
            index = _value(st, target.indices[0])
            target = ast.Subscript(target.span, target.value, (pyeval.as_node(index, target.indices[0].span),))
        _assign_to(st, target, _value(st, ast.BinOp(stmt.span, stmt.op, target, stmt.value)))
        return
    if not isinstance(stmt.target, ast.Name):
        _assign_to(st, stmt.target, None)  # reports
    current, value = _value(st, stmt.target), _value(st, stmt.value)
    changed = pyeval_lists.augment(st, current, stmt.op, value, stmt)  # a list or set changes in place
    if changed is POISON:
        raise _Stop
    if changed is None:
        changed = _value(st, ast.BinOp(stmt.span, stmt.op, ast.Value(stmt.target.span, current),
                                       ast.Value(stmt.value.span, value)))
    _local(st, stmt.target.id, changed, stmt.target.span)


def _run_ExprStmt(st, stmt: ast.ExprStmt) -> None:
    if isinstance(stmt.value, ast.Constant):
        return
    val = expr.elab(st, stmt.value)
    if isinstance(val, Poison):
        raise _Stop
    emitted = val.stmt if isinstance(val, Void) else ir.Evaluate(val, stmt.span) \
        if isinstance(val, ir.Call) and not val.func.startswith("math:") else None
    if emitted is not None:
        if st.at_module_level:
            st.diags.error("E0139", "this helper emits device code; call it inside a kernel", stmt.span)
            raise _Stop
        st.pending.append(emitted)


def _run_If(st, stmt: ast.If) -> None:
    cond = pyeval.truth(st, expr.elab(st, stmt.test), stmt.test, f"an `if` {_where(st)}")
    if cond is None:
        raise _Stop
    _run(st, stmt.body if cond else stmt.orelse)


def _loop_body(st, body) -> bool:
    """The body once; False when it ran `break`."""
    try:
        _run(st, body)
    except _Continue:
        pass
    except _Break:
        return False
    return True


def _run_For(st, stmt: ast.For) -> None:
    items = pyeval.iterate(st, pyeval.iterable(st, stmt.iter), stmt.iter, f"a `for` {_where(st)}")
    if items is None:
        raise _Stop
    try:
        for item in items:  # (a generator expression's items are made here, one before each pass)
            _assign_to(st, stmt.target, item)
            if not _loop_body(st, stmt.body):
                return  # (`break` skips the `else` block)
    except pyeval.GeneratorStopped:
        raise _Stop
    _run(st, stmt.orelse)


def _run_While(st, stmt: ast.While) -> None:
    while True:
        cond = pyeval.truth(st, expr.elab(st, stmt.test), stmt.test, f"a `while` {_where(st)}")
        if cond is None or not pyeval.step(st, stmt.span):
            raise _Stop
        if not cond:
            _run(st, stmt.orelse)  # (a `break` or `continue` in it belongs to an enclosing loop)
            return
        if not _loop_body(st, stmt.body):
            return


def _run_Return(st, stmt: ast.Return) -> None:
    raise _Return(PyConst(None) if stmt.value is None else _value(st, stmt.value))


def _run_Break(st, stmt) -> None:
    raise _Break


def _run_Continue(st, stmt) -> None:
    raise _Continue


def _run_Pass(st, stmt) -> None:
    return


def _run_Try(st, stmt) -> None:
    st.diags.error("E0139", f"`try` statements are not supported {_where(st)} yet", stmt.span,
                   help="compute the value without exceptions (check with `if`)")
    raise _Stop


def _run_Global(st, stmt) -> None:
    return  # (declared for the whole function: scoping.declared_names)


def _run_Nonlocal(st, stmt) -> None:
    return  # (declared for the whole function: scoping.declared_names)


def _run_Delete(st, stmt: ast.Delete) -> None:
    for target in stmt.targets:  # in order, as Python deletes them
        _delete(st, target)


def _delete(st, target) -> None:
    """`del name` unbinds it, `del xs[i]` / `del xs[a:b]` / `del d[k]` removes items, `del obj.x` an
    instance's attribute, as Python does."""
    if isinstance(target, ast.Name):
        scope = _scope_of(st, target.id, target.span)
        if target.id not in scope:
            st.diags.error("E0300", f"unknown name `{target.id}`", target.span)
            raise _Stop
        del scope[target.id]
    elif isinstance(target, (ast.Tuple, ast.List)):
        for item in target.elts:
            _delete(st, item)
    elif isinstance(target, ast.Subscript) and len(target.indices) == 1 and \
            target.indices[0].__class__ is not ast.Starred:
        if not pyeval_lists.delete_item(st, _value(st, target.value), target):
            raise _Stop
    elif isinstance(target, ast.Attribute):
        if not instance_attrs.delete_py(st, target):
            raise _Stop
    else:
        st.diags.error("E0139", "`del` removes names, list or dict items and attributes", target.span)
        raise _Stop


def _run_Assert(st, stmt: ast.Assert) -> None:
    cond = pyeval.truth(st, expr.elab(st, stmt.test), stmt.test, f"an `assert` {_where(st)}")
    if cond is None:
        raise _Stop
    if not cond:
        message = "" if stmt.msg is None else expr.const_str(st, stmt.msg, "the assertion message") or ""
        st.diags.error("E0317", "assertion failed" + (f": {message}" if message else ""), stmt.test.span)


def _run_FunctionDef(st, stmt: ast.FunctionDef) -> None:
    kind = decorator_kind(st, stmt)
    if kind is None and st.fdef is None and factories.is_prim_func(st, stmt):  # a kernel factory's kernel
        _local(st, stmt.name, factories.make(st, stmt), stmt.name_span)
        return
    if kind is None:
        st.diags.error("E0203", "a nested function takes no decorator but `@T.inline` or `@T.macro`",
                       stmt.decorators[0].span)
        raise _Stop
    helper = define(st, stmt, kind)
    if helper is None:
        raise _Stop
    _local(st, stmt.name, helper, stmt.name_span)


def _unsupported(st, stmt) -> None:
    st.diags.error("E0139", f"`{type(stmt).__name__}` statements are not supported {_where(st)} yet",
                   stmt.span)
    raise _Stop


_RUN = {cls: fn for cls, fn in ((getattr(ast, name[5:], None), fn) for name, fn in list(globals().items())
                                if name.startswith("_run_")) if cls is not None}
