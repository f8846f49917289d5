"""samples/gemm_bf16_hopper_persistent.tx: the persistent, clustered BF16 GEMM transpiles for
sm_90a with its TMA multicast and its TMA-store epilogue and builds with nvcc (no GPU needed); on a GPU, C = A @ B^T matches
a float32 product of the same bfloat16 inputs, with one 256-row block, several, and more blocks
than the persistent grid has CTA pairs."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

from tests.conftest import SAMPLES, has_nvcc
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

SAMPLE = "gemm_bf16_hopper_persistent"


def _cuda() -> str:
    result = compile_source(SourceFile(f"{SAMPLE}.tx", (SAMPLES / f"{SAMPLE}.tx").read_text()), arch="sm_90a")
    assert result.ok, [str(d.message) for d in result.diagnostics]
    return result.cuda


def test_transpiles_to_a_clustered_multicast_gemm():
    cuda = _cuda()
    assert "__cluster_dims__(2, 1, 1)" in cuda
    assert "bytes.multicast::cluster [%0]" in cuda and "mapa.shared::cluster.u32" in cuda
    assert "m64n256k16_f32_bf16_bf16<1, 1, 0, 0>" in cuda
    # C leaves through a TMA store from the staging buffer, never by stores from registers
    assert "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group" in cuda and "st.global" not in cuda


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
@pytest.mark.parametrize("m,n,k", [(256, 256, 64), (512, 512, 640), (2304, 2048, 192)])
def test_matches_a_float32_product(launcher_for, m, n, k):
    import cupy

    kernel = launcher_for(SAMPLE).gemm_bf16_persistent
    rng = np.random.default_rng(m + n + k)
    a, b = (_bf16(rng.standard_normal(shape).astype(np.float32)) for shape in ((m, k), (n, k)))
    c = cupy.zeros((m, n), cupy.uint16)
    kernel(cupy.asarray(a), cupy.asarray(b), c)
    got = (c.get().astype(np.uint32) << 16).view(np.float32)
    fa, fb = ((x.astype(np.uint32) << 16).view(np.float32) for x in (a, b))
    want = fa.astype(np.float64) @ fb.astype(np.float64).T
    np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-2 * np.abs(want).max())
