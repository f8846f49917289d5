"""samples/attention_hopper.tx: the sample transpiles for sm_90a and its CUDA builds with nvcc
(no GPU needed), and on a GPU both kernels (D = 64, 128), causal and not, match a float32
reference of the same bfloat16 inputs, at one and at several K / V tiles per query block (at
S = 640 and D = 128 the last tile of 176 keys reaches past S)."""
from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest

from tests.conftest import SAMPLES, has_nvcc
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

SAMPLE = "attention_hopper"


def _cuda() -> str:
    result = compile_source(SourceFile(f"{SAMPLE}.tx", (SAMPLES / f"{SAMPLE}.tx").read_text()), arch="sm_90a")
    assert result.ok, [str(d.message) for d in result.diagnostics]
    return result.cuda


def test_transpiles_with_wgmma_in_both_forms():
    cuda = _cuda()
    assert "attention_d64_kernel" in cuda and "attention_d128_kernel" in cuda
    # S = Q K^T from shared memory (tiles of 128 keys at D = 64, 176 at D = 128); O += P V with P
    # in registers and V MN-major (trans_b = 1)
    assert "m64n128k16_f32_bf16_bf16<1, 1, 0, 0>" in cuda and "m64n176k16_f32_bf16_bf16<1, 1, 0, 0>" in cuda
    assert "m64n128k16_f32_bf16_bf16_v1<1, 1, 1>" in cuda and "m64n64k16_f32_bf16_bf16_v1<1, 1, 1>" in cuda
    # ping-pong: each consumer warpgroup waits on its named barrier and hands the turn to the other
    assert "tirx_ptx_bar_sync_v1((unsigned int)(1 + " in cuda and "tirx_ptx_bar_arrive((unsigned int)(2 - " in cuda


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
def test_builds_for_sm_90a_without_spills(tmp_path):
    path = tmp_path / f"{SAMPLE}.cu"
    path.write_text(_cuda())
    proc = subprocess.run(["nvcc", "-gencode=arch=compute_90a,code=sm_90a", "-Xptxas", "-v", "-c", str(path),
                           "-o", str(tmp_path / f"{SAMPLE}.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-4000:]
    spills = re.findall(r"(\d+) bytes spill stores", proc.stderr)
    assert spills and all(n == "0" for n in spills), proc.stderr


def _bf16(np_, x):
    bits = x.astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def _reference(q, k, v, causal):
    s = q @ k.transpose(0, 2, 1) / np.sqrt(q.shape[-1])
    if causal:
        n = s.shape[-1]
        s = np.where(np.triu(np.ones((n, n), bool), 1), -np.inf, s)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


@pytest.mark.gpu
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("causal", [0, 1])
@pytest.mark.parametrize("seq", [128, 640])
def test_matches_a_float32_reference(launcher_for, d, causal, seq):
    import cupy

    kernel = getattr(launcher_for(SAMPLE), f"attention_d{d}")
    rng = np.random.default_rng(30 + d + causal + seq)
    bits = [_bf16(np, rng.standard_normal((3, seq, d)).astype(np.float32) * 1.5) for _ in range(3)]
    q, k, v = ((b.astype(np.uint32) << 16).view(np.float32) for b in bits)
    out = cupy.zeros((3, seq, d), cupy.uint16)
    kernel(*(cupy.asarray(b) for b in bits), out, causal)
    got = (out.get().astype(np.uint32) << 16).view(np.float32)
    want = _reference(q.astype(np.float64), k.astype(np.float64), v.astype(np.float64), causal)
    np.testing.assert_allclose(got, want, atol=2e-2, rtol=2e-2)
