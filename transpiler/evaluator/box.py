"""The values of compile-time lists, sets and dicts, which can change (`xs = []; xs.append(v)`):
CPython's own `list`, `set` and `dict` objects; what they do is in lists.py and dicts.py.

A list's box holds a real CPython `list` (`Box.items`) of CPython objects (`python_item`): a
constant as itself, a tuple as a tuple of such objects, a list, set or dict as its own real
object (so a list holding another holds that very list: aliasing is CPython's), and anything the
checker owns (an instance or enum member of the file, a kernel expression, a buffer) as a `Held`
(standins.py), which CPython's `==`, `in`, `index`, `count` and `copy` see as Python would. A
set's box holds a real `set` of keys (a constant, a tuple of them, a stand-in); a dict (`PyDict`)
a real `dict`, its keys as a set's, its values as a list's items. Every operation on them is
CPython's own on that object (lists.py, dicts.py, ops.py; each charged to the step budget), so
that they compare, print and copy as CPython's by construction.

The checker reads a list or set through a *view*: a tuple of its items as elaborated values
(`from_python`: a `PyConst` of a tuple when all items are constants, else a Python tuple of
elaborated values), which also remembers its box (`ListConst.source`, `ListTuple.source`).
Binding a name, passing an argument or storing the value copies the view, never the object;
reading a name (or an item) makes a fresh view of the box, so it shows the items as they are now.
A registry leads from each real object back to its box (or dict value) while anything holds it.

Where CPython's order of a set changes from run to run (a set holding strings: CPython
randomises their hashes per process), tirxc refuses to iterate or print it (`ordered_items`);
its length, membership, comparisons and `sorted` work."""
from __future__ import annotations

import weakref
from dataclasses import dataclass

from transpiler.syntax import ast
from transpiler.evaluator import budget
from transpiler.evaluator.budget import ITEMS_SEEN, charge_items, weight
from transpiler.evaluator.standins import STAND_INS, Held, random_order as random_order_of
from transpiler.evaluator.values import POISON, Poison, PyConst, PyDict, describe


class Box:
    """The mutable object behind a list or set value: `items`, the real CPython `list` (kind
    "list") or `set` (kind "set"), never copied."""
    __slots__ = ("items", "kind", "cached", "__weakref__")

    def __init__(self, items, kind: str = "list") -> None:
        self.items = items
        self.kind = kind
        self.cached = None  # the last view, until the items change (every change clears it)
        _BOXES[id(items)] = self


# the box of each real list or set, and the value of each real dict, while anything holds them
_BOXES: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
_DICTS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


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


_OBJECTS = frozenset((list, set, frozenset, dict, Held))  # the items that are not constants


def plain(obj, seen: set | None = None) -> bool:
    """Whether a CPython item is a constant the checker sees as a `PyConst` (a scalar, or a tuple of
    plain items; a tuple reached again is gone through once: `(t,) * 1000` is linear)."""
    cls = obj.__class__
    if cls is not tuple:
        return cls not in _OBJECTS
    seen = set() if seen is None else seen
    if id(obj) in seen:
        return True
    seen.add(id(obj))
    return all(plain(i, seen) for i in obj)


def python_item(val):
    """The CPython object an elaborated value is as an item of a list or a dict's value (the module
    docstring)."""
    cls = val.__class__
    if cls is PyConst:
        return val.value
    if cls is ListConst or cls is ListTuple:
        return val.source.items
    if cls is PyDict:
        return val.items
    if cls is tuple:
        return tuple(python_item(v) for v in val)
    return Held(val)


def from_python(obj):
    """The elaborated value of a CPython item (python_item's inverse): a list or set as a fresh
    view of its box, a dict as its value, a held object as itself."""
    cls = obj.__class__
    if cls is list or cls is set or cls is frozenset:
        return view(box_for(obj))
    if cls is dict:
        return dict_value(obj)
    if cls is Held:
        return obj.value
    if cls is tuple and not plain(obj):
        items = tuple(from_python(i) for i in obj)
        return PyConst(tuple(i.value for i in items)) if all(i.__class__ is PyConst for i in items) else items
    return PyConst(obj)


def box_for(obj) -> Box:
    """The box of a real list or set (the one it has, or a new one)."""
    box = _BOXES.get(id(obj))
    return box if box is not None and box.items is obj else Box(obj, "list" if obj.__class__ is list else "set")


def dict_value(obj: dict) -> PyDict:
    """The value of a real dict (the one it has, or a new one)."""
    made = _DICTS.get(id(obj))
    if made is None or made.items is not obj:
        made = PyDict(obj)
        _DICTS[id(obj)] = made
    return made


def new_dict(items: dict) -> PyDict:
    """The value of a new dict: items maps CPython keys to elaborated values."""
    return dict_value({k: python_item(v) for k, v in items.items()})


def dict_entries(val: PyDict):
    """[(key, elaborated value)] of a dict, in its order."""
    return [(k, from_python(v)) for k, v in val.items.items()]


_MAKING: set = set()  # the boxes whose view is being made


def view(box: Box):
    """A fresh view of box: its items as they are now."""
    if box.cached is not None:
        return box.cached
    items = box.items
    if box.kind == "list":
        if all(plain(i) for i in items):
            box.cached = ListConst(tuple(items), box)
            return box.cached
        if id(box) in _MAKING:  # (a list that holds itself: the inner one is read afresh, `fresh`)
            return ListTuple((), box)
        _MAKING.add(id(box))
        try:
            items = [from_python(i) for i in items]
        finally:
            _MAKING.discard(id(box))
    else:
        items = [from_key(k) for k in items]
        if all(i.__class__ is PyConst for i in items):
            box.cached = ListConst(tuple(i.value for i in items), box)
            return box.cached
    box.cached = ListTuple(items, box)
    return box.cached


