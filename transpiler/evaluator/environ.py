"""The process environment, a build input that stays private.

Kernel files pick a specialization from the environment (`M = int(os.environ.get("M", "8192"))`),
so reading one variable by name works as in Python: `os.environ.get(name[, default])`,
`os.environ[name]`, `name in os.environ` and `os.getenv(name[, default])`. Nothing else does:
enumerating the environment (`items()`, `keys()`, `values()`, iteration, `len`, `dict(...)`,
`str(...)`, `**os.environ`) is refused by name (E0344), so a file cannot copy the environment
into its output. Every name read is recorded, in order, on the module (`environment_reads`):
the checker hands the list on (`CheckedModule.environment_reads`), and the `.cu` header and
`tirxc info --json` list it, so a diff shows when an output depends on the environment. A value
read is never printed by a diagnostic: an error about it names the variable (`value_name`).

The mapping read is `st.module.environment` (`os.environ` unless the caller gives another:
`tirxc --no-env` gives an empty one)."""
from __future__ import annotations

import os
from dataclasses import dataclass

from transpiler.evaluator.values import CheckerValue, POISON, Poison, PyConst


@dataclass(frozen=True, eq=False, repr=False)
class Environ(CheckerValue):
    """`os.environ` as a value: read by name only."""

    def describe(self) -> str:
        return "`os.environ`"


ENVIRON = Environ()
READ_BY_NAME = 'read one variable by name: `os.environ.get("M", "8192")`, `os.environ["M"]` or `os.getenv("M")`'


def _reads(st) -> dict:
    module = st.module
    reads = getattr(module, "environment_reads", None)
    if reads is None:
        reads = module.environment_reads = {}
    return reads


def read(st, name: str) -> str | None:
    """The value of variable `name` (None when it is not set), recorded as read."""
    _reads(st).setdefault(name, None)
    value = getattr(st.module, "environment", os.environ).get(name)
    if value is not None:
        values = st.module.__dict__.setdefault("environment_values", {})
        values[id(value)] = (name, value)  # (the value is kept, so its id stays its own)
    return value


def value_name(st, value) -> str | None:
    """The variable whose value `value` is (the very string read), or None."""
    if not isinstance(value, str):
        return None
    got = st.module.__dict__.get("environment_values", {}).get(id(value))
    return got[0] if got is not None and got[1] is value else None


def refuse(st, span, what: str):
    """E0344 for an operation that would enumerate the environment; POISON."""
    st.diags.error("E0344", f"{what} would enumerate the environment, which tirxc keeps private", span,
                   help=READ_BY_NAME)
    return POISON


def _name(st, val, node, what: str) -> str | None:
    if isinstance(val, PyConst) and isinstance(val.value, str):
        return val.value
    if not isinstance(val, Poison):
        st.diags.error("E0344", f"{what} takes a variable's name, a compile-time string", node.span,
                       help=READ_BY_NAME)
    return None


def get(st, node, args):
    """`os.environ.get(name[, default])` / `os.getenv(name[, default])`."""
    name = _name(st, args[0], node.args[0] if node.args else node, "reading the environment")
    if name is None:
        return POISON
    value = read(st, name)
    return PyConst(value) if value is not None else (args[1] if len(args) > 1 else PyConst(None))


def subscript(st, key, node):
    """`os.environ[name]`: an error naming the variable when it is not set."""
    name = _name(st, key, node, "`os.environ[...]`")
    if name is None:
        return POISON
    value = read(st, name)
    if value is None:
        st.diags.error("E0344", f"environment variable `{name}` is not set", node.span,
                       help=f'give a default: `os.environ.get("{name}", ...)`')
        return POISON
    return PyConst(value)


def contains(st, needle, node) -> bool | None:
    """`name in os.environ`; None after an error (reported)."""
    name = _name(st, needle, node, "`in os.environ`")
    return None if name is None else read(st, name) is not None
