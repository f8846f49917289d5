"""Classes of the file, run at compile time as TVMScript runs `@T.meta_class` classes while it
parses: a `class` statement (module level, in a kernel, in a plain helper) makes a ClassVal;
calling it makes an Instance and runs `__init__`; methods are the file's helpers (macros.py),
called with the instance first: a plain method is run by the interpreter, an `@T.inline` /
`@T.macro` one is inlined where it is called. `self.x = v` rebinds the attribute, except in
inlined code where the attribute holds a mutable scalar (`T.local_scalar`): there it stores into
the scalar, as TVMScript's assignment does. `raise` reached at compile time is an error at the
`raise`. Nothing here executes Python."""
from __future__ import annotations

from dataclasses import fields, replace

from transpiler import ir
from transpiler.diag.diagnostics import did_you_mean
from transpiler.syntax import ast
from transpiler.sema.library import class_dataclass, class_enum, macros
from transpiler.sema.expressions import expr
from transpiler.evaluator import box as pyeval_box, core as pyeval
from transpiler.sema import state
from transpiler.sema.kernel import statements
from transpiler.sema.library.class_values import BoundMethod, ClassVal, Instance, PropertyVal, StaticMethod, SuperCall, SuperProxy
from transpiler.evaluator.builtins import _AnyName, _fail
from transpiler.evaluator.values import POISON, Binding, Builtin, Helper, Poison, PyConst, Void
from transpiler.sema.values import Namespace

# the exceptions `raise` may name; any of them is a compile-time error with its message
EXCEPTIONS = ("Exception", "ValueError", "TypeError", "RuntimeError", "NotImplementedError", "AssertionError",
              "IndexError", "KeyError", "AttributeError")
LIBRARY_PREFIX = "<tirxc library>/"  # the file name of the library's sources (sema/library/)


# -- definitions -----------------------------------------------------------------------------------
def _is_meta_class(st, dec) -> bool:
    if not (isinstance(dec, ast.Attribute) and dec.attr == "meta_class" and isinstance(dec.value, ast.Name)):
        return False
    binding = state.binding(st, dec.value.id) if not st.at_module_level else None
    binding = binding or _scope_binding(st, dec.value.id) or st.module.globals.get(dec.value.id)
    return binding is not None and isinstance(binding.value, Namespace) and binding.value.path == ("T",)


def _scope_binding(st, name: str):
    for scope in reversed(st.scopes):
        if name in scope:
            return scope[name]
    return None


