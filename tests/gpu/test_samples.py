"""Every runnable sample through its generated launcher on a real GPU, against NumPy."""
from __future__ import annotations

import pytest

from tests.gpu.cases import PARAMS, make_args, to_device

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("case_id, case, size", PARAMS, ids=[p[0] for p in PARAMS])
def test_sample_matches_numpy(case_id, case, size, launcher_for):
    import cupy
    module = launcher_for(case["sample"])
    kernel = getattr(module, case["kernel"])
    args = make_args(case, size)
    bases, device_args = to_device(args, case)
    grid, block, shared = kernel.launch_config(*device_args)
    declared = case["launch"](args)
    pad = lambda t: tuple(t) + (1,) * (3 - len(t))  # noqa: E731
    assert (grid, block, shared) == (pad(declared["grid"]), pad(declared["block"]), declared["dyn_shared_bytes"])
    kernel(*device_args)
    cupy.cuda.Device().synchronize()
    after = [cupy.asnumpy(bases[i]) if i in bases else arg for i, arg in enumerate(args)]
    case["check"](args, after)
