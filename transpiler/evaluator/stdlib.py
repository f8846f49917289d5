"""The standard modules a kernel file's Python reads besides `math` / `functools` / `operator`
(modules.py): `copy.copy` / `copy.deepcopy` of compile-time values, and the process
environment through `os.environ.get(name, default)` / `os.getenv` (environ.py: read by name only),
which kernel files use to pick a specialization (`M = int(os.environ.get("M", "8192"))`): as in
Python, the environment tirxc runs in decides, so `M=4096 tirxc kernel.tx` specializes the kernel,
and without the variable the default is taken."""
from __future__ import annotations

import copy

from transpiler.evaluator import box as pyeval_box, environ as pyeval_environ
from transpiler.evaluator.builtins import _TABLE, _fail
from transpiler.evaluator.core import step
from transpiler.evaluator.standins import Held
from transpiler.evaluator.values import Builtin, POISON

NAMES = {"copy": ("copy", "deepcopy"), "os": ("environ", "getenv")}


def _copied(st, span, value, deep: bool, memo: dict):
    """`copy.copy(value)` / `copy.deepcopy(value)`: CPython's own `copy` module on the value's
    CPython object (box.python_item), with the caller's memo (so a list shared twice stays shared
    in the copy, and a copy of shared sublists is linear, not exponential). Constants and tuples of
    them are values already; an instance or any other object the checker holds is shared, never
    copied (standins.Held). What the copy goes through is charged before it is made: one step per
    container, plus one per item (copy_size); POISON when the budget is spent."""
    made = pyeval_box.python_item(value)
    if pyeval_box.plain(made) or made.__class__ is Held:
        return value
    if not step(st, span, copy_size(made, deep, set())):
        return POISON
    copied = copy.deepcopy(made, memo) if deep else copy.copy(made)
    return value if copied is made else pyeval_box.from_python(copied)  # (a tuple CPython does not copy)


def copy_size(obj, deep: bool, seen: set) -> int:
    """The steps a copy of obj costs: 1 + its length for each list, set or dict it copies (once, as
    the memo copies each once; a deep copy goes through their items and a dict's values, and
    through tuples)."""
    total, stack = 0, [obj]
    while stack:
        item = stack.pop()
        cls = item.__class__
        if cls not in (list, set, frozenset, dict, tuple) or id(item) in seen:
            continue
        seen.add(id(item))
        if cls is not tuple:
            total += 1 + len(item)
        if deep:
            stack.extend(item.values() if cls is dict else item)
    return total


def deep_copy(st, span, value, memo: dict):
    """`copy.deepcopy(value)` with the caller's memo (dataclasses' `asdict` copies so)."""
    return _copied(st, span, value, True, memo)


def _copy(deep: bool):
    def run(st, node, args, kwargs):
        return _copied(st, node.span, args[0], deep, {})
    return run


def attribute(base: Builtin, attr: str):
    """`os.environ` (read by name only: environ.py); None for any other attribute."""
    return pyeval_environ.ENVIRON if base.name == "os" and attr == "environ" else None


_TABLE["copy.copy"] = (_copy(False), 1, 1, ())
_TABLE["copy.deepcopy"] = (_copy(True), 1, 1, ())
_TABLE["os.getenv"] = (lambda st, node, args, kwargs: pyeval_environ.get(st, node, args), 1, 2, ())
_TABLE["os.environ"] = (lambda st, node, args, kwargs: _fail(st, node, "`os.environ` is a dict, not a function"),
                        0, 0, ())
