"""The dispatch table of the tile primitives: for each op, its lowering variants, each with a
priority and the conditions under which it applies (docs/design.md, decision 32).

A variant module registers its lowerings with `@variant(...)`; a condition is a `Check`, a
function that returns None when the call meets it and otherwise the reason it does not, in
words a user reads in the error (E0904) and in `tirxc info`. A lowering may still refuse a
call by raising `Decline(reason)` (a limit found while building the code); dispatch then tries
the next variant."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


class Decline(Exception):
    """Raised by a lowering that cannot lower this call after all: `reason` says why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Check:
    """A condition of a variant: `test(call, cx)` is None when it holds, else why it does not.
    `says` is how `tirxc info` states the condition when it holds."""
    says: str
    test: Callable


@dataclass(frozen=True)
class Variant:
    op: str
    name: str
    priority: int
    when: tuple[Check, ...]
    lower: Callable  # (call, cx) -> ir.Stmt
    explicit: bool = False  # tried only when named with `dispatch=` (TIRx's forced-width copies, aliases)


VARIANTS: dict[str, list[Variant]] = {}


def check(says: str):
    """`@check("both operands in shared memory")` over `def f(call, cx) -> str | None`."""
    def wrap(fn):
        return Check(says, fn)
    return wrap


def variant(ops: str | tuple[str, ...], name: str, priority: int = 10, when: tuple[Check, ...] = (),
            explicit: bool = False):
    """Register the decorated `lower(call, cx) -> ir.Stmt` as variant `name` of each op; an
    `explicit` variant is tried only when the call names it with `dispatch=`."""
    def wrap(fn):
        for op in (ops,) if isinstance(ops, str) else ops:
            cases = VARIANTS.setdefault(op, [])
            assert all(v.name != name for v in cases), f"two variants {name!r} of {op}"
            cases.append(Variant(op, name, priority, tuple(when), fn, explicit))
            cases.sort(key=lambda v: (-v.priority, v.name))
        return fn
    return wrap


def attempt(case: Variant, call, cx) -> tuple[str | None, object]:
    """(None, its code) when variant `case` takes the call, else (why not, None): its conditions,
    then its lowering. What a lowering that declines made on `cx` (a raised alignment, a tensor
    map) does not stay."""
    reason = next((r for r in (check.test(call, cx) for check in case.when) if r), None)
    if reason is not None:
        return reason, None
    raised, tensor_maps = dict(cx.raised), list(cx.tensor_maps)
    try:
        return None, case.lower(call, cx)
    except Decline as declined:
        cx.raised, cx.tensor_maps = raised, tensor_maps
        return declined.reason, None


def named(op: str, name: str) -> Variant:
    """Variant `name` of `op` (one a lowering runs for another: an alias, `vec_auto`)."""
    return next(v for v in VARIANTS[op] if v.name == name)