def define(st, cdef: ast.ClassDef, scopes: tuple | None = None):
    """The class a `class` statement makes (POISON after an error). scopes: the scopes its methods
    see (default: where the class is defined, as Python's methods see the enclosing function's
    names and never the class body's)."""
    first = pyeval.errors(st)
    meta, data, enum_kind = False, None, None
    for dec in cdef.decorators:
        if _is_meta_class(st, dec):
            meta = True
        elif (found := class_dataclass.options(st, dec)) is not None:
            data = found
        else:
            st.diags.error("E0331", "a class takes no decorator but `@T.meta_class` or `@dataclass`", dec.span)
    bases = []
    for base in cdef.bases:
        if isinstance(base, ast.Name) and base.id == "object" and _scope_binding(st, "object") is None \
                and "object" not in st.module.globals:
            continue
        if class_enum.base_kind(st, base) is not None:
            enum_kind = class_enum.base_kind(st, base)
            continue
        value = expr.elab(st, base)
        if isinstance(value, ClassVal) and value.enum is not None:  # a subclass of an Enum of the file
            if value.enum[1]:
                st.diags.error("E0331", f"`{value.name}` has members: an enum with members cannot be extended",
                               base.span)
                continue
            enum_kind = value.enum[0]
            bases.append(value)
        elif isinstance(value, ClassVal):
            bases.append(value)
        elif not isinstance(value, Poison):
            st.diags.error("E0331", f"the base of a class must be a class, not {pyeval.kind_of(value)}", base.span)
    mro = _linearize(st, cdef, bases)
    members: dict = {}  # filled below
    cls = ClassVal(cdef.name, members, (), cdef.span, meta)
    object.__setattr__(cls, "linear", (cls,) + tuple(mro or ()))  # (frozen: its MRO names itself)
    helper_scopes = tuple(st.scopes) if scopes is None and not st.at_module_level else scopes
    body = macros._body(cdef)
    own = {}  # the class body's names, seen by its later class attributes (not by its methods)
    for stmt in body:
        if isinstance(stmt, ast.Pass):
            continue
        if isinstance(stmt, ast.FunctionDef):
            member = _method(st, stmt, helper_scopes, cls)
            if member is not None:
                members[stmt.name] = member
                own[stmt.name] = Binding(member, "const", stmt.name_span)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)) and isinstance(stmt.target, ast.Name) \
                and stmt.value is not None and not getattr(stmt, "chain", ()):
            saved = st.scopes
            st.scopes = list(st.scopes) + [own]
            try:
                value = expr.elab(st, stmt.value)
            finally:
                st.scopes = saved
            members[stmt.target.id] = value
            own[stmt.target.id] = Binding(value, "const", stmt.target.span)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is None:
            continue  # `x: int`: a declaration only
        else:
            st.diags.error("E0339", f"{_describe(stmt)} in a class body is not supported yet", stmt.span,
                           help="a class body holds methods and class attributes (`name = value`)")
    if enum_kind is not None and pyeval.errors(st) == first:
        class_enum.complete(st, cdef, cls, members, enum_kind)
    if data is not None and pyeval.errors(st) == first:
        init = class_dataclass.complete(st, cdef, cls, members, data)
        if init is not None:
            members["__init__"] = _method(st, init, helper_scopes, cls)
    return POISON if pyeval.errors(st) > first else cls


def _describe(stmt) -> str:
    return {ast.ClassDef: "a nested class", ast.Assign: "this assignment", ast.If: "an `if` statement",
            ast.For: "a `for` loop", ast.AugAssign: "an augmented assignment",
            ast.ExprStmt: "an expression statement"}.get(type(stmt), f"a `{type(stmt).__name__}` statement")


def _linearize(st, cdef, bases: list):
    """C3 linearization of the bases' MROs (Python's order); None when there is none."""
    seqs = [list(b.linear) for b in bases] + [list(bases)]
    out = []
    while True:
        seqs = [s for s in seqs if s]
        if not seqs:
            return out
        for seq in seqs:
            head = seq[0]
            if not any(head in s[1:] for s in seqs):
                break
        else:
            st.diags.error("E0331", f"the bases of `{cdef.name}` cannot be put in one method resolution order",
                           cdef.name_span)
            return None
        out.append(head)
        for s in seqs:
            if s[0] is head:
                del s[0]


def _method(st, fdef: ast.FunctionDef, scopes, cls: ClassVal):
    """A member made by a `def` in a class body: a Helper (plain or inlined), or a static method or
    property wrapping one."""
    wrap = None
    decorators = list(fdef.decorators)
    if decorators and isinstance(decorators[0], ast.Name) and decorators[0].id in ("staticmethod", "property"):
        wrap = decorators.pop(0).id
    if decorators and isinstance(decorators[0], ast.Name) and decorators[0].id == "classmethod":
        st.diags.error("E0339", "`@classmethod` is not supported yet", decorators[0].span,
                       help="use a `@staticmethod` or a module-level function")
        return None
    plain = replace(fdef, decorators=tuple(decorators))
    kind = macros.decorator_kind(st, plain)
    if kind is None:
        st.diags.error("E0331", "a method takes no decorator but `@T.inline`, `@T.macro`, `@staticmethod` or "
                                "`@property`", decorators[0].span)
        return None
    if wrap is None and not fdef.params:
        st.diags.error("E0331", f"method `{fdef.name}` needs a first parameter for the instance (`self`)",
                       fdef.name_span)
        return None
    helper = macros.define(st, plain, kind)
    if helper is None:
        return None
    scopes = helper.scopes if scopes is None else scopes
    if wrap != "staticmethod" and fdef.params:  # `super()` in it: the class after `cls`, for its first argument
        scopes = tuple(scopes) + ({"super": Binding(SuperCall(cls, fdef.params[0].name), "const", fdef.name_span)},)
    helper = replace(helper, scopes=tuple(scopes))
    return StaticMethod(helper) if wrap == "staticmethod" else PropertyVal(helper) if wrap == "property" else helper


