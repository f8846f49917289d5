"""TIRx's forced-width copies (`vec_16b` ... `vec_256b`) with cache hints, and `vec_auto`, on the GPU
against NumPy (the kernels of tests/tile/cases/copy_forced/)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.tile.case_kernels import kernel_source

pytestmark = pytest.mark.gpu


def _run(launcher_for, name, *host):
    import cupy

    kernel = getattr(launcher_for(f"tile_copy_forced_{name}", kernel_source("copy_forced", name)), name)
    bufs = [cupy.asarray(h) for h in host]
    kernel(*bufs)
    cupy.cuda.Device().synchronize()
    return [b.get() for b in bufs]


def test_vec_128b_with_read_only_and_l1_hints(launcher_for):
    a = np.random.default_rng(3).standard_normal(128).astype(np.float32)
    _, b = _run(launcher_for, "fw_128", a, np.zeros(128, np.float32))
    # thread t loads its 4 elements, stores them to shared, reads back thread 31 - t's, writes them at its own
    assert np.array_equal(b.reshape(32, 4), a.reshape(32, 4)[::-1])


def test_vec_64b_32b_16b(launcher_for):
    a = np.arange(64, dtype=np.float32) * 1.5
    h = (np.arange(128) * 0.25).astype(np.float16).reshape(32, 4)
    _, b, _, g = _run(launcher_for, "fw_narrow", a, np.zeros(64, np.float32), h, np.zeros((32, 4), np.float16))
    assert np.array_equal(b.reshape(32, 2), a.reshape(32, 2)[::-1])
    want = np.concatenate([h[:, 2:4], h[:, 0:2]], axis=1)  # the two halves swapped in registers
    want[:, 1] = h[::-1, 3]  # then element 1 from row 31 - t, column 3
    assert np.array_equal(g, want)


def test_vec_256b_with_every_hint(launcher_for):
    import cupy

    if int(cupy.cuda.Device().compute_capability) < 100:
        pytest.skip("256-bit ld / st need sm_100")
    a = np.arange(256, dtype=np.int32) * 7 - 100
    _, b = _run(launcher_for, "fw_256", a, np.zeros(256, np.int32))
    assert np.array_equal(b.reshape(32, 8), a.reshape(32, 8)[::-1])


def test_vec_auto_gapped_registers_and_thread_registers(launcher_for):
    a = np.random.default_rng(4).standard_normal((32, 2, 2)).astype(np.float32)
    _, b, c = _run(launcher_for, "fw_auto", a, np.zeros_like(a), np.zeros(4, np.float32))
    assert np.array_equal(b, a)
    assert np.array_equal(c, np.arange(1, 5, dtype=np.float32))


def test_auto_copies_with_load_hints(launcher_for):
    rng = np.random.default_rng(5)
    a = rng.integers(-999, 999, (16, 4, 16)).astype(np.int32)
    b = rng.standard_normal((32, 4)).astype(np.float32)
    _, _, c = _run(launcher_for, "fw_hinted_auto", a, b, np.zeros((32, 4), np.float32))
    want = b.copy()
    want[:, 0] = a[0, np.arange(32) % 4, 5]
    assert np.array_equal(c, want)
