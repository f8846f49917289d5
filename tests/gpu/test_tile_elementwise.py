"""Elementwise variants on the GPU against NumPy (the kernels of tests/tile/test_elementwise.py and a
few that need real threads): `reg` on a thread's own registers and on registers spread over a
warp's lanes, `smem` at CTA, warp and warpgroup scope (two warpgroups at once: each has its own
barrier). The packed f32x2 forms need sm_100 and are compiled only (tests/tile)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.tile.test_elementwise import (A, B, IMPORTS, SMEM_KERNEL, THREAD_CASES, WARP_KERNEL, _warp_expected,
                                         thread_kernel)

pytestmark = pytest.mark.gpu


def _run(launcher_for, stem, text, kernel, *host):
    import cupy

    fn = getattr(launcher_for(stem, text), kernel)
    bufs = [cupy.asarray(h) for h in host]
    fn(*bufs)
    cupy.cuda.Device().synchronize()
    return [b.get() for b in bufs]


@pytest.mark.parametrize("memory", ["local", "shared"])
def test_thread_scope_ops(launcher_for, memory):
    text = thread_kernel([s for s, _ in THREAD_CASES], memory)
    _, _, out = _run(launcher_for, f"tile_ew_thread_{memory}", text, "k", A, B,
                     np.zeros((len(THREAD_CASES), 2, 4), np.float32))
    for (stmt, want), got in zip(THREAD_CASES, out):
        np.testing.assert_allclose(got, want(), rtol=2e-6, atol=1e-6, err_msg=stmt)


def test_registers_spread_over_lanes(launcher_for):
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (32, 8)).astype(np.float32)
    b = rng.uniform(-1, 1, 8).astype(np.float32)
    _, _, c = _run(launcher_for, "tile_ew_warp", WARP_KERNEL, "warp_registers", a, b, np.zeros((32, 8), np.float32))
    np.testing.assert_allclose(c, _warp_expected(a, b), rtol=2e-6, atol=1e-6)


def test_smem_cta_rounds(launcher_for):
    a = np.random.default_rng(4).uniform(0, 4, (12, 10)).astype(np.float32)
    _, c = _run(launcher_for, "tile_ew_smem", SMEM_KERNEL, "smem_rounds", a, np.zeros((12, 10), np.float32))
    np.testing.assert_allclose(c, np.sqrt(a + 1) * a + np.float32(0.25), rtol=2e-6, atol=1e-6)


SCOPES = IMPORTS + """
@T.prim_func
def k(A: T.Buffer((2, 4, 96), "float32"), C: T.Buffer((2, 4, 96), "float32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([256])
    wg = T.warpgroup_id([2])
    w = T.warp_id([8])
    X = T.alloc_shared((2, 4, 96), "float32")
    Y = T.alloc_shared((2, 4, 96), "float32")
    Tx.cta.copy(X, A)
    Tx.cta.fill(Y, 0.0)
    Tx.warpgroup.exp2(Y[wg, 0:2, 0:96], X[wg, 0:2, 0:96], scale=0.5)
    Tx.warpgroup.add(Y[wg, 0:2, 0:96], Y[wg, 0:2, 0:96], Y[wg, 0:2, 0:96])
    Tx.warp.minimum(Y[w // 4, 2 + w % 2, 48 * ((w // 2) % 2) : 48 * ((w // 2) % 2) + 48],
                    X[w // 4, 2 + w % 2, 48 * ((w // 2) % 2) : 48 * ((w // 2) % 2) + 48], 0.5)
    T.cuda.cta_sync()
    Tx.cta.copy(C, Y)
"""


def test_smem_warp_and_warpgroup_scopes(launcher_for):
    a = np.random.default_rng(5).uniform(-2, 2, (2, 4, 96)).astype(np.float32)
    _, c = _run(launcher_for, "tile_ew_scopes", SCOPES, "k", a, np.zeros_like(a))
    want = np.zeros_like(a)
    want[:, 0:2] = 2 * np.exp2(a[:, 0:2] * np.float32(0.5))
    want[:, 2:4] = np.minimum(a[:, 2:4], np.float32(0.5))
    np.testing.assert_allclose(c, want, rtol=2e-6, atol=1e-6)
