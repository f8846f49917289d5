"""`tirxc run` on a machine without a GPU (no CuPy, no GPU or driver) says why in one line and runs
the kernels under `tirxc sim` instead (docs/sim.md); when the simulator cannot run either (no NumPy)
it exits with 4, the status of an environment problem (docs/ci-guide.md); 1 stays the status of an
input with errors, which is reported before the GPU is looked for."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.build_cache import cache_dir
from tests.conftest import SAMPLES
from tests.runtime.test_launch_without_a_gpu import _gpu_present


def _run(tmp_path, *args, hide_cupy=False, hide_numpy=False):
    # the simulator's builds in the tests' cache (build/test-cache/sim, as tests/sim's): saxpy's is built once
    env = dict(os.environ, TIRXC_CACHE=str(cache_dir() or tmp_path / "cache"))
    hidden = tmp_path / "hidden"
    for package, hide in (("cupy", hide_cupy), ("numpy", hide_numpy)):
        if hide:
            (hidden / package).mkdir(parents=True)
            (hidden / package / "__init__.py").write_text(f"raise ImportError('No module named {package}')\n")
    if hide_cupy or hide_numpy:
        env["PYTHONPATH"] = f"{hidden}{os.pathsep}{env.get('PYTHONPATH', '')}"
    return subprocess.run([sys.executable, "-m", "transpiler", "run", *map(str, args)], capture_output=True,
                          text=True, timeout=120, env=env)


def test_run_without_cupy_runs_on_the_cpu_instead(tmp_path):
    done = _run(tmp_path, SAMPLES / "saxpy.tx", "--size", "4096", hide_cupy=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("tirxc run: saxpy.tx: cannot launch its kernels: CuPy is not installed")
    assert "running on the CPU with `tirxc sim` instead" in done.stderr and "Traceback" not in done.stderr
    assert "saxpy: grid" in done.stdout


def test_run_without_a_gpu_or_numpy_exits_with_the_environment_status(tmp_path):
    done = _run(tmp_path, SAMPLES / "saxpy.tx", hide_cupy=True, hide_numpy=True)
    assert done.returncode == 4
    assert done.stderr.startswith("tirxc run: saxpy.tx: cannot launch its kernels: CuPy is not installed")
    assert "`tirxc sim`, the CPU fallback, needs NumPy" in done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


def test_run_without_a_gpu_runs_on_the_cpu_instead(tmp_path):
    pytest.importorskip("cupy")
    if _gpu_present():
        pytest.skip("this machine has a GPU")
    done = _run(tmp_path, SAMPLES / "saxpy.tx", "--size", "4096")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("tirxc run: saxpy.tx: cannot launch its kernels: ")
    assert "running on the CPU with `tirxc sim` instead" in done.stderr and "Traceback" not in done.stderr


def test_an_input_with_errors_is_still_status_1_without_a_gpu(tmp_path):
    bad = tmp_path / "bad.tx"
    bad.write_text("x = = 1\n")
    done = _run(tmp_path, bad, hide_cupy=True)
    assert done.returncode == 1 and "E0100" in done.stderr
