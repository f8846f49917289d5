"""The tile variants' swizzles as table lookups (tile/periodic.py) give what the swizzle functions
give, for every tensor-core and TMA swizzle and element size, over several periods and below 0."""
from __future__ import annotations

import pytest

from transpiler.ir.layout import swizzle_const
from transpiler.target.tma import swizzle_address
from transpiler.tile.copy_async.common import tma_swizzle
from transpiler.tile.periodic import LARGEST_TABLE, periodic


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_the_hardware_swizzle_by_table(mode):
    repeat = 128 << mode
    table = periodic(lambda b: swizzle_address(b, mode), repeat)
    assert all(table(b) == swizzle_address(b, mode) for b in range(-repeat, 5 * repeat + 7))
    for nbytes in (1, 2, 4, 8):
        by_table = tma_swizzle(mode, nbytes)
        assert all(by_table(e) == swizzle_address(e * nbytes, mode) // nbytes for e in range(3 * repeat))


@pytest.mark.parametrize("params", [(3, 3, 3, True), (2, 2, 3, True), (4, 1, 3, True), (0, 2, 4, False)])
def test_a_layout_swizzle_by_table(params):
    per_element, length, atom, _ = params
    period = 1 << (per_element + atom + length)
    table = periodic(lambda u: swizzle_const(u, params), period)
    assert all(table(u) == swizzle_const(u, params) for u in range(-period, 4 * period + 3))


def test_a_long_period_keeps_the_function():
    def f(x):
        return x

    assert periodic(f, LARGEST_TABLE + 1) is f
