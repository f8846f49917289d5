"""The standard modules a kernel file's Python reads besides `math` / `functools` / `operator`
(modules.py): `copy.copy` / `copy.deepcopy` of compile-time values, and the process
environment through `os.environ.get(name, default)` / `os.getenv` (environ.py: read by name only),
which kernel files use to pick a specialization (`M = int(os.environ.get("M", "8192"))`): as in
Python, the environment tirxc runs in decides, so `M=4096 tirxc kernel.tx` specializes the kernel,
and without the variable the default is taken."""
from __future__ import annotations

from transpiler.evaluator import box as pyeval_box, environ as pyeval_environ
from transpiler.evaluator.builtins import _TABLE, _fail
from transpiler.evaluator.core import step
from transpiler.evaluator.values import Builtin, POISON, PyConst, PyDict

NAMES = {"copy": ("copy", "deepcopy"), "os": ("environ", "getenv")}


def _copied(st, span, value, deep: bool, memo: dict):
    """A copy of a compile-time value: a new list / set / dict (its items copied too when deep);
    tuples and constants are values already. As CPython's `copy.deepcopy`, each object is copied
    once (`memo`: a list shared twice stays shared in the copy, and a copy of shared sublists is
    linear, not exponential); each item copied draws a step from the budget. POISON when the
    budget is spent."""
    key = id(value)
    if key in memo:
        return memo[key]
    box = pyeval_box.box_of(value)
    if box is not None:
        key = id(box)
        if key in memo:
            return memo[key]
        if not step(st, span, 1 + len(box.items)):
            return POISON
        if box.kind == "set":  # (`copy.copy`: `s.copy()`, CPython's table; `deepcopy`: `set(list(s))`, re-added)
            made = pyeval_box.new_set_of(box.items.copy() if not deep else set(list(box.items)))
            memo[key] = made
            return made
        if not deep:
            return pyeval_box.new_list(list(box.items))
        items: list = []
        made = pyeval_box.new_list(items)
        memo[key] = made
        made_box = pyeval_box.box_of(made)
        for v in box.items:
            item = _copied(st, span, v, deep, memo)
            if item is POISON:
                return POISON
            made_box.items.append(item)
        made_box.cached = None
        return pyeval_box.view(made_box)
    if isinstance(value, PyDict):
        if not step(st, span, 1 + len(value.items)):
            return POISON
        if not deep:
            return PyDict(dict(value.items))
        made = PyDict({})
        memo[key] = made
        for k, v in value.items.items():
            item = _copied(st, span, v, deep, memo)
            if item is POISON:
                return POISON
            made.items[k] = item
        return made
    if deep and isinstance(value, tuple) and not isinstance(value, PyConst):
        items = []
        for v in value:
            item = _copied(st, span, v, deep, memo)
            if item is POISON:
                return POISON
            items.append(item)
        memo[key] = tuple(items)
        return memo[key]
    return value


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
