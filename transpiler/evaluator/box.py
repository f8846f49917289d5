"""The values of compile-time lists and sets, which can change (`xs = []; xs.append(v)`); what
they do is in lists.py.

A list or set display makes a `Box` (the mutable object) and the expression's value is a *view*
of it: a tuple of its items as every other part of the checker expects a compile-time sequence
(a `PyConst` of a tuple when all items are constants, else a Python tuple of elaborated values),
which also remembers its box (`ListConst.source`, `ListTuple.source`). Binding a name, passing
an argument or storing the value in a container copies the view, never the box, so every alias
changes together, as in Python; reading a name (or a container's item) makes a fresh view of the
box, so it shows the items as they are now. A tuple display stays a plain tuple: it has no box
and no mutating methods, as in Python.

A list's box holds a Python list of elaborated values. A set's box holds a real CPython `set` of
CPython objects (`key`: a constant as itself, a tuple of them, the stand-in of a dataclass
instance or enum member, standins.py), and every set operation is CPython's own on it, so a set
iterates, compares and prints in CPython's order by construction. Where that order changes from
run to run (a set holding strings: CPython randomises their hashes per process), tirxc refuses
to iterate or print it (`ordered_items`); its length, membership, comparisons and `sorted` work."""
from __future__ import annotations

from dataclasses import dataclass

from transpiler.syntax import ast
from transpiler.evaluator import budget
from transpiler.evaluator.budget import ITEMS_SEEN, charge_items, weight
from transpiler.evaluator.standins import STAND_INS, random_order as random_order_of
from transpiler.evaluator.values import POISON, Poison, PyConst, describe


class Box:
    """The mutable object behind a list or set value: `items`, a Python list of elaborated values
    (kind "list"), or a CPython `set` of keys (kind "set")."""
    __slots__ = ("items", "kind", "cached")

    def __init__(self, items, kind: str = "list") -> None:
        self.items = list(items) if kind == "list" else items
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
    items = box.items if box.kind == "list" else [from_key(k) for k in box.items]
    if all(i.__class__ is PyConst for i in items):
        box.cached = ListConst(tuple(i.value for i in items), box)
    else:
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
    """The value of a new list holding items."""
    return view(Box(items, "list"))


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