def module_class(ms_st, cdef: ast.ClassDef, scopes: tuple | None = None) -> None:
    """A class at module level (check.py), bound like a helper: a second class of the same name
    rebinds it, as in Python."""
    ms_st.module.globals[cdef.name] = Binding(define(ms_st, cdef, scopes), "const", cdef.name_span)


def _stmt_ClassDef(st, cdef: ast.ClassDef):
    """A class in a kernel body or an inlined helper: bound in the current scope."""
    if not statements.is_new_name(st, ast.Name(cdef.name_span, cdef.name)):
        return None
    state.bind(st, cdef.name, Binding(define(st, cdef), "const", cdef.name_span))
    return None


def _run_ClassDef(st, cdef: ast.ClassDef) -> None:
    """A class in a plain helper: a local name of the call."""
    cls = define(st, cdef)
    if isinstance(cls, Poison):
        raise macros._Stop
    st.scopes[-1][cdef.name] = Binding(cls, "const", cdef.name_span)


# -- attributes --------------------------------------------------------------------------------------
def attribute(st, base, node: ast.Attribute):
    """`obj.name` of an instance, a class or `super()`."""
    name = node.attr
    if isinstance(base, SuperProxy):
        obj = base.obj
        if not isinstance(obj, Instance):
            return POISON
        after = obj.cls.linear[obj.cls.linear.index(base.owner) + 1:] if base.owner in obj.cls.linear else ()
        for cls in after:
            if name in cls.members:
                member = cls.members[name]
                if isinstance(member, Helper):
                    return BoundMethod(obj, member)
                if isinstance(member, StaticMethod):
                    return member.func
                if isinstance(member, PropertyVal):
                    return call_method(st, member.func, obj, ast.Call(node.span, node, (), ()))
                return member
        return _no_attribute(st, f"`super()` of `{base.owner.name}`", [n for c in after for n in c.members], node)
    if isinstance(base, Instance):
        if name in base.attrs:
            return base.attrs[name]
        owner, member = base.cls.member(name)
        if owner is None:
            if name == "__class__":
                return base.cls
            return _no_attribute(st, f"`{base.cls.name}` object", list(base.attrs) + _members(base.cls), node)
        if isinstance(member, Helper):
            return BoundMethod(base, member)
        if isinstance(member, StaticMethod):
            return member.func
        if isinstance(member, PropertyVal):
            return call_method(st, member.func, base, ast.Call(node.span, node, (), ()))
        return member
    if name == "__name__":
        return PyConst(base.name)
    owner, member = base.member(name)
    if owner is None:
        return _no_attribute(st, f"class `{base.name}`", _members(base), node)
    if isinstance(member, (StaticMethod, PropertyVal)):
        return member.func
    return member


def _members(cls: ClassVal) -> list:
    return [n for c in cls.linear for n in c.members]


def _no_attribute(st, what: str, names: list, node: ast.Attribute):
    if node.attr.startswith("__") and node.attr.endswith("__"):  # (`__dict__`, `__name__`: Python has them)
        st.diags.error("E0339", f"`{node.attr}` of {what} is not supported yet", node.span)
        return POISON
    st.diags.error("E0332", f"{what} has no attribute `{node.attr}`", node.span,
                   help=did_you_mean(node.attr, [n for n in names if not n.startswith("__")]))
    return POISON


# -- calls -------------------------------------------------------------------------------------------
def call(st, func, node: ast.Call):
    """A call of a class (a new instance), of a bound method, or of `super`."""
    if isinstance(func, ClassVal):
        return instantiate(st, func, node)
    if isinstance(func, SuperCall):
        return super_(st, func, node)
    if isinstance(func, Instance):  # `obj(...)`: its class's `__call__`
        owner, method = func.cls.member("__call__")
        if not isinstance(method, Helper):
            st.diags.error("E0333", f"a `{func.cls.name}` object is not callable (its class has no `__call__`)",
                           node.func.span)
            return POISON
        return call_method(st, method, func, node)
    return call_method(st, func.func, func.obj, node)


