"""Global workspaces on a GPU (samples/global_workspace.tx): the launcher zero-fills the
workspace before every launch (the ticket counter starts at 0 each time), and launches on
two streams each get their own workspace. tests/gpu/cases.py checks one launch per size."""
from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

pytestmark = pytest.mark.gpu


def _inputs(n, seed):
    import cupy
    host = np.random.default_rng(seed).uniform(0.0, 1.0, n).astype(np.float32)
    return host, cupy.asarray(host), cupy.full((1,), np.nan, dtype=cupy.float32)


def test_every_launch_starts_from_a_zeroed_workspace(launcher_for):
    """Without the zero-fill the second launch's tickets would start at the first's count,
    no block would draw the last ticket, and `total` would keep its NaN."""
    import cupy
    kernel = launcher_for("global_workspace").global_sum
    host, a, total = _inputs(100003, 1)
    assert kernel.workspace_bytes(a, total) == {"partials": 391 * 4, "tickets": 4}
    for _ in range(3):
        total.fill(np.nan)
        kernel(a, total)
        cupy.cuda.Device().synchronize()
        assert_allclose(cupy.asnumpy(total), [host.astype(np.float64).sum()], rtol=1e-4)


def test_launches_on_two_streams_do_not_share_a_workspace(launcher_for):
    import cupy
    kernel = launcher_for("global_workspace").global_sum
    runs = [_inputs(1 << 20, seed) for seed in (2, 3)]
    streams = [cupy.cuda.Stream(non_blocking=True) for _ in runs]
    for _ in range(5):
        for (_, a, total), stream in zip(runs, streams):
            kernel(a, total, stream=stream)
    for stream in streams:
        stream.synchronize()
    for host, _, total in runs:
        assert_allclose(cupy.asnumpy(total), [host.astype(np.float64).sum()], rtol=1e-4)
