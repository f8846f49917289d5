"""The CMake example of docs/cpp.md (docs/examples/cmake): tirxc_add_kernels() runs tirxc at build
time, nvcc builds the static library, the C++ test program links against it and runs (its
launches are skipped without a GPU), and touching a .tx file rebuilds it -- only it (markers
`nvcc`; skipped without cmake, nvcc or the tirxc command)."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES, has_nvcc

TIRXC = Path(sys.executable).parent / "tirxc"
EXAMPLE = ROOT / "docs" / "examples" / "cmake"

pytestmark = [pytest.mark.nvcc,
              pytest.mark.skipif(not has_nvcc() or shutil.which("cmake") is None or not TIRXC.exists(),
                                 reason="needs cmake, nvcc and the tirxc command")]


def _build(build: Path) -> str:
    done = subprocess.run(["cmake", "--build", str(build)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def test_cmake_example_builds_links_runs_and_rebuilds(tmp_path):
    kernels = tmp_path / "kernels"
    kernels.mkdir()
    for name in ("saxpy.tx", "global_workspace.tx"):
        shutil.copy(SAMPLES / name, kernels / name)
    build = tmp_path / "build"
    configure = subprocess.run(["cmake", "-S", str(EXAMPLE), "-B", str(build), f"-DTIRXC_EXECUTABLE={TIRXC}",
                                f"-DTIRXC_KERNEL_DIR={kernels}", "-DCMAKE_CUDA_ARCHITECTURES=80"],
                               capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout[-3000:] + configure.stderr[-3000:]
    first = _build(build)
    assert "tirxc saxpy.tx" in first and "tirxc global_workspace.tx" in first
    assert (build / "example_kernels" / "saxpy.h").exists()
    assert list(build.glob("libexample_kernels.a"))
    run = subprocess.run([str(build / "example")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "refused: saxpy(): argument 'x' has a NULL data pointer, but it has elements" in run.stdout
    assert "empty: ok" in run.stdout
    assert "tirxc" not in _build(build)  # up to date: nothing runs again
    (kernels / "saxpy.tx").write_text((kernels / "saxpy.tx").read_text() + "\n# changed\n")
    again = _build(build)
    assert "tirxc saxpy.tx" in again and "tirxc global_workspace.tx" not in again
