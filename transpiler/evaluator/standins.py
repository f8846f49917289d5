"""CPython stand-ins for the objects that stay under tirxc's control (an instance of a `@dataclass`
of the file, an enum member), so that CPython's containers and operations can hold and compare
them: a set item, a dict key, an operand of `==` / `<`, `sorted`, `str()` and f-strings.

A stand-in is a small Python object that carries the evaluator's object (`value`) and behaves
exactly as CPython's object would in its hashing, equality, ordering and printing, computed from
data the checker copied out of the object (its class's name and options, its fields as CPython
values): no code of the file runs inside CPython. Where the class defines one of these special
methods itself, the checker gives no stand-in and the operation keeps the checker's own rule.

What CPython makes of the methods Python's `dataclasses` and `enum` modules write:

- a dataclass instance equals an instance of the very same class with equal fields (the tuple of
  its fields compared); with `order=True`, `<`, `<=`, `>`, `>=` compare those tuples; it is
  hashable by that tuple when `frozen=True` (or `unsafe_hash=True`), unhashable when `eq` without
  `frozen`, and hashed by identity when `eq=False`; its `repr` (and `str`) is
  `Name(field=repr(value), ...)`;
- an `Enum` member equals only itself, hashes as its name and prints as `Name.MEMBER`
  (`repr`: `<Name.MEMBER: value>`); an `IntEnum` member is an `int` (an `int` subclass here too),
  printing as its value and hashing as it."""
from __future__ import annotations


class DataclassObject:
    __slots__ = ("value", "cls", "name", "fields", "hashable", "order", "shown")

    def __init__(self, value, cls, name: str, fields: tuple, hashable, order: bool, shown: tuple):
        self.value = value  # the evaluator's instance
        self.cls = cls  # its class (the checker's): two stand-ins compare when their classes are one
        self.name = name  # the class's name, as `__qualname__` of a module-level class
        self.fields = fields  # ((name, CPython value), ...) of the fields that compare
        self.hashable = hashable  # True: by the fields; False: unhashable; None: by identity (`eq=False`)
        self.order = order
        self.shown = shown  # ((name, CPython value), ...) of the fields `repr` shows

    def _tuple(self):
        return tuple(v for _, v in self.fields)

    def __eq__(self, other):
        if self.hashable is None:
            return self.value is getattr(other, "value", None) if isinstance(other, DataclassObject) else NotImplemented
        if isinstance(other, DataclassObject) and other.cls is self.cls:
            return self._tuple() == other._tuple()
        return NotImplemented

    def __ne__(self, other):
        same = self.__eq__(other)
        return same if same is NotImplemented else not same

    def __hash__(self):
        if self.hashable is None:
            return hash(id(self.value))
        if not self.hashable:
            raise TypeError(f"unhashable type: '{self.name}'")
        return hash(self._tuple())

    def _compare(self, other, op):
        if not self.order or not (isinstance(other, DataclassObject) and other.cls is self.cls):
            return NotImplemented
        return op(self._tuple(), other._tuple())

    def __lt__(self, other):
        return self._compare(other, lambda a, b: a < b)

    def __le__(self, other):
        return self._compare(other, lambda a, b: a <= b)

    def __gt__(self, other):
        return self._compare(other, lambda a, b: a > b)

    def __ge__(self, other):
        return self._compare(other, lambda a, b: a >= b)

    def __repr__(self):
        if self.shown is None:  # (`repr=False`: object's repr, which shows an address)
            raise TypeError(f"`{self.name}` has no repr of its fields (`repr=False`)")
        return f"{self.name}({', '.join(f'{n}={v!r}' for n, v in self.shown)})"

    __str__ = __repr__

    def __format__(self, spec):
        return format(str(self), spec)


