"""`zip`, `enumerate` and `reversed` iterated by a `for` or a comprehension: CPython's iterators,
made lazily. The call's arguments are evaluated where it is (a generator expression among them
made lazily too, core.ASKED_ITEM_BY_ITEM), and each item is made when the consumer asks for it,
from the arguments as they are then: a `for` over `enumerate(xs)` whose body appends to xs
reaches the new items, and the effects of a generator expression zipped with another interleave
as in CPython. Used up at once by a builtin (`list(zip(...))`), builtins.py makes the items at
once, which is the same value."""
from __future__ import annotations

from transpiler.evaluator.box import box_of, from_key, from_python
from transpiler.evaluator.core import ASKED_ITEM_BY_ITEM, MadeLazily, iterate, live, pack
from transpiler.evaluator.values import POISON, PyConst, PyDict

LAZY = frozenset(("zip", "enumerate"))  # (whose arguments are asked item by item too)


def asked_item_by_item(node) -> bool:
    """Whether the call at node is what a `for` or a comprehension iterates."""
    return id(node) in ASKED_ITEM_BY_ITEM


def zipped(st, node, args):
    """`zip(*args)`'s items, each group made when asked (POISON after an error)."""
    iterators = [iterate(st, value, arg, "`zip`") for value, arg in zip(args, node.args)]
    if any(i is None for i in iterators):
        return POISON
    return MadeLazily(pack(group) for group in zip(*iterators))


def enumerated(st, node, value, start: int):
    """`enumerate(value, start)`'s items, each pair made when asked (POISON after an error)."""
    items = iterate(st, value, node.args[0], "`enumerate`")
    if items is None:
        return POISON
    return MadeLazily(pack((PyConst(start + i), item)) for i, item in enumerate(items))


def reversed_live(st, node, value):
    """`reversed(value)` over a list or dict: CPython's own reverse iterator over it as it changes;
    None for a tuple, string or range, whose items cannot change (builtins.py makes them)."""
    box = box_of(value)
    if box is not None and box.kind == "list":
        return MadeLazily(live(st, reversed(box.items), from_python, node))
    if isinstance(value, PyDict):
        return MadeLazily(live(st, reversed(value.items), from_key, node))
    return None
