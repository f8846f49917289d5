"""`tirxc run` on a machine that cannot run kernels (no CuPy, no GPU or driver) exits with 4, the
status of an environment problem (docs/ci-guide.md), with one line saying why; 1 stays the status
of an input with errors, which is reported before the GPU is looked for."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import SAMPLES
from tests.runtime.test_launch_without_a_gpu import _gpu_present


def _run(tmp_path, *args, hide_cupy=False):
    env = dict(os.environ, TIRXC_CACHE=str(tmp_path / "cache"))
    if hide_cupy:
        hidden = tmp_path / "no_cupy"
        (hidden / "cupy").mkdir(parents=True)
        (hidden / "cupy" / "__init__.py").write_text("raise ImportError('No module named cupy')\n")
        env["PYTHONPATH"] = f"{hidden}{os.pathsep}{env.get('PYTHONPATH', '')}"
    return subprocess.run([sys.executable, "-m", "transpiler", "run", *map(str, args)], capture_output=True,
                          text=True, timeout=120, env=env)


def test_run_without_cupy_exits_with_the_environment_status(tmp_path):
    done = _run(tmp_path, SAMPLES / "saxpy.tx", hide_cupy=True)
    assert done.returncode == 4
    assert done.stderr.startswith("tirxc run: saxpy.tx: cannot launch its kernels: CuPy is not installed")
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


def test_run_without_a_gpu_exits_with_the_environment_status(tmp_path):
    pytest.importorskip("cupy")
    if _gpu_present():
        pytest.skip("this machine has a GPU")
    done = _run(tmp_path, SAMPLES / "saxpy.tx")
    assert done.returncode == 4
    assert done.stderr.startswith("tirxc run: saxpy.tx: cannot launch its kernels: ")
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1


def test_an_input_with_errors_is_still_status_1_without_a_gpu(tmp_path):
    bad = tmp_path / "bad.tx"
    bad.write_text("x = = 1\n")
    done = _run(tmp_path, bad, hide_cupy=True)
    assert done.returncode == 1 and "E0100" in done.stderr
