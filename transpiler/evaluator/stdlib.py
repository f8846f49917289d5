"""The standard modules a kernel file's Python reads besides `math` / `functools` / `operator`
(modules.py): `copy.copy` / `copy.deepcopy` of compile-time values, and the process
environment through `os.environ.get(name, default)` / `os.getenv`, which kernel files use to pick
a specialization (`M = int(os.environ.get("M", "8192"))`): as in Python, the environment tirxc runs
in decides, so `M=4096 tirxc kernel.tx` specializes the kernel, and without the variable the
default is taken."""
from __future__ import annotations

import os

from transpiler.evaluator import box as pyeval_box
from transpiler.evaluator.builtins import _TABLE, _fail
from transpiler.evaluator.values import Builtin, PyConst, PyDict

NAMES = {"copy": ("copy", "deepcopy"), "os": ("environ", "getenv")}


def _copied(value, deep: bool):
    """A copy of a compile-time value: a new list / set / dict (its items copied too when deep);
    tuples and constants are values already."""
    box = pyeval_box.box_of(value)
    if box is not None:
        items = [_copied(v, deep) for v in box.items] if deep else list(box.items)
        return pyeval_box.new_list(items, box.kind)
    if isinstance(value, PyDict):
        return PyDict({k: _copied(v, deep) if deep else v for k, v in value.items.items()})
    if deep and isinstance(value, tuple) and not isinstance(value, PyConst):
        return tuple(_copied(v, deep) for v in value)
    return value


def _copy(deep: bool):
    def run(st, node, args, kwargs):
        return _copied(args[0], deep)
    return run


def environ() -> PyDict:
    """`os.environ`, read when the file is checked: its names to their string values."""
    return PyDict({name: PyConst(value) for name, value in sorted(os.environ.items())})


def _getenv(st, node, args, kwargs):
    name = args[0]
    if not (isinstance(name, PyConst) and isinstance(name.value, str)):
        return _fail(st, node, "`os.getenv` takes a variable's name, a string")
    value = os.environ.get(name.value)
    return PyConst(value) if value is not None else (args[1] if len(args) > 1 else PyConst(None))


def attribute(base: Builtin, attr: str):
    """`os.environ` (a dict); None for any other attribute."""
    return environ() if base.name == "os" and attr == "environ" else None


_TABLE["copy.copy"] = (_copy(False), 1, 1, ())
_TABLE["copy.deepcopy"] = (_copy(True), 1, 1, ())
_TABLE["os.getenv"] = (_getenv, 1, 2, ())
_TABLE["os.environ"] = (lambda st, node, args, kwargs: _fail(st, node, "`os.environ` is a dict, not a function"),
                        0, 0, ())
