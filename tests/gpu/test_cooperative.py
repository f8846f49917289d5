"""A kernel that synchronizes its whole grid (`T.cuda.grid_sync()`) is launched cooperatively:
every block sees every other block's writes after the barrier, and a grid that cannot be resident
at once is refused before the launch, naming the barrier's place and the device's limit."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

KERNEL = (Path(__file__).resolve().parent.parent / "cpp" / "cooperative_grid.tx").read_text()


def test_blocks_read_each_others_writes_after_the_grid_barrier(launcher_for):
    import cupy
    module = launcher_for("cooperative_grid", KERNEL)
    n = 128 * 64 + 5  # 65 blocks
    a, b = cupy.zeros(n, cupy.int32), cupy.zeros(n, cupy.int32)
    module.reverse_after_barrier(a, b, n)
    assert np.array_equal(b.get(), (np.arange(n, dtype=np.int32) * 3)[::-1])


def test_a_grid_that_cannot_be_resident_at_once_is_refused(launcher_for):
    import cupy
    module = launcher_for("cooperative_grid", KERNEL)
    n = 128 * 100_000
    with pytest.raises(ValueError, match=r"synchronizes its whole grid \(T.cuda.grid_sync at cooperative_grid.tx:18:5\), "
                                         r"so all its 100000 blocks must be resident at once, but device 0 holds at most"):
        module.reverse_after_barrier(cupy.zeros(n, cupy.int32), cupy.zeros(n, cupy.int32), n)
