"""tests/gpu's own test modules, run under `tirxc sim` instead of a GPU (docs/sim.md): each
file here star-imports one of them (its tests and fixtures; its `gpu` mark dropped), so the same
kernels, arguments, NumPy oracles and tolerances run on the CPU, with `cupy` standing for NumPy
(tests/sim/numpy_cupy.py) and tests/sim/conftest.py's `launcher_for` giving the simulated
module. A kernel the simulator cannot run yet skips with its E0810 message (the refusal by
name), so each PTX helper given a CPU implementation (transpiler/sim/ptx.py) turns tests on here.
Only modules whose tests use no more of CuPy than numpy_cupy.py has (no streams, events, raw
modules or device-to-device copies) are here."""
from __future__ import annotations

import sys

import pytest

from tests.sim import numpy_cupy


@pytest.fixture(scope="module", autouse=True)
def cupy_is_numpy():
    """For the whole module (its module-scoped fixtures import cupy too), undone after it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, "cupy", numpy_cupy)
        yield
