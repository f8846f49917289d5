"""The values of the file's classes (sema/library/classes.py): a class, an instance, a method bound to
its instance, and the `@staticmethod` / `@property` wrappers. Kept apart from values.py so the
expression checker can recognise them without importing classes.py."""
from __future__ import annotations

from dataclasses import dataclass

from transpiler.syntax.source import Span


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
    enum: tuple | None = None  # an Enum's ("Enum" or "IntEnum", its members) (class_enum.py)

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


CALLABLE = (ClassVal, BoundMethod, SuperCall, Instance)  # what expr.call hands to classes.call
WITH_ATTRS = (Instance, ClassVal, SuperProxy)  # what expr's attribute lookup hands to classes.attribute
