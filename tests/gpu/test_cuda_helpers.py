"""The T.cuda helper library on the GPU (transpiler/sema/calls/cuda_helpers.py, target/cuda_lib.py): the
kernels of tests/cuda_helpers/kernels/gpu_*.tx run once, their results checked against numpy and
against the PTX ISA's descriptor layouts (written out independently in test_helper_values.py)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.cuda_helpers.test_helper_values import tcgen05_desc, wgmma_desc

pytestmark = pytest.mark.gpu

KERNELS = Path(__file__).resolve().parent.parent / "cuda_helpers" / "kernels"


def _load(launcher_for, stem):
    return launcher_for(stem, (KERNELS / f"{stem}.tx").read_text())


def test_mbarrier_waits_fences_descriptors_clock_and_ldg(launcher_for):
    import cupy

    module = _load(launcher_for, "gpu_basics")
    x = np.linspace(-3, 5, 128, dtype=np.float32)
    X, Y, O = cupy.asarray(x), cupy.zeros(128, cupy.float32), cupy.zeros(128, cupy.int32)
    S, W = cupy.zeros(128, cupy.uint32), cupy.zeros((128, 3), cupy.uint64)
    G, C = cupy.zeros((128, 2), cupy.uint64), cupy.zeros(128, cupy.uint64)
    module.basics(X, Y, O, S, W, G, C)
    cupy.cuda.Device().synchronize()
    assert (O.get() == 1).all()  # every thread got through three mbarrier phases
    assert np.array_equal(Y.get(), x * 2 + x)  # the fenced register kept its value; __ldg read X
    s = [int(v) for v in S.get()]
    assert all(b - a == 128 for a, b in zip(s, s[1:]))  # one 64-half row apart in the shared window
    w, g = W.get(), G.get()
    for tx in range(128):
        assert int(w[tx, 0]) == wgmma_desc(s[tx], 1, 64, 3)
        assert int(w[tx, 1]) == wgmma_desc(s[tx], 8, 32, 1)
        assert int(w[tx, 2]) == wgmma_desc(s[tx], 2, 16, 2)
        assert int(g[tx, 0]) == tcgen05_desc(s[tx], 16, 4, 4)
        assert int(g[tx, 1]) == tcgen05_desc(s[tx], 1, 64, 3)
    assert (C.get() > 0).all()  # clock64 advanced


def _bf16(values: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bits, rounding to nearest even (no NaNs here)."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint32)


def test_reductions_conversions_and_special_registers(launcher_for):
    import cupy

    module = _load(launcher_for, "gpu_library")
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(256) * 4 + 0.25).astype(np.float32)
    x[x == 0] = 1
    i = rng.integers(-1000, 1000, 256).astype(np.int32)
    X, I = cupy.asarray(x), cupy.asarray(i)
    F, U = cupy.zeros((256, 8), cupy.float32), cupy.zeros((256, 6), cupy.uint32)
    P, R = cupy.zeros(256, cupy.uint64), cupy.zeros((256, 6), cupy.int32)
    module.library(X, I, F, U, P, R)
    cupy.cuda.Device().synchronize()
    f, u, p, r = F.get(), U.get(), P.get(), R.get()

    def groups(values, width, op):
        return np.repeat(op(values.reshape(-1, width), axis=1), width)

    np.testing.assert_allclose(f[:, 0], groups(x, 32, np.sum), rtol=1e-5, atol=1e-4)
    assert np.array_equal(f[:, 1], groups(x, 8, np.max))
    assert np.array_equal(f[:, 2], groups(x, 4, np.min))
    np.testing.assert_allclose(f[:, 3], np.full(256, x.sum()), rtol=1e-5, atol=1e-3)
    assert np.array_equal(f[:, 4], np.full(256, x.min()))
    np.testing.assert_allclose(f[:, 5], x / 4, rtol=1e-6)
    bits = x.view(np.uint32).astype(np.uint64)
    assert np.array_equal(p, bits | ((x + np.float32(1)).view(np.uint32).astype(np.uint64) << 32))
    assert np.array_equal(f[:, 6], x + (x + np.float32(1)))
    low, high = _bf16(x), _bf16(-x)
    assert np.array_equal(u[:, 0], low | high << 16)
    assert np.array_equal(f[:, 7], (high << 16).view(np.float32))  # the high half, widened
    positive = lambda h: np.where(h & 0x8000, 0, h)  # noqa: E731  max(bf16, +0)
    assert np.array_equal(u[:, 1], positive(low) | positive(high) << 16)
    assert (u[:, 2] == 0x7EB04038).all()  # e4m3 of 1, 2, -0.5, 448, x in the low byte
    assert np.array_equal(u[:, 3], groups(np.arange(256, dtype=np.uint32), 32, np.sum))
    assert np.array_equal(u[:, 4], np.arange(256, dtype=np.uint32) + 0x3F800000)
    tx = np.arange(256, dtype=np.uint32)
    assert np.array_equal(u[:, 5], ((tx + 32) << 16) | tx)
    assert np.array_equal(r[:, 0], groups(i, 16, np.sum))
    assert (r[:, 1] == i.max()).all()
    ffs = [0 if v == 0 else (int(v) & -int(v)).bit_length() for v in i]
    assert list(r[:, 2]) == ffs
    assert np.array_equal(r[:, 3], np.arange(256) % 32)
    assert np.array_equal(r[:, 4], np.arange(256))
    assert (r[:, 5] == i.sum()).all()
