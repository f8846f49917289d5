"""The values of the file's classes (sema/library/classes.py): a class, an instance, a method bound to
its instance, and the `@staticmethod` / `@property` wrappers, and the C names of what an instance
made (`name_instance`). Kept apart from classes.py so the statement and expression checkers can
use them without importing it."""
from __future__ import annotations

from dataclasses import dataclass

from transpiler import ir
from transpiler.syntax.source import Span
from transpiler.sema import state
from transpiler.evaluator import ops as pyeval_ops, standins
from transpiler.evaluator.budget import ITEMS_SEEN


# The name of `self` in a dataclass's generated `__init__` (class_dataclass.py): not an identifier, so
# no code of the file can name it. Its assignments bind fields as CPython's `object.__setattr__`
# does, also in a frozen dataclass, whose `obj.x = v` is refused anywhere else (instance_attrs.py).
GENERATED_INIT_SELF = "<self>"


@dataclass(frozen=True, eq=False, repr=False)
class ClassVal:
    """A class of the file (or of tirxc's library): its members in definition order (name ->
    Helper, StaticMethod, PropertyVal or an elaborated class attribute), and its method
    resolution order (itself first)."""
    name: str
    members: dict
    linear: tuple
    span: Span
    meta: bool = False  # decorated `@T.meta_class`
    dataclass_fields: tuple | None = None  # a `@dataclass`'s own fields (class_dataclass.py)
    dataclass_options: dict | None = None  # its decorator's options (`eq=`, `order=`, `frozen=` ...)
    enum: tuple | None = None  # an Enum's ("Enum" or "IntEnum", its members) (class_enum.py)

    def iteration_items(self):
        """What iterating the class gives (`for m in Mode`, `len(Mode)`): an Enum's members in definition
        order, aliases left out; None for another class."""
        return list(self.enum[1]) if self.enum is not None else None

    def member(self, name: str):
        """The first class in the MRO that defines `name`, and the member; (None, None) if none does."""
        for cls in self.linear:
            if name in cls.members:
                return cls, cls.members[name]
        return None, None


@dataclass(eq=False, repr=False)
class Instance:
    """An instance, made at compile time: its attributes are compile-time values, run-time
    expressions, buffers (scalars among them), pools, other instances."""
    cls: ClassVal
    attrs: dict

    def python_stand_in(self, memo: dict):
        """The CPython stand-in of this instance (evaluator/standins.py): a dataclass instance or an
        enum member whose class writes none of the special methods a stand-in answers; NOT_PYTHON
        for any other instance, or when a field holds a value CPython cannot be given."""
        cls = self.cls
        if any(cls.member(name)[0] is not None for name in _SPECIAL_METHODS):
            return pyeval_ops.NOT_PYTHON
        if cls.enum is not None:
            kind, _ = cls.enum
            name, value = self.attrs["name"].value, pyeval_ops.to_python(self.attrs["value"], memo)
            if kind == "IntEnum" and isinstance(value, int):
                return standins.IntEnumMember(self, cls.name, name, value)
            return standins.EnumMember(self, cls.name, name, value)
        if cls.dataclass_fields is None:
            return pyeval_ops.NOT_PYTHON
        fields = []
        memo[ITEMS_SEEN] = memo.get(ITEMS_SEEN, 0) + len(self.attrs)  # (ops.python_of charges the fields)
        for f in _fields_of(cls):
            value = pyeval_ops.to_python(self.attrs.get(f.name), memo)
            if value is pyeval_ops.NOT_PYTHON:
                return pyeval_ops.NOT_PYTHON
            fields.append((f.name, value))
        options = cls.dataclass_options or {}
        eq = options.get("eq", True)
        hashable = None if not eq else bool(options.get("frozen") or options.get("unsafe_hash"))
        return standins.DataclassObject(self, cls, cls.name, tuple(fields), hashable, bool(options.get("order")),
                                        tuple(fields) if options.get("repr", True) else None)


# the methods a class of the file may write that a stand-in would otherwise answer for it
_SPECIAL_METHODS = ("__eq__", "__ne__", "__hash__", "__lt__", "__le__", "__gt__", "__ge__", "__repr__", "__str__",
                    "__format__")


