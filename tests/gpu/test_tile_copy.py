"""`copy` and `permute_layout` variants on the GPU against NumPy (the kernels of
tests/tile/cases/copy/): gmem_smem (run-time window, partial last round, swizzled 3-D shared,
forced vec_len), reg (registers spread over lanes, a thread's own registers), ldstmatrix
(ldmatrix / stmatrix, plain and .trans) and warp_xor_swizzle (out of place and in place)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.tile.case_kernels import kernel_source

pytestmark = pytest.mark.gpu


def _run(launcher_for, name, *host, scalars=()):
    import cupy

    kernel = getattr(launcher_for(f"tile_copy_{name}", kernel_source("copy", name)), name)
    bufs = [cupy.asarray(h) for h in host]
    kernel(*bufs, *scalars)
    cupy.cuda.Device().synchronize()
    return [b.get() for b in bufs]


def test_gmem_smem_window_with_run_time_start(launcher_for):
    a = np.random.default_rng(1).standard_normal((128, 64)).astype(np.float32)
    _, b = _run(launcher_for, "gs_window", a, np.zeros((64, 32), np.float32), scalars=(np.int32(41),))
    assert np.array_equal(b, a[41:105, 8:40])


def test_gmem_smem_partial_last_round(launcher_for):
    a = np.arange(192, dtype=np.float32).reshape(32, 6)
    _, b = _run(launcher_for, "gs_partial", a, np.full((32, 6), -1, np.float32))
    assert np.array_equal(b, a)


def test_gmem_smem_swizzled_3d(launcher_for):
    a = (np.arange(1024) % 1000).astype(np.float16).reshape(2, 8, 64)
    _, b = _run(launcher_for, "gs_swizzled", a, np.zeros_like(a))
    assert np.array_equal(b, a)


def test_gmem_smem_forced_width_and_column(launcher_for):
    a = np.arange(256, dtype=np.float32) * 3
    _, b, c = _run(launcher_for, "gs_forced", a, np.zeros(256, np.float32), np.zeros((32, 4), np.float32))
    assert np.array_equal(b, a)
    assert np.array_equal(c[:, 1], a[32:64]) and not c[:, [0, 2, 3]].any()


def test_reg_spread_over_lanes(launcher_for):
    a = np.arange(256, dtype=np.float32).reshape(2, 32, 4)
    _, b, c = _run(launcher_for, "reg_lanes", a, np.zeros_like(a), np.zeros((32, 4), np.float32))
    assert np.array_equal(b, a * 2)
    assert np.array_equal(c, a[1] * 2)


def test_reg_thread_scope(launcher_for):
    a = np.arange(256, dtype=np.float32).reshape(32, 8) - 7
    _, b = _run(launcher_for, "reg_thread", a, np.zeros_like(a))
    assert np.array_equal(b, a)


def test_reg_cta_and_thread_scope(launcher_for):
    a = np.arange(512, dtype=np.float32).reshape(128, 4) / 8
    _, b, c = _run(launcher_for, "reg_cta", a, np.zeros_like(a), np.zeros_like(a))
    assert np.array_equal(b, a) and np.array_equal(c, a)


def test_ldstmatrix_plain_and_transposed(launcher_for):
    a = np.arange(128, dtype=np.float16).reshape(8, 4, 2, 2)
    zeros = [np.zeros_like(a) for _ in range(4)]
    _, b, c, d, e = _run(launcher_for, "ldst", a, *zeros)
    assert np.array_equal(b, a)  # ldmatrix .x2 from row-major tiles, then reg to global
    assert np.array_equal(c, a)  # ldmatrix .x2.trans from column-major tiles
    assert np.array_equal(d, a)  # stmatrix .x2.trans into zeroed column-major tiles
    assert np.array_equal(e, a)  # stmatrix .x2 into zeroed row-major tiles


def test_ldmatrix_x4_from_a_swizzled_window(launcher_for):
    a = (np.arange(256) - 128).astype(np.float16).reshape(16, 16)
    _, b = _run(launcher_for, "ldst_x4", a, np.zeros_like(a))
    assert np.array_equal(b, a)


def test_permute_layout_out_of_place(launcher_for):
    import cupy

    # B's layout puts element (s, 0, r, c) at s*128 + c*4 + r: the launcher takes an array with
    # those strides, a transposed view of a dense one
    a = np.arange(256, dtype=np.float32)
    kernel = getattr(launcher_for("tile_copy_permute", kernel_source("copy", "permute")), "permute")
    base = cupy.zeros((2, 1, 32, 4), cupy.float32)
    kernel(cupy.asarray(a.reshape(2, 1, 4, 32)), base.transpose(0, 1, 3, 2))
    cupy.cuda.Device().synchronize()
    assert np.array_equal(base.get().ravel(), a.reshape(2, 4, 32).transpose(0, 2, 1).ravel())


def test_permute_layout_in_place(launcher_for):
    a = np.arange(256, dtype=np.float32).reshape(8, 32)
    _, b = _run(launcher_for, "permute_in_place", a, np.zeros(256, np.float32))
    assert np.array_equal(b, a.T.ravel())  # element (r, c) moved from r*32 + c to c*8 + r