def random_order(box: Box) -> bool:
    """Whether CPython's order of a set's items changes from run to run (standins.random_order)."""
    return box.kind == "set" and any(random_order_of(k) for k in box.items)


def box_of(val) -> Box | None:
    """The box behind a value (a list or set view), or None."""
    cls = val.__class__
    return val.source if cls is ListConst or cls is ListTuple else None


def fresh(val):
    """val, with a list or set view replaced by a fresh view of its box (a name or container item
    read after the box changed)."""
    cls = val.__class__
    return view(val.source) if cls is ListConst or cls is ListTuple else val


def new_list(items):
    """The value of a new list holding items (elaborated values)."""
    return view(Box([python_item(i) for i in items], "list"))


def new_list_of(made: list):
    """The value of a new list: made, a real list of CPython items (made by CPython's own operation)."""
    return view(Box(made, "list"))


def new_set_of(keys: set):
    """The value of a new set: its box holds keys, a CPython set (made by CPython's own operation)."""
    return view(Box(keys, "set"))


def from_key(key):
    """The elaborated value of a set item or dict key: a constant as a PyConst, a tuple of them
    packed, a stand-in as the object it stands for."""
    if isinstance(key, STAND_INS):
        return key.value
    if key.__class__ is tuple and any(isinstance(k, STAND_INS) or k.__class__ is tuple for k in key):
        items = tuple(from_key(k) for k in key)
        return PyConst(tuple(i.value for i in items)) if all(i.__class__ is PyConst for i in items) else items
    return PyConst(key)


def set_key(st, val, node, what: str = "a set"):
    """The CPython object a set item (or dict key) is: a hashable constant, a tuple of them, the
    stand-in of a frozen dataclass instance or an enum member; NO_KEY (reported) otherwise."""
    memo: dict = {}
    key = python_key(val, memo)
    if key is not NO_KEY and not charge_items(st, node.span, {ITEMS_SEEN: weight(key, 64 * budget.STEP_BUDGET)}):
        return NO_KEY  # (hashing goes through every item of a tuple, however it was built)
    if key is not NO_KEY:
        try:
            hash(key)  # (the stand-ins' hash is computed from copied data: no code of the file runs)
            return key
        except TypeError as err:
            st.diags.error("E0340", f"{what} holds hashable values: {err}", node.span)
            return NO_KEY
    if not isinstance(val, Poison):
        box = box_of(val)
        st.diags.error("E0340", f"{what} holds compile-time numbers, strings and tuples, not "
                                f"{f'a {box.kind}' if box else describe(val)}", node.span)
    return NO_KEY


def python_key(val, memo: dict | None = None):
    """The CPython object of a value that may be a set item or dict key (not yet hashed); NO_KEY for
    a value that cannot be one. memo counts the items gone through (ops.charge_items)."""
    memo = {} if memo is None else memo
    if val.__class__ is PyConst and isinstance(val.value, (int, float, str, bool, tuple, type(None))):
        return val.value  # (Python's equality: `{1, 1.0, True}` has one item; `{None}` one too)
    if val.__class__ is tuple:
        memo[ITEMS_SEEN] = memo.get(ITEMS_SEEN, 0) + len(val)
        keys = tuple(python_key(v, memo) for v in val)
        return NO_KEY if any(k is NO_KEY for k in keys) else keys
    if box_of(val) is None and hasattr(val, "python_stand_in"):
        made = val.python_stand_in(memo)
        return made if isinstance(made, STAND_INS) else NO_KEY
    return NO_KEY


NO_KEY = object()  # what set_key gives after an error (None is a valid key: `None in s`)


def folded_display(nodes) -> bool:
    """Whether CPython compiles a set display to a constant: more than two items, each a constant
    after its AST optimiser's folding (a literal, a sign or operator over literals, a tuple of
    them). CPython then builds the set as `set().update(frozenset(items))` (the frozenset made
    again from its own order when the code object's constants are merged), not item by item."""
    return len(nodes) > 2 and all(_constant_node(n) for n in nodes)


def _constant_node(node) -> bool:
    cls = node.__class__
    if cls is ast.Constant:
        return True
    if cls is ast.UnaryOp:
        return _constant_node(node.operand)
    if cls is ast.Tuple:
        return all(_constant_node(e) for e in node.elts)
    return False


def constant_display(node) -> bool:
    """Whether node is a set display CPython's optimiser folds to a frozenset constant when a `for`
    or a comprehension iterates it (`for x in {3, 1, 2}`: every item a constant, any number)."""
    return node.__class__ is ast.Set and all(_constant_node(n) for n in node.elts)


def iterated_display(st, items, nodes):
    """The value a `for` iterates for a constant set display: CPython's frozenset constant, made from
    the items, then again from its own order (the code object's constants merged), iterated as it
    is; POISON after an error."""
    keys = [set_key(st, item, node) for item, node in zip(items, nodes)]
    if any(k is NO_KEY for k in keys):
        return POISON
    return new_set_of(frozenset(tuple(frozenset(keys))))


def new_set(st, items, nodes, display: bool = False):
    """The value of a new set of items, added in order as CPython's `BUILD_SET` / `SET_ADD` /
    `set(iterable)` add them (a display CPython folds to a constant: as it builds that one);
    POISON after an error."""
    keys = [set_key(st, item, node) for item, node in zip(items, nodes)]
    if any(k is NO_KEY for k in keys):
        return POISON
    if display and folded_display(nodes):
        made: set = set()
        made.update(frozenset(tuple(frozenset(keys))))
        return new_set_of(made)
    return new_set_of(set(keys))