def dataclass_equal(a: Instance, b: Instance):
    """`a == b` of two instances as the `__eq__` Python's dataclasses module writes: instances of one
    class compare their fields' tuples (CPython's `==` on them); otherwise identity. None when a
    field holds a value known only at run time, which Python could not compare at compile time."""
    cls = a.cls
    if b.cls is not cls or cls.dataclass_fields is None or (cls.dataclass_options or {}).get("eq") is False \
            or "__eq__" in cls.members:
        return a is b if "__eq__" not in cls.members else None
    if a is b:
        return True
    for f in _fields_of(cls):  # (a tuple's `==`: item by item, identity first, the first unequal decides)
        x, y = a.attrs.get(f.name), b.attrs.get(f.name)
        if isinstance(x, Instance) and isinstance(y, Instance):
            same = dataclass_equal(x, y)
        else:
            px, py = pyeval_ops.to_python(x), pyeval_ops.to_python(y)
            if px is pyeval_ops.NOT_PYTHON or py is pyeval_ops.NOT_PYTHON:
                same = True if x is y else None
            else:
                same = px is py or bool(px == py)
        if not same:
            return same
    return True


def _fields_of(cls: ClassVal) -> tuple:
    """The dataclass's fields, its bases' first (Python's order: along the reversed MRO)."""
    out: dict = {}
    for base in reversed(cls.linear):
        for f in base.dataclass_fields or ():
            out[f.name] = f
    return tuple(out.values())


@dataclass(frozen=True, eq=False, repr=False)
class BoundMethod:
    """`obj.method`, waiting for its call: the method is called with `obj` as its first argument."""
    obj: object
    func: object  # values.Helper


@dataclass(frozen=True, eq=False, repr=False)
class StaticMethod:
    """A `@staticmethod` member."""
    func: object  # values.Helper


@dataclass(frozen=True, eq=False, repr=False)
class PropertyVal:
    """A `@property` member: its getter is called when the attribute is read."""
    func: object  # values.Helper


CLASS_VALUES = (ClassVal, Instance, BoundMethod)


@dataclass(frozen=True, eq=False, repr=False)
class SuperCall:
    """`super` inside a method of `owner` (bound in a scope each method sees); `first`: the name
    of the method's first parameter, the instance `super()` binds."""
    owner: ClassVal
    first: str


@dataclass(frozen=True, eq=False, repr=False)
class SuperProxy:
    """`super()`: attributes are looked up in the MRO of `obj`'s class after `owner`."""
    owner: ClassVal
    obj: object


def name_instance(st, prefix: str, obj: Instance) -> None:
    """`bar = MBarrier(...)`: the storage the instance made in this statement (its attributes' buffers,
    those of instances it holds) is named `<prefix>_<attribute>` in C (`bar_buf_ptr`,
    `pipe_full_buf_ptr`), as TVMScript names a meta-class instance's resources after its binding."""
    mine = st.__dict__.get("class_storages", set())
    owned = {id(s.buffer.storage) for s in st.pending if isinstance(s, (ir.Allocate, ir.DeclView))
             and s.buffer.storage is not None and id(s.buffer.storage) in mine}
    _name_owned(st, prefix, obj, owned, set())


def _name_owned(st, prefix: str, value, owned: set, seen: set) -> None:
    if isinstance(value, ir.Buffer) and value.storage is not None and id(value.storage) in owned:
        owned.discard(id(value.storage))
        st.cnames.discard(value.storage.name)
        value.storage.name = state.fresh(st, prefix + "_ptr")
    elif isinstance(value, Instance) and id(value) not in seen:
        seen.add(id(value))
        for attr, item in value.attrs.items():
            _name_owned(st, f"{prefix}_{attr}", item, owned, seen)


CALLABLE = (ClassVal, BoundMethod, SuperCall, Instance)  # what dispatch.call hands to classes.call
WITH_ATTRS = (Instance, ClassVal, SuperProxy)  # what dispatch's attribute lookup hands to classes.attribute