def super_(st, func: SuperCall, node: ast.Call):
    """`super()` (the method's class and first argument) or `super(C, obj)`."""
    if node.keywords or len(node.args) not in (0, 2):
        st.diags.error("E0333", "`super` takes no arguments, or a class and an instance", node.span)
        return POISON
    if not node.args:
        binding = _scope_binding(st, func.first)
        return SuperProxy(func.owner, binding.value if binding is not None else POISON)
    owner, obj = expr.elab(st, node.args[0]), expr.elab(st, node.args[1])
    if isinstance(owner, Poison) or isinstance(obj, Poison):
        return POISON
    if not (isinstance(owner, ClassVal) and isinstance(obj, Instance) and owner in obj.cls.linear):
        st.diags.error("E0333", "`super(C, obj)` needs a class and an instance of it", node.span)
        return POISON
    return SuperProxy(owner, obj)


def instantiate(st, cls: ClassVal, node: ast.Call):
    if cls.enum is not None:  # `Mode(1)`: the member with that value
        if len(node.args) != 1 or node.keywords:
            st.diags.error("E0333", f"`{cls.name}(value)` takes one value", node.span)
            return POISON
        value = expr.elab(st, node.args[0])
        return POISON if isinstance(value, Poison) else class_enum.lookup(st, cls, node, value)
    obj = Instance(cls, {})
    owner, init = cls.member("__init__")
    if init is None:
        if node.args or node.keywords:
            st.diags.error("E0333", f"`{cls.name}()` takes no arguments (the class has no `__init__`)", node.span)
            return POISON
        return obj
    if not isinstance(init, Helper):
        st.diags.error("E0333", f"`{cls.name}.__init__` must be a method", node.span)
        return POISON
    result = call_method(st, init, obj, node)
    if isinstance(result, Poison):
        return POISON
    if isinstance(result, Void):
        st.pending.append(result.stmt)
    elif not (isinstance(result, PyConst) and result.value is None):
        st.diags.error("E0333", f"`{cls.name}.__init__` returns a value; it must return None", node.span)
        return POISON
    return obj


def call_method(st, helper: Helper, obj, node: ast.Call):
    """The helper called with obj before the call's arguments. Errors inside tirxc's library are
    reported at the call in the user's file."""
    first, pending = len(st.diags.items), len(st.pending)
    call_node = ast.Call(node.span, node.func, (ast.Value(node.func.span, obj),) + tuple(node.args), node.keywords)
    result = macros.call_helper(st, helper, call_node)
    if not str(node.span.file).startswith(LIBRARY_PREFIX):
        relocate(st, first, node.span)
        if len(st.pending) > pending:
            st.pending[pending:] = [respan(s, node.span) for s in st.pending[pending:]]
        if isinstance(result, Void):
            result = Void(respan(result.stmt, node.span))
    if isinstance(result, PyConst) and result.value is None and not st.at_module_level:
        return Void(ir.seq([]))  # a method called for its effect (`bar.init(1)`) is a statement
    return result


def relocate(st, first: int, span) -> None:
    """Diagnostics reported inside tirxc's library since `first` point at `span`, the user's call."""
    items = st.diags.items
    for i in range(first, len(items)):
        d = items[i]
        inside = str(d.span.file).startswith(LIBRARY_PREFIX)
        notes = tuple(n for n in d.notes if not (n.span is not None and str(n.span.file).startswith(LIBRARY_PREFIX))
                      and not (inside and n.span == span))
        if inside or notes != d.notes:
            items[i] = replace(d, span=span if inside else d.span, notes=notes)


def respan(s, span):
    """The statement with every span inside tirxc's library replaced by `span` (the user's call), so
    that `--line-info` attributes library code to the line that called it."""
    changes = {}
    for f in fields(s):
        value = getattr(s, f.name)
        if f.name == "span":
            if value is not None and str(value.file).startswith(LIBRARY_PREFIX):
                changes["span"] = span
        elif isinstance(value, ir.Stmt):
            new = respan(value, span)
            if new is not value:
                changes[f.name] = new
        elif isinstance(value, tuple) and value and isinstance(value[0], ir.Stmt):
            new = tuple(respan(item, span) for item in value)
            if any(a is not b for a, b in zip(new, value)):
                changes[f.name] = new
    return replace(s, **changes) if changes else s


