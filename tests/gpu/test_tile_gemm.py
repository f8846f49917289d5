"""`Tx.gemm` (mma.sync) and `Tx.wg.gemm_async` (wgmma) on the GPU, against NumPy: the kernels of
tests/tile/gemm_kernels.py, the docs' demonstration program, and samples/gemm_tx_hopper.tx."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.gpu.cases import _bf16_bits, _bf16_value
from tests.tile import gemm_kernels as gk

pytestmark = pytest.mark.gpu

ROOT = Path(__file__).resolve().parent.parent.parent


def _need_cc(major: int):
    import cupy
    cc = int(cupy.cuda.Device().compute_capability)
    if cc // 10 < major:
        pytest.skip(f"needs sm_{major}0, the GPU is sm_{cc}")
    return cc


def _inputs(rng, dtype, shape):
    if dtype in ("int8",):
        return rng.integers(-8, 8, shape).astype(np.int8)
    if dtype == "uint8":
        return rng.integers(0, 16, shape).astype(np.uint8)
    if dtype == "bfloat16":
        return _bf16_bits(rng.uniform(-1, 1, shape))
    return rng.uniform(-1, 1, shape).astype(np.float16 if dtype == "float16" else np.float32)


def _value(dtype, x):
    if dtype == "bfloat16":
        return _bf16_value(x).astype(np.float64)
    if dtype == "float32":  # tf32: the tensor core keeps 10 bits of mantissa
        return (x.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64)
    return x.astype(np.float64)


MMA_CASES = [
    # id, dtype, acc, M, N, K, instruction K, elements per register, beta, transpose_A, transpose_B, scope
    ("f16_k16", "float16", "float32", 32, 16, 32, 16, 2, 0, False, False, "warp"),
    ("f16_k8_beta1", "float16", "float32", 16, 8, 8, 8, 2, 1, False, False, "warp"),
    ("bf16_transposed", "bfloat16", "float32", 16, 16, 32, 16, 2, 1, True, True, "warp"),
    ("tf32", "float32", "float32", 16, 8, 16, 8, 1, 0, False, False, "warp"),
    ("s8_k32", "int8", "int32", 16, 8, 64, 32, 4, 1, False, False, "warp"),
    ("u8_k16", "uint8", "int32", 16, 8, 16, 16, 4, 0, False, False, "warp"),
    ("f16_warpgroup", "float16", "float32", 16, 8, 16, 16, 2, 0, False, False, "wg"),
]


@pytest.mark.parametrize("case", MMA_CASES, ids=[c[0] for c in MMA_CASES])
def test_mma_gemm_matches_numpy(case, launcher_for):
    import cupy
    _need_cc(8)
    name, dtype, acc, M, N, K, k, pack, beta, tA, tB, scope = case
    threads = 128 if scope == "wg" else 32
    warps = threads // 32
    module = launcher_for(f"tile_gemm_{name}", gk.mma_kernel(dtype, acc, M, N, K, k, pack, beta, tA, tB, scope,
                                                             threads))
    rng = np.random.default_rng(1800)
    A = _inputs(rng, dtype, (warps, K, M) if tA else (warps, M, K))
    B = _inputs(rng, dtype, (warps, N, K) if tB else (warps, K, N))
    C = (rng.integers(-50, 50, (warps, M, N)) if acc == "int32" else rng.uniform(-1, 1, (warps, M, N))).astype(acc)
    tables = gk.mma_tables(M, N, K, k, pack, tA, tB)
    D = cupy.full((warps, M * N), -7, acc)
    module.gemm(cupy.asarray(A.reshape(warps, -1)), cupy.asarray(B.reshape(warps, -1)),
                cupy.asarray(C.reshape(warps, -1)), D, *map(cupy.asarray, tables))
    got = D.get().reshape(warps, M, N)
    for w in range(warps):
        a, b = _value(dtype, A[w]), _value(dtype, B[w])
        want = (a.T if tA else a) @ (b.T if tB else b) + (C[w] if beta else 0)
        if acc == "int32":
            np.testing.assert_array_equal(got[w], want.astype(np.int64))
        else:
            np.testing.assert_allclose(got[w], want, rtol=1e-3, atol=1e-3 * K)


def test_docs_demonstration_program(launcher_for):
    """tile_primitives/gemm.rst's program: D (16, 8) = A (16, 16) @ B (16, 8) on one warp."""
    import cupy
    _need_cc(8)
    text = (ROOT / "tests" / "conformance" / "tile_primitives-gemm__2.tx").read_text()
    module = launcher_for("tile_gemm_docs", text)
    rng = np.random.default_rng(1801)
    A = rng.uniform(-1, 1, (16, 16)).astype(np.float16)
    B = rng.uniform(-1, 1, (16, 8)).astype(np.float16)
    D = cupy.zeros((16, 8), cupy.float32)
    module.gemm(cupy.asarray(A), cupy.asarray(B), D)
    np.testing.assert_allclose(D.get(), A.astype(np.float64) @ B.astype(np.float64), rtol=1e-3, atol=1e-3)


