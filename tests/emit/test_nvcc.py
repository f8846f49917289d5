"""Every sample's `.cu` compiles with nvcc, warnings as errors, for sm_80 and
sm_90a (marker `nvcc`; skipped without nvcc on PATH).

Dead declarations, sign-compare and narrowing problems, unused helpers and
the like are nvcc warnings, so `-Werror all-warnings` makes them failures.
The compiles are object-only (`-c`) and run in parallel once per session;
each (sample, arch) pair is then its own test with nvcc's message on failure.
"""
from __future__ import annotations

import os
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import SAMPLES, has_nvcc
from tests.emit.test_golden import generate

pytestmark = [pytest.mark.nvcc, pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")]

ARCHS = ("sm_80", "sm_90a")
SAMPLE_FILES = sorted(SAMPLES.glob("*.tx"))
FLAGS = ("-std=c++17", "-Werror", "all-warnings", "-c")


def nvcc(cu_path, arch: str, out_dir) -> tuple[int, str]:
    obj = out_dir / f"{cu_path.stem}.{arch}.o"
    proc = subprocess.run(["nvcc", f"-arch={arch}", *FLAGS, str(cu_path), "-o", str(obj)],
                          capture_output=True, text=True, timeout=300)
    return proc.returncode, (proc.stdout + proc.stderr).strip()


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """(sample stem, arch) -> (return code, nvcc output), compiled in parallel."""
    out_dir = tmp_path_factory.mktemp("nvcc")
    jobs = []
    for sample in SAMPLE_FILES:
        cu = out_dir / f"{sample.stem}.cu"
        cu.write_text(generate(sample), encoding="utf-8")
        jobs.extend((sample.stem, cu, arch) for arch in ARCHS)
    workers = max(2, min(len(jobs), os.cpu_count() or 2))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = pool.map(lambda job: nvcc(job[1], job[2], out_dir), jobs)
        return {(stem, arch): result for (stem, _, arch), result in zip(jobs, results)}


@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("sample", SAMPLE_FILES, ids=lambda p: p.stem)
def test_sample_compiles(compiled, sample, arch):
    code, output = compiled[(sample.stem, arch)]
    assert code == 0, f"nvcc -arch={arch} {' '.join(FLAGS)} {sample.stem}.cu failed:\n{output}"


def test_nvcc_rejects_a_warning(tmp_path):
    """The flags have teeth: an unused variable (what dead-declaration removal
    prevents) fails the build."""
    cu = tmp_path / "probe.cu"
    cu.write_text('extern "C" __global__ void probe(float* p) {\n  int unused = ((int)threadIdx.x);\n'
                  '  p[0] = 1.0f;\n}\n', encoding="utf-8")
    code, output = nvcc(cu, "sm_80", tmp_path)
    assert code != 0 and "177" in output, output
