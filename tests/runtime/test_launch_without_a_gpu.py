"""A generated launcher on a machine that cannot run it: its first launch raises the launcher's
NoGPUError with tirxc's words (why, and what to install), never CuPy's raw driver error. Each case
runs in a fresh interpreter: the launcher remembers CUDA's runtime once it has found a GPU."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SAMPLES, transpile

CALL = """
import sys, numpy
sys.path.insert(0, {folder!r})
import saxpy_launcher as launcher
x = numpy.ones(8, numpy.float32)
try:
    launcher.saxpy(2.0, x, x.copy())
except launcher.NoGPUError as err:
    print("NoGPUError:", err)
    print("cause:", err.__cause__, err.__suppress_context__)
"""


def _gpu_present() -> bool:
    probe = "import cupy; print(cupy.cuda.runtime.getDeviceCount())"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    return done.returncode == 0 and done.stdout.strip() not in ("", "0")


def _launch(tmp_path: Path, extra_path: Path | None = None) -> subprocess.CompletedProcess:
    result = transpile((SAMPLES / "saxpy.tx").read_text(), "saxpy.tx", until="launcher")
    (tmp_path / "saxpy_launcher.py").write_text(result.launcher)
    env = None
    if extra_path is not None:
        import os
        env = dict(os.environ, PYTHONPATH=f"{extra_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    return subprocess.run([sys.executable, "-c", CALL.format(folder=str(tmp_path))], capture_output=True,
                          text=True, timeout=120, env=env)


def test_a_launch_without_cupy_says_what_to_install(tmp_path):
    hidden = tmp_path / "no_cupy"
    (hidden / "cupy").mkdir(parents=True)
    (hidden / "cupy" / "__init__.py").write_text("raise ImportError('No module named cupy')\n")
    done = _launch(tmp_path, hidden)
    assert done.returncode == 0, done.stderr
    assert "NoGPUError: saxpy.tx: cannot launch its kernels: CuPy is not installed" in done.stdout
    assert "pip install '.[cuda]'" in done.stdout
    assert "cause: None True" in done.stdout  # no CuPy traceback chained under it


def test_a_launch_without_a_driver_or_gpu_gives_tirxcs_message(tmp_path):
    pytest.importorskip("cupy")
    if _gpu_present():
        pytest.skip("this machine has a GPU")
    done = _launch(tmp_path)
    assert done.returncode == 0, done.stderr
    assert "NoGPUError: saxpy.tx: cannot launch its kernels: " in done.stdout
    assert "Traceback" not in done.stderr and "cupy_backends" not in done.stdout
    assert "cause: None True" in done.stdout


def test_the_reason_names_cudas_error_in_words():
    from transpiler.runtime import program
    assert program.cuda_reason(RuntimeError("cudaErrorInsufficientDriver: CUDA driver version is "
                                            "insufficient for CUDA runtime version")) == \
        "no CUDA driver is installed, or it is older than CuPy's CUDA runtime (cudaErrorInsufficientDriver)"
    assert program.cuda_reason(RuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")).startswith(
        "CUDA sees no GPU")
    assert program.cuda_reason(RuntimeError("cudaErrorUnknown: x")) == "CUDA reports: cudaErrorUnknown: x"