class EnumMember:
    __slots__ = ("value", "cls_name", "name", "member_value")

    def __init__(self, value, cls_name: str, name: str, member_value):
        self.value = value  # the evaluator's member (one object per member)
        self.cls_name = cls_name
        self.name = name
        self.member_value = member_value  # the member's `.value`, a CPython value

    def __eq__(self, other):
        return self.value is other.value if isinstance(other, EnumMember) else NotImplemented

    def __ne__(self, other):
        same = self.__eq__(other)
        return same if same is NotImplemented else not same

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"<{self.cls_name}.{self.name}: {self.member_value!r}>"

    def __str__(self):
        return f"{self.cls_name}.{self.name}"

    def __format__(self, spec):
        return format(str(self), spec)


class IntEnumMember(int):
    """An `IntEnum` member: an int (equality, hashing, ordering and arithmetic are int's)."""

    def __new__(cls, value, cls_name: str, name: str, number: int):
        self = super().__new__(cls, number)
        self.value, self.cls_name, self.name = value, cls_name, name
        return self

    def __repr__(self):
        return f"<{self.cls_name}.{self.name}: {int(self)!r}>"

    def __str__(self):
        return int.__repr__(self)

    def __format__(self, spec):
        return int.__format__(int(self), spec)


STAND_INS = (DataclassObject, EnumMember, IntEnumMember)

for _cls in STAND_INS:  # (a copy of a container shares them: each stands for the one object of the file)
    _cls.__copy__ = lambda self: self
    _cls.__deepcopy__ = lambda self, memo: self


class Held:
    """An item of a CPython list or dict value (box.py) that stays the checker's: an instance or
    enum member of the file, a kernel expression, a buffer, a function. CPython's list and dict
    operations see it as Python would see the object: an instance or member through its stand-in,
    made from its fields when the operation runs (so a later change of a field shows), anything
    else by identity (`==` is `is`, hashed by identity; ordering and printing are refused, as
    ops.to_python refuses the container before CPython would need them). A copy shares it, as
    tirxc's `copy` shares instances."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def stand_in(self):
        """The stand-in of the held object as it is now; None for an object that has none."""
        make = getattr(self.value, "python_stand_in", None)
        made = None if make is None else make({})
        return made if isinstance(made, STAND_INS) else None

    def _operand(self):
        made = self.stand_in()
        if made is None:
            raise TypeError("a value known only to the checker has no CPython object")
        return made

    def __eq__(self, other):
        mine = self.stand_in()
        theirs = other.stand_in() if isinstance(other, Held) else other
        if mine is None or theirs is None:
            return isinstance(other, Held) and other.value is self.value
        return mine == theirs

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        made = self.stand_in()
        return hash(id(self.value)) if made is None else hash(made)

    def __lt__(self, other):
        return self._operand() < operand(other)

    def __le__(self, other):
        return self._operand() <= operand(other)

    def __gt__(self, other):
        return self._operand() > operand(other)

    def __ge__(self, other):
        return self._operand() >= operand(other)

    def __repr__(self):
        return repr(self._operand())

    def __str__(self):
        return str(self._operand())

    def __format__(self, spec):
        return format(self._operand(), spec)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


def operand(value):
    """value as CPython's operations take it: a held object as its stand-in."""
    return value._operand() if isinstance(value, Held) else value


def random_order(value, seen: set | None = None) -> bool:
    """Whether CPython's iteration order of a set holding value changes from run to run: a string's
    hash is randomised per process (PYTHONHASHSEED), and so is that of a tuple or frozen dataclass
    holding one, of an `Enum` member (its name's hash), of an object hashed by identity (None and a
    nan in CPython 3.11: their hash is their address, which changes from run to run)."""
    if isinstance(value, (str, bytes, EnumMember)) or value is None or value is Ellipsis or \
            isinstance(value, float) and value != value:
        return True
    if isinstance(value, tuple):
        return any(random_order(v) for v in value)
    if isinstance(value, Held):
        return random_order(value.stand_in())
    if isinstance(value, DataclassObject):
        return value.hashable is None or any(random_order(v) for _, v in value.fields)
    return False
