"""Every kernel of tests/cuda_helpers/kernels/ transpiles cleanly and its `.cu` compiles with nvcc,
warnings as errors, for the architectures its first line names (`# nvcc: sm_90a sm_100a`)."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import has_nvcc, transpile

pytestmark = [pytest.mark.nvcc, pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")]

KERNELS = Path(__file__).resolve().parent / "kernels"
PAIRS = [(path, arch) for path in sorted(KERNELS.glob("*.tx"))
         for arch in path.read_text().splitlines()[0].removeprefix("# nvcc:").split()]


@pytest.mark.parametrize("path,arch", PAIRS, ids=lambda v: v.stem if isinstance(v, Path) else v)
def test_kernel_compiles_warning_free(path, arch, tmp_path):
    result = transpile(path.read_text(), path.name)
    assert result.ok, [str(d.message) for d in result.diagnostics]
    cu = tmp_path / (path.stem + ".cu")
    cu.write_text(result.cuda)
    run = subprocess.run(["nvcc", "-std=c++17", "-Werror", "all-warnings", "-c", f"-arch={arch}", str(cu),
                          "-o", str(tmp_path / "k.o")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
