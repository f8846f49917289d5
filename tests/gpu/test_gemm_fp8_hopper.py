"""samples/gemm_fp8_hopper.tx: the sample transpiles for sm_90a with the FP8 wgmma and builds
with nvcc (no GPU needed); on a GPU, C = (A @ B^T) * scale_a * scale_b matches a float32
product of the same e4m3 inputs."""
from __future__ import annotations

import subprocess

import numpy as np
import pytest

from tests.conftest import SAMPLES, has_nvcc
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

SAMPLE = "gemm_fp8_hopper"


def _cuda() -> str:
    result = compile_source(SourceFile(f"{SAMPLE}.tx", (SAMPLES / f"{SAMPLE}.tx").read_text()), arch="sm_90a")
    assert result.ok, [str(d.message) for d in result.diagnostics]
    return result.cuda


def test_transpiles_to_the_fp8_wgmma():
    assert "wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3" in _cuda()


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
def test_builds_for_sm_90a(tmp_path):
    path = tmp_path / f"{SAMPLE}.cu"
    path.write_text(_cuda())
    proc = subprocess.run(["nvcc", "-gencode=arch=compute_90a,code=sm_90a", "-c", str(path),
                           "-o", str(tmp_path / f"{SAMPLE}.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-4000:]


def _e4m3_values():
    """Every finite e4m3 value by its byte (bias 7, no infinities, 0x7F / 0xFF are NaN)."""
    b = np.arange(256)
    sign = np.where(b & 0x80, -1.0, 1.0)
    e, m = (b >> 3) & 0xF, b & 7
    value = np.where(e == 0, m / 8 * 2.0 ** -6, (1 + m / 8) * 2.0 ** (e - 7.0))
    return sign * value


@pytest.mark.gpu
# one block of 256 rows for a CTA pair; several; and more blocks than the persistent grid's pairs
@pytest.mark.parametrize("m,n,k", [(256, 256, 128), (512, 512, 640), (2304, 2048, 384)])
def test_matches_a_float32_product(launcher_for, m, n, k):
    import cupy

    kernel = launcher_for(SAMPLE).gemm_fp8_hopper
    rng = np.random.default_rng(m + n + k)
    finite = np.array([i for i in range(256) if i & 0x7F != 0x7F], np.uint8)
    a, b = (rng.choice(finite, size) for size in ((m, k), (n, k)))
    c = cupy.zeros((m, n), cupy.uint16)
    sa, sb = cupy.asarray([0.5], cupy.float32), cupy.asarray([0.25], cupy.float32)
    kernel(cupy.asarray(a), cupy.asarray(b), c, sa, sb)
    got = (c.get().astype(np.uint32) << 16).view(np.float32)
    values = _e4m3_values()
    want = (values[a] @ values[b].T) * 0.125
    np.testing.assert_allclose(got, want, rtol=1e-2, atol=1e-2 * np.abs(want).max())
