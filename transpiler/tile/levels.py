"""The levels of the thread hierarchy, finest first, shared by the checks of every family."""
from __future__ import annotations

LEVELS = ("thread", "warp", "warpgroup", "cta", "cluster")


def finer_than(level: str, scope: str) -> bool:
    """Whether a guard at `level` splits the threads of `scope` (a lane test splits a warp)."""
    return LEVELS.index(level) < LEVELS.index(scope)
