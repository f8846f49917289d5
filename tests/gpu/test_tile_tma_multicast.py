"""`Tx.copy_async(..., cta_mask=)` on the GPU (the kernel of
tests/tile/cases/copy_async/tma_multicast_to_the_ctas_of_a_mask.tx): in each 2-CTA cluster both
CTAs multicast their half of a 16 x 64 tile to both, so each CTA ends with the whole tile."""
from __future__ import annotations

import numpy as np
import pytest

from tests.tile.case_kernels import kernel_source

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("mask", ["3", "(1 << (rank + 1)) - 1 if rank == 1 else 3"])
def test_each_cta_receives_both_halves(launcher_for, mask):
    import cupy

    text = kernel_source("copy_async", "multicast").replace("cta_mask=3)", f"cta_mask={mask})")
    module = launcher_for(f"tma_multicast_{len(mask)}", text)
    a = np.arange(16 * 64, dtype=np.float32).reshape(16, 64)
    b = cupy.zeros((2, 16, 64), cupy.float32)
    module.multicast(cupy.asarray(a), b)
    cupy.cuda.Device().synchronize()
    assert np.array_equal(b.get(), np.stack([a, a]))
