"""The values of compile-time lists and sets, which can change (`xs = []; xs.append(v)`); what
they do is in lists.py.

A list or set display makes a `Box` (the mutable object, as Python's list is one) and the
expression's value is a *view* of it: a tuple of its items as every other part of the checker
expects a compile-time sequence (a `PyConst` of a tuple when all items are constants, else a
Python tuple of elaborated values), which also remembers its box (`ListConst.source`,
`ListTuple.source`). Binding a name, passing an argument or storing the value in a container
copies the view, never the box, so every alias changes together, as in Python; reading a name
(or a container's item) makes a fresh view of the box, so it shows the items as they are now.
A tuple display stays a plain tuple: it has no box and no mutating methods, as in Python.

Sets iterate in CPython's order (that of a set their items were added to in insertion order), but
a set holding strings keeps insertion order: CPython's order of strings changes from run to run,
tirxc's output must not. Their items are compile-time constants."""
from __future__ import annotations

from dataclasses import dataclass

from transpiler.evaluator.values import POISON, Poison, PyConst, describe


class Box:
    """The mutable object behind a list or set value: `items`, a Python list of elaborated values
    (kind "list"), or of constants, unique, in insertion order (kind "set")."""
    __slots__ = ("items", "kind", "cached")

    def __init__(self, items, kind: str = "list") -> None:
        self.items = list(items)
        self.kind = kind
        self.cached = None  # the last view, until the items change (every change goes through this module)


@dataclass(frozen=True, eq=False, repr=False)
class ListConst(PyConst):
    """The view of a box whose items are all constants: `value` is their tuple."""
    source: object = None


class ListTuple(tuple):
    """The view of a box holding other values (IR expressions, buffers ...): a tuple of them."""
    source: Box

    def __new__(cls, items, source: Box):
        self = super().__new__(cls, items)
        self.source = source
        return self


def view(box: Box):
    """A fresh view of box: its items as they are now."""
    if box.cached is not None:
        return box.cached
    if box.kind == "set":
        box.items[:] = _cpython_order(box.items)
    items = box.items
    if all(i.__class__ is PyConst for i in items):
        box.cached = ListConst(tuple(i.value for i in items), box)
    else:
        box.cached = ListTuple(items, box)
    return box.cached


def _cpython_order(items: list) -> list:
    """A set's items in the order CPython iterates a set they were added to in this order; the
    insertion order where an item holds a string (CPython's order of strings changes from run to
    run, tirxc's output must not)."""
    values = [i.value for i in items]
    if any(isinstance(v, str) or isinstance(v, tuple) and _holds_text(v) for v in values):
        return items
    real: set = set()
    for v in values:
        real.add(v)
    by_value = {}
    for v, item in zip(values, items):
        by_value.setdefault(v, item)
    return [by_value[v] for v in real]


def _holds_text(value: tuple) -> bool:
    return any(isinstance(v, str) or isinstance(v, tuple) and _holds_text(v) for v in value)


def box_of(val) -> Box | None:
    """The box behind a value (a list or set view), or None."""
    cls = val.__class__
    return val.source if cls is ListConst or cls is ListTuple else None


def fresh(val):
    """val, with a list or set view replaced by a fresh view of its box (a name or container item
    read after the box changed)."""
    cls = val.__class__
    return view(val.source) if cls is ListConst or cls is ListTuple else val


def new_list(items, kind: str = "list"):
    """The value of a new list (or set) holding items."""
    return view(Box(items, kind))


def set_key(st, val, node):
    """The identity of a set item: a hashable compile-time constant; None (reported) otherwise."""
    if isinstance(val, PyConst) and box_of(val) is None and isinstance(val.value, (int, float, str, bool, tuple,
                                                                                    type(None))):
        return (val.value,)  # (Python's equality: `{1, 1.0, True}` has one item; `{None}` one too)
    if not isinstance(val, Poison):
        box = box_of(val)
        st.diags.error("E0340", f"a set holds compile-time numbers, strings and tuples, not "
                                f"{f'a {box.kind}' if box else describe(val)}", node.span)
    return None


def new_set(st, items, nodes):
    """The value of a new set of items (duplicates dropped, the first kept); POISON after an error."""
    seen: dict = {}
    for item, node in zip(items, nodes):
        key = set_key(st, item, node)
        if key is None:
            return POISON
        seen.setdefault(key, item)
    return new_list(seen.values(), "set")
