"""`Tx.wg.gemm_async` (wgmma) with MN-major and unswizzled shared operands on the GPU, against
NumPy: the kernels of tests/tile/test_gemm_async_layouts.py (whose CPU model checks the same
descriptors), each C = A @ B^T from shared tiles filled by plain stores through their layouts."""
from __future__ import annotations

import numpy as np
import pytest

from tests.gpu.cases import _bf16_bits, _bf16_value
from tests.tile import gemm_kernels as gk
from tests.tile import test_gemm_async_layouts as layouts

pytestmark = pytest.mark.gpu

CASES = list(layouts.WGMMA)


@pytest.mark.parametrize("name", CASES)
def test_wgmma_layouts_match_numpy(name, launcher_for):
    import cupy
    cc = int(cupy.cuda.Device().compute_capability)
    if cc // 10 != 9:
        pytest.skip(f"wgmma needs an sm_90 GPU, the GPU is sm_{cc}")
    M, N, K, *_ = layouts.WGMMA[name]
    bf16 = name.startswith("bf16")
    module = launcher_for(f"tile_wgmma_layouts_{name}", layouts._wg_text(name))
    rng = np.random.default_rng(1850)
    if bf16:
        A, B = _bf16_bits(rng.uniform(-1, 1, (M, K))), _bf16_bits(rng.uniform(-1, 1, (N, K)))
        a, b = _bf16_value(A).astype(np.float64), _bf16_value(B).astype(np.float64)
    else:
        A, B = rng.uniform(-1, 1, (M, K)).astype(np.float16), rng.uniform(-1, 1, (N, K)).astype(np.float16)
        a, b = A.astype(np.float64), B.astype(np.float64)
    C = cupy.full(M * N, np.nan, cupy.float32)
    ic = gk.wg_table(gk.wgmma_acc_layout(M, N), (M, N))
    module.wgmma_gemm(cupy.asarray(A), cupy.asarray(B), C, cupy.asarray(ic))
    np.testing.assert_allclose(C.get().reshape(M, N), a @ b.T, rtol=1e-3 if not bf16 else 1e-2, atol=1e-3 * K)


def test_wgmma_register_a_with_mn_major_b_matches_numpy(launcher_for):
    import cupy
    cc = int(cupy.cuda.Device().compute_capability)
    if cc // 10 != 9:
        pytest.skip(f"wgmma needs an sm_90 GPU, the GPU is sm_{cc}")
    M = N = K = 64
    module = launcher_for("tile_wgmma_layouts_rs_mn_b", layouts.registers_a_mn_major_b())
    rng = np.random.default_rng(1851)
    A = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    B = rng.uniform(-1, 1, (N, K)).astype(np.float16)
    C0 = rng.uniform(-1, 1, (M, N)).astype(np.float32)
    C = cupy.asarray(C0.reshape(-1))
    ic = gk.wg_table(gk.wgmma_acc_layout(M, N), (M, N))
    ia = gk.wg_table(gk.wgmma_a_layout(M, K), (M, K))
    module.wgmma_gemm(cupy.asarray(A), cupy.asarray(B), C, cupy.asarray(ic), cupy.asarray(ia))
    want = A.astype(np.float64) @ B.astype(np.float64).T + C0
    np.testing.assert_allclose(C.get().reshape(M, N), want, rtol=1e-3, atol=1e-3 * K)
