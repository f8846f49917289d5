"""Mutants shown equivalent by reading the kernel: the removed synchronisation orders no
conflicting accesses of different threads, so no schedule can change the result and no checker
should report it. Keyed by Mutant.ident (source:line:col:kind); the reason says which accesses
the synchronisation separates and why they do not conflict. A survivor not listed here (and not
found equivalent by mutate.orders_nothing_after) counts against the score."""
from __future__ import annotations

EQUIVALENT: dict[str, str] = {
}
