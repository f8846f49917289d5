"""`tirxc run` without a GPU: a plain note, then the same run on the CPU under `tirxc sim`
(docs/sim.md), never a traceback; an input with errors is status 1."""
from __future__ import annotations

import subprocess
import sys

from tests.conftest import SAMPLES


def test_run_without_gpu_says_so():
    proc = subprocess.run([sys.executable, "-m", "transpiler", "run", str(SAMPLES / "saxpy.tx"), "--repeat", "2"],
                          capture_output=True, text=True)
    try:
        import cupy
        has_gpu = cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        has_gpu = False
    if has_gpu:
        assert proc.returncode == 0 and "saxpy: grid (4096, 1, 1)" in proc.stdout
        return
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("tirxc run: saxpy.tx: cannot launch its kernels: ")
    assert "running on the CPU with `tirxc sim` instead" in proc.stderr
    assert proc.returncode == 0 and "saxpy: grid (4096, 1, 1)" in proc.stdout


def test_run_reports_input_errors_with_status_1(tmp_path):
    bad = tmp_path / "bad.tx"
    bad.write_text("x = \n")
    proc = subprocess.run([sys.executable, "-m", "transpiler", "run", str(bad)], capture_output=True, text=True)
    assert proc.returncode == 1 and "bad.tx:1:" in proc.stderr


def test_run_usage_errors_exit_2():
    proc = subprocess.run([sys.executable, "-m", "transpiler", "run", "--repeat", "0", str(SAMPLES / "saxpy.tx")],
                          capture_output=True, text=True)
    assert proc.returncode == 2
