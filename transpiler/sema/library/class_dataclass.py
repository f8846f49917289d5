"""`@dataclass` classes of the file (`from dataclasses import dataclass`), as Python's dataclasses
module makes them: the class body's annotated names are its fields, in order, after those of its
dataclass bases; an `__init__` taking them (positionally or by keyword, with their defaults) is
written for the class unless it has its own, and calls `__post_init__` when the class has one.
`field(default=...)`, `field(default_factory=...)`, `asdict`, `astuple` and `replace` work on them. Used by real kernel files for
their configurations (`config = Config(num_heads=64); config.block_q`)."""
from __future__ import annotations

from dataclasses import dataclass

from transpiler.syntax import ast
from transpiler.sema.expressions import expr
from transpiler.sema import state
from transpiler.sema.library.class_values import GENERATED_INIT_SELF, ClassVal, Instance, _fields_of
from transpiler.evaluator import stdlib as pyeval_stdlib
from transpiler.evaluator.builtins import _AnyName, _fail
from transpiler.evaluator.box import new_dict
from transpiler.evaluator.values import POISON, Builtin, Poison, PyConst

NAMES = ("dataclass", "field", "fields", "asdict", "astuple", "replace")
_OPTIONS = ("init", "repr", "eq", "order", "unsafe_hash", "frozen", "match_args", "kw_only", "slots")
_NO_DEFAULT = object()


@dataclass(frozen=True, eq=False, repr=False)
class FieldSpec:
    """`field(default=v)` / `field(default_factory=f)` in a class body, until the class is complete."""
    default: object  # an elaborated value, or _NO_DEFAULT
    factory: object = None  # the callable `default_factory` names, or None


@dataclass(frozen=True, eq=False, repr=False)
class Field:
    name: str
    default: object  # an elaborated value, or _NO_DEFAULT
    kw_only: bool
    span: object
    factory: object = None  # `field(default_factory=f)`: f, called by `__init__` for each instance


def options(st, dec) -> dict | None:
    """The options of a `@dataclass` / `@dataclass(frozen=True)` decorator; None when dec is another
    decorator."""
    func = dec.func if isinstance(dec, ast.Call) else dec
    if isinstance(func, ast.Attribute) and func.attr == "dataclass" and isinstance(func.value, ast.Name):
        module = state.bound_value(st, func.value.id)
        if not (isinstance(module, Builtin) and module.name == "dataclasses"):
            return None
    elif not (isinstance(func, ast.Name) and _is_dataclass(state.bound_value(st, func.id))):
        return None
    found = {}
    for kw in dec.keywords if isinstance(dec, ast.Call) else ():
        if kw.name not in _OPTIONS:
            st.diags.error("E0331", f"`dataclass` has no option `{kw.name}`", kw.span)
            continue
        option = expr.elab(st, kw.value)
        if isinstance(option, PyConst):
            found[kw.name] = option.value
        elif not isinstance(option, Poison):
            st.diags.error("E0331", f"`dataclass`'s option `{kw.name}` must be a compile-time constant", kw.span)
    if isinstance(dec, ast.Call) and dec.args:
        st.diags.error("E0331", "`dataclass` takes its options by keyword", dec.args[0].span)
    return found


def _is_dataclass(value) -> bool:
    return isinstance(value, Builtin) and value.name == "dataclasses.dataclass"


def fields_of(cls: ClassVal) -> tuple:
    """The class's fields, its bases' first (Python's order: along the reversed MRO)."""
    return _fields_of(cls)


def complete(st, cdef: ast.ClassDef, cls: ClassVal, members: dict, found: dict):
    """Record the class's fields and return the `__init__` to add (a FunctionDef), or None."""
    own = []
    for stmt in cdef.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and not _class_var(stmt):
            name = stmt.target.id
            default = _NO_DEFAULT if stmt.value is None else members.get(name, _NO_DEFAULT)
            factory = None
            if isinstance(default, FieldSpec):
                default, factory = default.default, default.factory
                if default is _NO_DEFAULT:
                    members.pop(name, None)
                else:
                    members[name] = default
            own.append(Field(name, default, bool(found.get("kw_only")), stmt.target.span, factory))
    object.__setattr__(cls, "dataclass_fields", tuple(own))
    object.__setattr__(cls, "dataclass_options", dict(found))
    if "__init__" in members or found.get("init") is False:
        return None
    return _init(cdef, fields_of(cls), any("__post_init__" in c.members for c in cls.linear))


def _class_var(stmt: ast.AnnAssign) -> bool:
    ann = stmt.annotation
    ann = ann.value if isinstance(ann, ast.Subscript) else ann
    return (isinstance(ann, ast.Name) and ann.id == "ClassVar") or (isinstance(ann, ast.Attribute)
                                                                    and ann.attr == "ClassVar")


