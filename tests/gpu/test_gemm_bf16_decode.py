"""samples/gemm_bf16_hopper_decode.tx: the decode-shape BF16 GEMM (swap-AB, split-K inside a 4-CTA
cluster, the parts added through distributed shared memory) transpiles for sm_90a and builds with
nvcc (no GPU needed); on a GPU, C = A @ B^T matches a float32 product of the same bfloat16 inputs
for each tile width, with K split in 1, 2 and 4 parts, one row block and several."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

from tests.conftest import SAMPLES, has_nvcc
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

SAMPLE = "gemm_bf16_hopper_decode"


def _cuda() -> str:
    result = compile_source(SourceFile(f"{SAMPLE}.tx", (SAMPLES / f"{SAMPLE}.tx").read_text()), arch="sm_90a")
    assert result.ok, [str(d.message) for d in result.diagnostics]
    return result.cuda


def test_transpiles_to_swapped_operands_summed_through_the_cluster():
    cuda = _cuda()
    assert cuda.count("__cluster_dims__(4, 1, 1)") == 4
    assert "mapa.shared::cluster.u32" in cuda and "ld.shared::cluster.u32" in cuda
    for width in (16, 64, 128, 256):
        assert f"m64n{width}k16_f32_bf16_bf16<1, 1, 0, 0>" in cuda


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
def test_builds_for_sm_90a(tmp_path):
    path = tmp_path / f"{SAMPLE}.cu"
    path.write_text(_cuda())
    proc = subprocess.run(["nvcc", "-gencode=arch=compute_90a,code=sm_90a", "-c", str(path),
                           "-o", str(tmp_path / f"{SAMPLE}.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-4000:]


def _bf16(x):
    bits = x.astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


@pytest.mark.gpu
@pytest.mark.parametrize("width,m,n,k,split", [
    (16, 16, 512, 256, 1), (16, 32, 512, 1024, 4), (64, 64, 1024, 512, 2),
    (64, 128, 512, 1280, 4), (128, 128, 512, 384, 1), (128, 256, 1024, 512, 2), (256, 256, 512, 512, 1),
    (256, 512, 1024, 1024, 4)])
def test_matches_a_float32_product(launcher_for, width, m, n, k, split):
    import cupy

    kernel = getattr(launcher_for(SAMPLE), f"gemm_bf16_decode_m{width}")
    rng = np.random.default_rng(m + n + k + split)
    a, b = (_bf16(rng.standard_normal(shape).astype(np.float32)) for shape in ((m, k), (n, k)))
    c = cupy.full((m, n), 0x7FC0, cupy.uint16)  # NaN until written
    kernel(cupy.asarray(a), cupy.asarray(b), c, split)
    got = (c.get().astype(np.uint32) << 16).view(np.float32)
    fa, fb = ((x.astype(np.uint32) << 16).view(np.float32) for x in (a, b))
    want = fa.astype(np.float64) @ fb.astype(np.float64).T
    np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-2 * np.abs(want).max())
