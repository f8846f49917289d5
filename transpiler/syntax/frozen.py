"""`@frozen_node`: the frozen dataclass of the syntax tree, the IR and the checker's values,
without the methods `dataclass(frozen=True)` generates for every class.

`@frozen_node` means `@dataclass(frozen=True, eq=False, repr=False)`: the same fields, defaults,
`fields()`, `replace()` and `__match_args__`, and assigning or deleting a field raises
FrozenInstanceError. What differs is how: `dataclass(frozen=True)` compiles a `__setattr__` and a
`__delattr__` for each class (two `exec` calls, about 0.3 ms a class, 40 ms of every tirxc process
over the 120 node classes a run imports). Here the guard is one pair of functions shared by every
class, and the one generated method is `__init__`, compiled when the class makes its first node.
It stores each field through `object.__setattr__` as dataclass's does, bound once rather than
looked up per field (the tree builder and the checker make a node for every token and every
value); not through the instance's `__dict__`: touching it gives up CPython's compact attribute
storage, and every later read of a field gets slower. (A misordered default, which dataclass
reports when the class is defined, is reported at its first node.)"""
from __future__ import annotations

from dataclasses import MISSING, FrozenInstanceError, dataclass, fields
from dataclasses import replace as _dataclass_replace


def _refuse_assignment(self, name, value):
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _refuse_deletion(self, name):
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def frozen_node(cls: type) -> type:
    """The class as a frozen dataclass comparing by identity, with no generated repr; a subclass
    of one is made with `@frozen_node` too. A class that needs equality or a repr defines them
    (ir.Expr does)."""
    cls = dataclass(cls, init=False, repr=False, eq=False)  # the fields, nothing generated
    cls.__setattr__ = _refuse_assignment
    cls.__delattr__ = _refuse_deletion
    cls.__init__ = _init_on_first_use(cls)
    return cls


def _init_on_first_use(cls: type):
    """An `__init__` that compiles the class's own on its first call and puts it in its place: a
    run makes nodes of about half the classes it imports (36 of 118 for saxpy)."""
    def __init__(self, *args, **kwargs):
        init = cls.__init__ = _generated_init(cls)
        init(self, *args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    return __init__


_NO_VALUE = object()  # the default of a parameter whose field has a default_factory


def _generated_init(cls: type):
    """`__init__(self, <fields in order>)`, defaults as dataclass gives them, then `__post_init__`
    when the class has one."""
    params, body, env = ["self"], [], {"_NO_VALUE": _NO_VALUE, "_set_field": object.__setattr__}
    for f in fields(cls):
        if f.kw_only or not f.init:
            raise TypeError(f"{cls.__name__}.{f.name}: @frozen_node takes positional init fields only")
        if f.default is not MISSING:
            env[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        elif f.default_factory is not MISSING:
            env[f"_factory_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_NO_VALUE")
            body.append(f"if {f.name} is _NO_VALUE: {f.name} = _factory_{f.name}()")
        elif "=" in params[-1]:
            raise TypeError(f"{cls.__name__}: non-default argument {f.name!r} follows default argument")
        else:
            params.append(f.name)
        body.append(f"_set_field(self, {f.name!r}, {f.name})")
    if hasattr(cls, "__post_init__"):
        body.append("self.__post_init__()")
    source = f"def __init__({', '.join(params)}):\n" + "".join(f"    {line}\n" for line in body or ["pass"])
    exec(compile(source, f"<{cls.__qualname__}.__init__ of @frozen_node>", "exec"), env)
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


_INIT_FIELDS: dict[type, tuple[str, ...] | None] = {}  # a dataclass -> its fields, None: not all plain


def replace(node, /, **changes):
    """`dataclasses.replace`, without its walk over the class's fields at every call (a few
    microseconds: the checker renames a buffer for every view it binds). A class with a field
    that is not a plain init field (`init=False`, an InitVar) goes through dataclasses.replace."""
    cls = node.__class__
    names = _INIT_FIELDS.get(cls, MISSING)
    if names is MISSING:
        plain = fields(cls)
        names = _INIT_FIELDS[cls] = tuple(f.name for f in plain) \
            if len(plain) == len(cls.__dataclass_fields__) and all(f.init for f in plain) else None
    if names is None:
        return _dataclass_replace(node, **changes)
    for name in names:
        if name not in changes:
            changes[name] = getattr(node, name)
    return cls(**changes)