def _init(cdef: ast.ClassDef, fields: tuple, post_init: bool) -> ast.FunctionDef:
    """`def __init__(self, a, b=1, *, c=2): self.a = a; ...; self.__post_init__()`, spanning the class
    name (where an error about a call of it points)."""
    span = cdef.name_span
    params = [ast.Param(span, GENERATED_INIT_SELF, None)]
    positional = [f for f in fields if not f.kw_only]
    keyword = [f for f in fields if f.kw_only]
    for group in (positional, keyword):
        if group is keyword and keyword:
            params.append(ast.Param(span, "", None, None, "*"))
        for f in group:
            default = ast.Value(f.span, _FACTORY_DEFAULT) if f.factory is not None else \
                None if f.default is _NO_DEFAULT else ast.Value(f.span, f.default)
            params.append(ast.Param(f.span, f.name, None, default))
    body = [ast.Assign(f.span, ast.Attribute(f.span, ast.Name(f.span, GENERATED_INIT_SELF), f.name),
                       _field_value(f))
            for f in fields]
    if post_init:
        body.append(ast.ExprStmt(span, ast.Call(span, ast.Attribute(span, ast.Name(span, GENERATED_INIT_SELF), "__post_init__"),
                                                (), ())))
    return ast.FunctionDef(span, "__init__", tuple(params), (), tuple(body) or (ast.Pass(span),), span)


_FACTORY_DEFAULT = Builtin("dataclasses._HAS_DEFAULT_FACTORY")  # (no name of the file spells it)


def _field_value(f: Field) -> ast.Expr:
    """What `__init__` stores into a field: its parameter, or for a `default_factory` field left out
    a new value of the factory, `f() if x is _HAS_DEFAULT_FACTORY else x`, as CPython writes it."""
    given = ast.Name(f.span, f.name)
    if f.factory is None:
        return given
    left_out = ast.Compare(f.span, given, ("is",), (ast.Value(f.span, _FACTORY_DEFAULT),))
    return ast.IfExp(f.span, left_out, ast.Call(f.span, ast.Value(f.span, f.factory), (), ()), given)


# -- the module's functions -------------------------------------------------------------------------
def instance_of(st, node, value, what: str):
    if isinstance(value, Instance) and value.cls.dataclass_fields is not None:
        return value
    _fail(st, node, f"`{what}` takes an instance of a dataclass")
    return None


def _field(st, node, args, kwargs):
    if "default_factory" in kwargs and "default" in kwargs:
        return _fail(st, node, "cannot specify both default and default_factory")  # (CPython's ValueError)
    return FieldSpec(kwargs.get("default", _NO_DEFAULT), kwargs.get("default_factory"))


def _asdict(st, node, args, kwargs):
    obj = instance_of(st, node, args[0], "asdict")
    return POISON if obj is None else _as(st, node, obj, lambda items: new_dict(dict(items)), {})


def _astuple(st, node, args, kwargs):
    obj = instance_of(st, node, args[0], "astuple")
    return POISON if obj is None else _as(st, node, obj, lambda items: tuple(v for _, v in items), {})


def _as(st, node, obj: Instance, make, memo: dict):
    """asdict / astuple: nested dataclass instances converted too, and every other value a deep
    copy (a list in a field is a new list in the result), as Python does."""
    items = []
    for f in fields_of(obj.cls):
        value = obj.attrs.get(f.name, POISON)
        if isinstance(value, Instance) and value.cls.dataclass_fields is not None:
            value = _as(st, node, value, make, memo)
        else:
            value = pyeval_stdlib.deep_copy(st, node.span, value, memo)
        if value is POISON:
            return POISON
        items.append((f.name, value))
    return make(items)


# what `fields(...)` gives: objects with the field's `name` and `default`, as dataclasses.Field has
_FIELD_CLASS = ClassVal("Field", {}, (), None)
object.__setattr__(_FIELD_CLASS, "linear", (_FIELD_CLASS,))


def _fields(st, node, args, kwargs):
    """`fields(cls_or_instance)`: its fields, in order."""
    target = args[0]
    cls = target.cls if isinstance(target, Instance) else target
    if not (isinstance(cls, ClassVal) and cls.dataclass_fields is not None):
        return _fail(st, node, "`fields` takes a dataclass or an instance of one")
    return tuple(Instance(_FIELD_CLASS, {"name": PyConst(f.name),
                                         "default": PyConst(None) if f.default is _NO_DEFAULT else f.default})
                 for f in fields_of(cls))


def _decorator_only(st, node, args, kwargs):
    return _fail(st, node, "`dataclass` is a class decorator: write `@dataclass` above a `class`")


# `dataclasses`' functions, as the evaluator calls its builtins (evaluator/host.py, `library_builtins`);
# `replace`, which calls the class, is classes.py's
BUILTINS = {
    "dataclasses.field": (_field, 0, 0, ("default", "default_factory", "init", "repr", "hash", "compare", "metadata",
                                         "kw_only")),
    "dataclasses.asdict": (_asdict, 1, 1, ()),
    "dataclasses.fields": (_fields, 1, 1, ()),
    "dataclasses.astuple": (_astuple, 1, 1, ()),
    "dataclasses.dataclass": (_decorator_only, 0, 1, _AnyName()),
}
