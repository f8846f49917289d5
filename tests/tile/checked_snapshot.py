"""A deep snapshot of a checked module: every object reachable from it, field by field, with
shared objects (a storage many buffers point at) recorded once and referred to by number. Two
snapshots are equal when nothing reachable was changed in place, added or removed."""
from __future__ import annotations

import dataclasses
import enum

_ATOMS = (int, float, complex, str, bytes, bool, type(None))


def snapshot(obj) -> tuple:
    memo: dict[int, int] = {}
    keep: list = []  # the objects numbered, kept alive so their ids stay theirs

    def walk(x):
        if isinstance(x, _ATOMS):
            return x
        if isinstance(x, enum.Enum):
            return (type(x).__name__, x.name)
        if isinstance(x, type) or callable(x) and not dataclasses.is_dataclass(x):
            return ("callable", getattr(x, "__qualname__", repr(x)))
        if id(x) in memo:
            return ("ref", memo[id(x)])
        memo[id(x)] = len(memo)
        keep.append(x)
        kind = type(x).__name__
        if dataclasses.is_dataclass(x):
            return (kind, tuple((f.name, walk(getattr(x, f.name))) for f in dataclasses.fields(x)))
        if isinstance(x, (list, tuple)):
            return (kind, tuple(walk(v) for v in x))
        if isinstance(x, dict):
            return (kind, tuple((walk(k), walk(v)) for k, v in x.items()))
        if isinstance(x, (set, frozenset)):
            return (kind, tuple(sorted((walk(v) for v in x), key=repr)))
        if hasattr(x, "__dict__"):
            return (kind, walk(vars(x)))
        if hasattr(x, "__slots__"):
            return (kind, tuple((name, walk(getattr(x, name, None))) for name in x.__slots__))
        return (kind, repr(x))

    return walk(obj)
