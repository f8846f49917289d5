"""Swizzles as table lookups. The tile variants prove layouts element by element (every element
of a TMA box, of a tensor-core operand), and each element's swizzle is a call of a few bit
operations; a swizzle reads and changes only the bits of an offset below its period, so one
period's values give every offset's: f(x + n * period) = f(x) + n * period."""
from __future__ import annotations

from collections.abc import Callable

LARGEST_TABLE = 1 << 12  # a longer period (a layout's own swizzle may have any) keeps the function


def periodic(f: Callable[[int], int], period: int) -> Callable[[int], int]:
    """`f` as a lookup in a table of its values over one period, for an f that moves with whole
    periods (above)."""
    if period > LARGEST_TABLE:
        return f
    table = [f(x) for x in range(period)]
    return lambda x: x - x % period + table[x % period]
