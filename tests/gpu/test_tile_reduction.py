"""Reduction variants and fused forms on the GPU against NumPy: `local` at thread scope (and the fused
forms built on it), `local` over registers spread over a warp's lanes (butterfly shuffles),
`shared` at CTA and warp scope. `sm100_packed` needs sm_100: compiled only (tests/tile)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.tile.test_reduction import CASES, IMPORTS, START, WARP, X, thread_kernel

pytestmark = pytest.mark.gpu


def _run(launcher_for, stem, text, *host):
    import cupy

    fn = launcher_for(stem, text).k
    bufs = [cupy.asarray(h) for h in host]
    fn(*bufs)
    cupy.cuda.Device().synchronize()
    return [b.get() for b in bufs]


@pytest.mark.parametrize("memory", ["local", "shared"])
def test_thread_scope_reductions_and_fused_forms(launcher_for, memory):
    _, _, out = _run(launcher_for, f"tile_red_thread_{memory}", thread_kernel([s for s, _ in CASES], memory),
                     X, START, np.zeros((len(CASES), 8), np.float32))
    for (stmt, want), got in zip(CASES, out):
        expect = want(START.copy())
        np.testing.assert_allclose(got[:len(expect)], expect, rtol=2e-6, atol=2e-6, err_msg=stmt)


def test_registers_over_lanes_with_shuffles(launcher_for):
    a = np.random.default_rng(8).uniform(-3, 3, (32, 8)).astype(np.float32)
    _, b, c, d = _run(launcher_for, "tile_red_warp", WARP, a, np.zeros(32, np.float32), np.zeros(8, np.float32),
                      np.zeros((4, 8), np.float32))
    np.testing.assert_allclose(b, a.sum(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(c, a.max(0))
    np.testing.assert_allclose(d, a.reshape(4, 8, 8).sum(1), rtol=1e-5, atol=1e-5)


SHARED = IMPORTS + """
@T.prim_func
def k(A: T.Buffer((16, 40), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((40,), "float32"),
      D: T.Buffer((4, 2), "float32"), E: T.Buffer((16,), "float32"), F: T.Buffer((16,), "float32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([128])
    w = T.warp_id([4])
    X = T.alloc_shared((16, 40), "float32")
    rows = T.alloc_shared((16,), "float32")
    cols = T.alloc_shared((40,), "float32")
    part = T.alloc_shared((4, 2), "float32")
    Y = T.alloc_shared((16, 40), "float32")
    neg = T.alloc_shared((16,), "float32")
    dots = T.alloc_shared((16,), "float32")
    Tx.cta.copy(X, A)
    T.cuda.cta_sync()
    Tx.cta.sum(rows, X)
    Tx.cta.fill(cols, 1.0)
    Tx.cta.max(cols, X, axes=0, accum=True)
    Tx.warp.min(part[w, 0:1], X[4 * w : 4 * w + 4, 0:40], axes=(0, 1))
    Tx.warp.min(part[w, 1:2], X[4 * w : 4 * w + 2, 0:3], axes=(0, 1))
    Tx.cta.reduce_negate(neg, X, "max")
    Tx.cta.binary_reduce(Y, dots, X, X, "mul", "sum")
    T.cuda.cta_sync()
    Tx.cta.copy(E, neg)
    Tx.cta.copy(F, dots)
    Tx.cta.copy(B, rows)
    Tx.cta.copy(C, cols)
    Tx.cta.copy(D, part)
"""


def test_shared_groups_of_lanes(launcher_for):
    a = np.random.default_rng(9).uniform(-3, 3, (16, 40)).astype(np.float32)
    _, b, c, d, e, f = _run(launcher_for, "tile_red_shared", SHARED, a, np.zeros(16, np.float32),
                            np.zeros(40, np.float32), np.zeros((4, 2), np.float32), np.zeros(16, np.float32),
                            np.zeros(16, np.float32))
    np.testing.assert_array_equal(e, -a.max(1))
    np.testing.assert_allclose(f, (a * a).sum(1), rtol=1e-5)
    np.testing.assert_allclose(b, a.sum(1), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(c, np.maximum(a.max(0), 1))
    np.testing.assert_array_equal(d[:, 0], a.reshape(4, 4, 40).min((1, 2)))
    np.testing.assert_array_equal(d[:, 1], a.reshape(4, 4, 40)[:, :2, :3].min((1, 2)))