# -- raise, is ---------------------------------------------------------------------------------------
def _raise_message(st, stmt: ast.Raise) -> str | None:
    exc = stmt.exc
    if exc is None:
        return "`raise` without an exception"
    func = exc.func if isinstance(exc, ast.Call) else exc
    if not (isinstance(func, ast.Name) and func.id in EXCEPTIONS):
        st.diags.error("E0330", "`raise` names one of the builtin exceptions", exc.span,
                       help=f"tirxc knows {', '.join(EXCEPTIONS)}")
        return None
    if not isinstance(exc, ast.Call) or not exc.args:
        return f"{func.id} raised"
    message = expr.elab(st, exc.args[0])
    if isinstance(message, Poison):
        return None
    if not isinstance(message, PyConst):
        st.diags.error("E0330", "the message of a `raise` must be a compile-time value", exc.args[0].span)
        return None
    return f"{func.id}: {message.value}"


def _run_Raise(st, stmt: ast.Raise) -> None:
    message = _raise_message(st, stmt)
    if message is not None:
        st.diags.error("E0330", message, stmt.span, help="raised while tirxc evaluated the file's Python")
    raise macros._Stop


def _stmt_Raise(st, stmt: ast.Raise):
    """`raise` in kernel statements (an inlined method): reached at compile time, unless a
    run-time condition guards it, which a compile-time error cannot honour."""
    if st.guards:
        st.diags.error("E0335", "a `raise` under a run-time condition", stmt.span,
                       help="`raise` is evaluated while compiling; check a run-time value with `assert`")
        return None
    message = _raise_message(st, stmt)
    if message is not None:
        st.diags.error("E0330", message, stmt.span, help="raised while tirxc evaluated the file's Python")
    return None


def identity(st, node: ast.Compare):
    """`a is b`, `a is not b` (chains of them too): identity of compile-time values (`x is None`)."""
    vals = [expr.elab(st, n) for n in (node.left,) + tuple(node.comparators)]
    if any(isinstance(v, Poison) for v in vals):
        return POISON
    result = True
    for op, left, right in zip(node.ops, vals, vals[1:]):
        if op not in ("is", "is not"):
            st.diags.error("E0339", f"`{op}` in a chain with `is` is not supported yet", node.span)
            return POISON
        if _identity_undefined(left, right):
            st.diags.error("E0339", f"`{op}` between two {_kinds(left, right)} is not supported: CPython's answer depends "
                                    "on how each object was made (`int('1000') is int('1000')` is False, `1000 is 1000` "
                                    "True)", node.span, help="compare values with `==`")
            return POISON
        same = _same(left, right)
        result = result and (same if op == "is" else not same)
    return PyConst(result)


def _identity_undefined(a, b) -> bool:
    """Whether `a is b` of two constants of one type is an accident of CPython's object making: an
    int outside the cached -5..256, a float, a string or a non-empty tuple (None, the bools, `()`
    and the small ints are one object each)."""
    if not (a.__class__ is PyConst and b.__class__ is PyConst and type(a.value) is type(b.value)):
        return False
    value = a.value
    if type(value) is int:
        return not (-5 <= value <= 256 and -5 <= b.value <= 256)
    return type(value) in (float, str) or type(value) is tuple and (value != () or b.value != ())


def _kinds(a, b) -> str:
    return {int: "ints", float: "floats", str: "strings", tuple: "tuples"}[type(a.value)]


def _same(a, b) -> bool:
    box_a, box_b = pyeval_box.box_of(a), pyeval_box.box_of(b)
    if box_a is not None or box_b is not None:
        return box_a is box_b  # a list or set is one object: every alias shares its box
    if isinstance(a, PyConst) and isinstance(b, PyConst):
        x, y = a.value, b.value
        if x is None or y is None or isinstance(x, bool) or isinstance(y, bool):
            return x is y
        return type(x) is type(y) and x == y  # small constants are one object in Python too
    if isinstance(a, Builtin) and isinstance(b, Builtin):
        return a.name == b.name  # (one object in Python: `math.gcd`, a `SwizzleMode` member)
    return a is b


