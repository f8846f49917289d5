"""`Tx.copy_async` on the GPU, against NumPy: the kernels of tests/tile/cases/copy_async/ run
through their generated launchers (which encode the TMA tensor maps tirxc adds). ldgsts (with
zero-fill) needs sm_80, TMA and dsmem sm_90, the tensor-memory variants sm_100."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.tile.case_kernels import kernel_source

pytestmark = pytest.mark.gpu


def _need_cc(major: int) -> int:
    import cupy
    cc = int(cupy.cuda.Device().compute_capability)
    if cc // 10 < major:
        pytest.skip(f"needs sm_{major}0, the GPU is sm_{cc}")
    return cc


@pytest.fixture
def module(launcher_for):
    def load(name: str):
        return launcher_for(f"tile_copy_async_{name}", kernel_source("copy_async", name))
    return load


def _bits(rng, shape, dtype=np.uint16):
    """Random bit patterns: a copy moves bits, so any pattern must come back as it went."""
    return rng.integers(0, np.iinfo(dtype).max, shape, dtype=dtype)


def test_ldgsts_cta(module):
    import cupy
    _need_cc(8)
    a = np.random.default_rng(1).uniform(-1, 1, (128, 32)).astype(np.float32)
    b = cupy.full((128, 32), np.nan, cupy.float32)
    module("ldgsts_cta").ldgsts_cta(cupy.asarray(a), b)
    np.testing.assert_array_equal(b.get(), a)


def test_ldgsts_window(module):
    import cupy
    _need_cc(8)
    a = np.random.default_rng(2).uniform(-1, 1, (64, 8)).astype(np.float32)
    b = cupy.full((32, 6), np.nan, cupy.float32)
    module("ldgsts_window").ldgsts_window(cupy.asarray(a), b, 9)
    np.testing.assert_array_equal(b.get(), a[18:50, 2:8])


@pytest.mark.parametrize("n", [0, 13, 32])
def test_ldgsts_zero_fill(module, n):
    import cupy
    _need_cc(8)
    a = np.random.default_rng(3).uniform(1, 2, (32, 4)).astype(np.float32)
    b = cupy.full((32, 4), np.nan, cupy.float32)
    module("ldgsts_zero_fill").ldgsts_zero_fill(cupy.asarray(a), b, n)
    want = a.copy()
    want[n:] = 0
    np.testing.assert_array_equal(b.get(), want)


def test_ldgsts_predicated_without_fill(module):
    import cupy
    _need_cc(8)
    a = np.random.default_rng(4).uniform(1, 2, (32, 4)).astype(np.float32)
    b = cupy.full((32, 4), np.nan, cupy.float32)
    module("ldgsts_predicated").ldgsts_predicated(cupy.asarray(a), b, 11)
    want = a.copy()
    want[11:] = -1
    np.testing.assert_array_equal(b.get(), want)


def test_ldgsts_swizzled(module):
    import cupy
    _need_cc(8)
    a = np.random.default_rng(5).uniform(-1, 1, (16, 32)).astype(np.float32)
    b = cupy.zeros((16, 32), cupy.float32)
    module("ldgsts_swizzled").ldgsts_swizzled(cupy.asarray(a), b)
    np.testing.assert_array_equal(b.get(), a)


def test_tma_load_swizzled(module):
    import cupy
    _need_cc(9)
    a = _bits(np.random.default_rng(6), (256, 128))
    b = cupy.zeros((64, 64), cupy.uint16)
    module("tma_load_swizzled").tma_load_swizzled(cupy.asarray(a), b)
    np.testing.assert_array_equal(b.get(), a[64:128, 64:128])


def test_tma_load_halves(module):
    import cupy
    _need_cc(9)
    a = np.random.default_rng(7).uniform(-1, 1, (32, 64)).astype(np.float32)
    b = cupy.zeros((32, 32), cupy.float32)
    module("tma_load_halves").tma_load_halves(cupy.asarray(a), b)
    np.testing.assert_array_equal(b.get(), a[:, 16:48])


def test_tma_load_3d(module):
    import cupy
    _need_cc(9)
    a = np.random.default_rng(8).uniform(-1, 1, (4, 16, 32)).astype(np.float16)
    b = cupy.zeros((16, 32), cupy.float16)
    module("tma_load_3d").tma_load_3d(cupy.asarray(a), b)
    np.testing.assert_array_equal(b.get(), a[2])


def test_tma_store(module):
    import cupy
    _need_cc(9)
    a = np.random.default_rng(9).uniform(-1, 1, (64, 128)).astype(np.float16)
    b = cupy.full((128, 128), 7, cupy.float16)
    module("tma_store").tma_store(cupy.asarray(a), b)
    want = np.full((128, 128), 7, np.float16)
    want[64:] = a
    np.testing.assert_array_equal(b.get(), want)


def test_tma_oob_fill_and_reducing_store(module):
    import cupy
    _need_cc(9)
    rng = np.random.default_rng(16)
    a = rng.uniform(-1, 1, (48, 32)).astype(np.float32)
    b0 = rng.uniform(-1, 1, (32, 32)).astype(np.float32)
    b = cupy.asarray(b0)
    module("tma_options").tma_options(cupy.asarray(a), b)
    got = b.get()
    np.testing.assert_allclose(got[:16], b0[:16] + a[32:48], rtol=1e-6, atol=1e-6)
    assert np.isnan(got[16:]).all()  # rows past the tensor read as NaN (oob="nan"), and NaN + x is NaN


def test_tma_through_a_ring_of_stages(module):
    import cupy
    _need_cc(9)
    a = _bits(np.random.default_rng(10), (256, 512))
    b = cupy.zeros((256, 512), cupy.uint16)
    module("tma_stages").tma_stages(cupy.asarray(a), b)
    np.testing.assert_array_equal(b.get(), a)


def test_dsmem_pair(module):
    import cupy
    _need_cc(9)
    a = np.random.default_rng(11).uniform(-1, 1, (128, 64)).astype(np.float16)
    b = cupy.zeros((128, 64), cupy.float16)
    module("dsmem_pair").dsmem_pair(cupy.asarray(a), b)
    cupy.cuda.Device().synchronize()
    np.testing.assert_array_equal(b.get(), a)


def test_dsmem_rows(module):
    import cupy
    _need_cc(9)
    a = np.random.default_rng(12).uniform(-1, 1, (16, 64)).astype(np.float32)
    b = cupy.zeros((16, 48), cupy.float32)
    module("dsmem_rows").dsmem_rows(cupy.asarray(a), b)
    np.testing.assert_array_equal(b.get(), a[:, 8:56])


def test_tcgen05_ldst_round_trip(module):
    import cupy
    _need_cc(10)
    a = np.random.default_rng(13).uniform(-1, 1, (128, 8)).astype(np.float32)
    b = cupy.zeros((128, 8), cupy.float32)
    module("tcgen05_ldst_f32").tcgen05_ldst_f32(cupy.asarray(a), b)
    np.testing.assert_array_equal(b.get()[:, :6], a[:, 2:8])


CORPUS = Path(__file__).resolve().parent.parent / "conformance"


def test_docs_ldgsts_program(launcher_for):
    """tile_primitives/copy_async/ldgsts.rst's program: A (128, 32) float16 through shared memory."""
    import cupy
    _need_cc(8)
    module = launcher_for("tile_copy_async_docs_ldgsts",
                          (CORPUS / "tile_primitives-copy_async-ldgsts__2.tx").read_text())
    a = np.random.default_rng(14).uniform(-1, 1, (128, 32)).astype(np.float16)
    b = cupy.zeros((128, 32), cupy.float16)
    module.copy_async(cupy.asarray(a), b)
    np.testing.assert_array_equal(b.get(), a)


def test_docs_dsmem_program(launcher_for):
    """tile_primitives/copy_async/dsmem.rst's program: CTA 0 -> CTA 1's shared memory -> B."""
    import cupy
    _need_cc(9)
    module = launcher_for("tile_copy_async_docs_dsmem",
                          (CORPUS / "tile_primitives-copy_async-dsmem__2.tx").read_text())
    a = np.random.default_rng(15).uniform(-1, 1, (128, 64)).astype(np.float16)
    b = cupy.zeros((128, 64), cupy.float16)
    module.dsmem_copy(cupy.asarray(a), b)
    np.testing.assert_array_equal(b.get(), a)
