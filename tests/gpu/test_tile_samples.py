"""samples/softmax_tx.tx and samples/rmsnorm_tx.tx on the GPU: against NumPy, and their bandwidth
against a device-to-device copy of the same bytes (one pass in, one out: the kernels should
reach 85 % of it on an H200)."""
from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

ROWS = COLS = 4096


def _inputs(seed):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((ROWS, COLS)) * 3).astype(np.float32)


def _softmax(x):
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _rmsnorm(x, w, eps=1e-6):
    x64 = x.astype(np.float64)
    return x64 / np.sqrt((x64 ** 2).mean(1, keepdims=True) + eps) * w


def test_softmax_tx_matches_numpy(launcher_for):
    import cupy

    kernel = launcher_for("softmax_tx").softmax_tx
    x = _inputs(21)
    X, Y = cupy.asarray(x), cupy.full((ROWS, COLS), np.nan, np.float32)
    kernel(X, Y)
    y = Y.get()
    np.testing.assert_allclose(y, _softmax(x), rtol=1e-5, atol=1e-9)
    np.testing.assert_allclose(y.sum(1), 1, rtol=1e-5)


def test_rmsnorm_tx_matches_numpy(launcher_for):
    import cupy

    kernel = launcher_for("rmsnorm_tx").rmsnorm_tx
    x = _inputs(22)
    w = np.random.default_rng(23).uniform(0.5, 1.5, COLS).astype(np.float32)
    X, W, Y = cupy.asarray(x), cupy.asarray(w), cupy.full((ROWS, COLS), np.nan, np.float32)
    kernel(X, W, Y)
    np.testing.assert_allclose(Y.get(), _rmsnorm(x, w), rtol=2e-5, atol=1e-6)


def _burst(cupy, launch, rounds=30) -> float:
    """Seconds per launch over a burst of back-to-back launches (the GPU never waits for the host)."""
    for _ in range(3):
        launch()
    cupy.cuda.Device().synchronize()
    best = float("inf")
    for _ in range(3):
        start, stop = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        for _ in range(rounds):
            launch()
        stop.record()
        stop.synchronize()
        best = min(best, cupy.cuda.get_elapsed_time(start, stop) * 1e-3 / rounds)
    return best


@pytest.mark.parametrize("sample", ["softmax_tx", "rmsnorm_tx"])
def test_bandwidth_is_near_a_device_copy(launcher_for, sample):
    import cupy

    kernel = getattr(launcher_for(sample), sample)
    X = cupy.asarray(_inputs(24))
    Y = cupy.zeros_like(X)
    args = (X, Y) if sample == "softmax_tx" else (X, cupy.ones(COLS, cupy.float32), Y)
    kernel_time = _burst(cupy, lambda: kernel(*args))
    nbytes = X.nbytes
    kind = cupy.cuda.runtime.memcpyDeviceToDevice
    stream = cupy.cuda.get_current_stream().ptr
    copy_time = _burst(cupy, lambda: cupy.cuda.runtime.memcpyAsync(Y.data.ptr, X.data.ptr, nbytes, kind, stream))
    fraction = copy_time / kernel_time
    print(f"{sample}: {2 * nbytes / kernel_time / 1e9:.0f} GB/s, copy {2 * nbytes / copy_time / 1e9:.0f} GB/s "
          f"({100 * fraction:.1f} %)")
    assert fraction >= 0.85, f"{sample} reaches {100 * fraction:.1f} % of a device-to-device copy"