def isinstance_of(st, value, classes) -> PyConst | None:
    """`isinstance(x, C)` / `isinstance(x, (C, D))` for classes of the file; None when `classes`
    holds none of them (the builtin's own types are the evaluator's)."""
    kinds = classes if isinstance(classes, tuple) else (classes,)
    if not any(isinstance(k, ClassVal) for k in kinds):
        return None
    if not all(isinstance(k, ClassVal) for k in kinds):
        return None
    return PyConst(isinstance(value, Instance) and any(k in value.cls.linear for k in kinds))


# -- `with obj:` -------------------------------------------------------------------------------------
def with_object(st, stmt: ast.With):
    """`with role:` for an instance whose class defines `__enter__`: the body runs between its
    `__enter__` and `__exit__` (each inlined), under `if obj.__guard__():` when the class defines
    `__guard__` (tirxc's protocol for guards such as WarpRole's; TVMScript's builder frames are
    not available). NotImplemented when the statement is not of this form."""
    if len(stmt.items) != 1:
        return NotImplemented
    item = stmt.items[0]
    context = item.context.func if isinstance(item.context, ast.Call) else item.context
    if not isinstance(context, ast.Name):
        return NotImplemented
    binding = _scope_binding(st, context.id) or st.module.globals.get(context.id)
    obj = binding.value if binding is not None else None
    if isinstance(obj, ClassVal) and context is not item.context:  # `with WarpRole(...):`
        obj = expr.elab(st, item.context)
        if isinstance(obj, Poison):
            return None
        if not isinstance(obj, Instance) or obj.cls.member("__enter__")[0] is None:
            st.diags.error("E0339", f"`with` on a `{obj.cls.name if isinstance(obj, Instance) else '?'}` object, "
                                    "whose class has no `__enter__`, is not supported yet", item.context.span)
            return None
    elif not isinstance(obj, Instance) or obj.cls.member("__enter__")[0] is None or context is not item.context:
        return NotImplemented
    span = item.context.span
    ref = ast.Value(span, obj)

    def method(name):
        return ast.ExprStmt(span, ast.Call(span, ast.Attribute(span, ref, name), (), ()))

    body = (method("__enter__"),)
    if item.target is not None:
        body += (ast.Assign(item.target.span, item.target, ref),)
    body += tuple(stmt.body)
    if obj.cls.member("__exit__")[0] is not None:
        body += (method("__exit__"),)
    if obj.cls.member("__guard__")[0] is not None:
        test = ast.Call(span, ast.Attribute(span, ref, "__guard__"), (), ())
    else:
        test = ast.Constant(span, True)
    return statements.statement(st, ast.If(stmt.span, test, body, ()))


# -- `dataclasses.replace` -------------------------------------------------------------------------------
def _dataclass_replace(st, node, args, kwargs):
    """`dataclasses.replace(obj, **changes)`: a new instance of obj's class."""
    obj = class_dataclass.instance_of(st, node, args[0], "replace")
    if obj is None:
        return POISON
    names = [f.name for f in class_dataclass.fields_of(obj.cls)]
    unknown = [k for k in kwargs if k not in names]
    if unknown:
        return _fail(st, node, f"`{obj.cls.name}` has no field `{unknown[0]}`")
    values = {name: kwargs.get(name, obj.attrs.get(name, POISON)) for name in names}
    call_node = ast.Call(node.span, node.func, (), tuple(ast.Keyword(node.span, name, ast.Value(node.span, value))
                                                        for name, value in values.items()))
    return call(st, obj.cls, call_node)


# the library builtin that calls a class (class_dataclass.py has the others), as the evaluator calls its
# builtins (evaluator/host.py, `library_builtins`)
BUILTINS = {"dataclasses.replace": (_dataclass_replace, 1, 1, _AnyName())}
