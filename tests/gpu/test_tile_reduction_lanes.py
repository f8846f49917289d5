"""TIRx's warp reduction across lanes (transpiler/tile/reduction/lanes.py) on the GPU against NumPy:
the kernels of tests/tile/reduction_kernels.py (a (32, 4) spread one row per lane into a
replicated (4,), and a (32, 2, 2) at gapped registers into a replicated (2, 2))."""
from __future__ import annotations

import numpy as np
import pytest

from tests.tile.reduction_kernels import lanes_kernel

pytestmark = pytest.mark.gpu

NUMPY = {"sum": lambda x: x.sum(0), "max": lambda x: x.max(0), "min": lambda x: x.min(0)}
COMBINE = {"sum": np.add, "max": np.maximum, "min": np.minimum}


@pytest.mark.parametrize("dtype,op,accum", [("float32", "sum", False), ("float32", "max", False),
                                            ("float16", "sum", False), ("float32", "sum", True),
                                            ("int32", "min", True)])
def test_reduction_across_lanes(launcher_for, dtype, op, accum):
    import cupy

    rng = np.random.default_rng(11)
    if dtype == "int32":
        a = rng.integers(-1000, 1000, 128).astype(np.int32)
        c = rng.integers(-1000, 1000, (32, 2, 2)).astype(np.int32)
    else:
        a = rng.uniform(-1, 1, 128).astype(dtype)
        c = rng.uniform(-1, 1, (32, 2, 2)).astype(dtype)
    fn = launcher_for(f"tile_red_lanes_{dtype}_{op}_{accum}", lanes_kernel(dtype, op, accum)).k
    bufs = [cupy.asarray(x) for x in (a, np.zeros((32, 4), dtype), c, np.zeros((32, 2, 2), dtype))]
    fn(*bufs)
    cupy.cuda.Device().synchronize()
    _, b, _, d = [x.get() for x in bufs]
    want = NUMPY[op](a.reshape(32, 4).astype(np.float64))
    if accum:
        want = COMBINE[op](want, np.arange(4))
    tol = 2e-2 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(b.astype(np.float64), np.broadcast_to(want, (32, 4)), rtol=tol, atol=tol)
    np.testing.assert_allclose(d.astype(np.float64), np.broadcast_to(NUMPY[op](c.astype(np.float64)), (32, 2, 2)),
                               rtol=tol, atol=tol)