WGMMA_CASES = [
    # id, M, N, K, swizzle, accum, A in registers
    ("ss_128B", 64, 64, 64, 3, False, False),
    ("ss_64B_two_m_tiles_accum", 128, 32, 32, 2, True, False),
    ("ss_32B_n256", 64, 256, 16, 1, False, False),
    ("rs_128B", 64, 16, 64, 3, True, True),
]


@pytest.mark.parametrize("case", WGMMA_CASES, ids=[c[0] for c in WGMMA_CASES])
def test_wgmma_gemm_async_matches_numpy(case, launcher_for):
    import cupy
    if _need_cc(9) // 10 != 9:
        pytest.skip("wgmma needs an sm_90 GPU")
    name, M, N, K, swizzle, accum, in_regs = case
    module = launcher_for(f"tile_wgmma_{name}", gk.wgmma_kernel(M, N, K, swizzle, accum, in_regs))
    rng = np.random.default_rng(1802)
    A = rng.uniform(-1, 1, (M, K)).astype(np.float16)
    B = rng.uniform(-1, 1, (N, K)).astype(np.float16)
    C0 = rng.uniform(-1, 1, (M, N)).astype(np.float32)
    C = cupy.asarray(C0.reshape(-1))
    ic = gk.wg_table(gk.wgmma_acc_layout(M, N), (M, N))
    ia = gk.wg_table(gk.wgmma_a_layout(M, K), (M, K))
    module.wgmma_gemm(cupy.asarray(A), cupy.asarray(B), C, cupy.asarray(ic), cupy.asarray(ia))
    want = A.astype(np.float64) @ B.astype(np.float64).T + (C0 if accum else 0)
    np.testing.assert_allclose(C.get().reshape(M, N), want, rtol=1e-3, atol=1e-3 * K)


@pytest.mark.parametrize("kernel, M, N, K", [("gemm_bf16_hopper", 384, 512, 640),
                                             ("gemm_bf16_hopper_narrow", 256, 192, 640)])
def test_gemm_tx_hopper_sample(kernel, M, N, K, launcher_for):
    import cupy
    if _need_cc(9) // 10 != 9:
        pytest.skip("wgmma needs an sm_90 GPU")
    module = launcher_for("gemm_tx_hopper")
    rng = np.random.default_rng(1803)
    A, B = _bf16_bits(rng.uniform(-1, 1, (M, K))), _bf16_bits(rng.uniform(-1, 1, (N, K)))
    C = cupy.full((M, N), 0x7FC0, cupy.uint16)
    getattr(module, kernel)(cupy.asarray(A), cupy.asarray(B), C)
    ref = _bf16_value(A).astype(np.float64) @ _bf16_value(B).astype(np.float64).T
    np.testing.assert_allclose(_bf16_value(C.get()), ref, rtol=1e-2, atol=1e-2 * np.abs(ref).max())
