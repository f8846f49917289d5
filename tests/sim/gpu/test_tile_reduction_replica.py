"""tests/gpu/test_tile_reduction_replica.py under `tirxc sim` (tests/sim/gpu/conftest.py).

The float32 family is a product of three independent choices (the thread layout: one warp, four,
two warpgroups; the operator; `thread_reduce` x `accum`), 36 kernels on the GPU. Under the
simulator, where each is a build and a run on the CPU, it runs a covering array instead: every
pair of choices at least once (12 kernels: each operator with each combination, each layout with
each operator and with each combination). TIRXC_SIM_ALL_REPLICAS=1 runs the whole product."""
import os

import pytest

from tests.gpu import test_tile_reduction_replica as on_gpu
from tests.gpu.test_tile_reduction_replica import *  # noqa: F401,F403

pytestmark = []  # not the GPU's mark: these run on the CPU

_LAYOUTS = [(1, 1), (1, 4), (2, 8)]
_OPS = ["sum", "max", "min"]
if os.environ.get("TIRXC_SIM_ALL_REPLICAS"):
    _CASES = [(g, w, op, t, a) for g, w in _LAYOUTS for op in _OPS for t, a in on_gpu.COMBOS]
else:  # layout (op + combo) % 3: every (op, combo), (layout, op) and (layout, combo) pair once or more
    _CASES = [(*_LAYOUTS[(o + c) % 3], op, t, a) for o, op in enumerate(_OPS) for c, (t, a) in enumerate(on_gpu.COMBOS)]


@pytest.mark.parametrize("groups, warps, op, thread_reduce, accum", _CASES)
def test_local_view_float32(launcher_for, groups, warps, op, thread_reduce, accum):
    on_gpu._check(launcher_for, op, "float32", thread_reduce, accum, groups, warps)
