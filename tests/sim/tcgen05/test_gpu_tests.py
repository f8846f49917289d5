"""The GPU tests' tcgen05 kernels, which need a Blackwell GPU (compute capability 10.x), under
`tirxc sim` as tests/sim/gpu runs the others: the same kernels, arguments and NumPy oracles, with
`cupy` standing for NumPy and the simulated device reporting sm_100."""
from __future__ import annotations

import sys

import pytest

from tests.gpu.test_tile_copy_async import module, test_tcgen05_ldst_round_trip  # noqa: F401
from tests.sim import numpy_cupy


@pytest.fixture(autouse=True)
def blackwell_numpy():
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, "cupy", numpy_cupy)
        patch.setattr(numpy_cupy.cuda.Device, "compute_capability", "100")
        yield
