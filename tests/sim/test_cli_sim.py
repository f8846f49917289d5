"""`tirxc sim` on the command line: inputs by parameter name from an .npz, random ones as
`tirxc run` makes them, every buffer the kernel writes in the --output .npz, exit status 1 with
a located diagnostic for what the simulator cannot run yet."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

from tests.conftest import ROOT, SAMPLES


def tirxc(*args, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "transpiler", *map(str, args)], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=300)


def test_inputs_by_name_and_every_written_buffer_in_the_output(tmp_path):
    x = np.arange(1000, dtype=np.float32)
    y = np.ones(1000, dtype=np.float32)
    np.savez(tmp_path / "in.npz", x=x, y=y, a=np.float32(3.0))
    done = tirxc("sim", SAMPLES / "saxpy.tx", "--inputs", tmp_path / "in.npz", "--output", tmp_path / "out.npz")
    assert done.returncode == 0, done.stderr
    with np.load(tmp_path / "out.npz") as out:
        assert out.files == ["y"]  # x is read-only: only what the kernel may write
        assert np.array_equal(out["y"], np.float32(3.0) * x + y)


def test_missing_inputs_are_random_and_extents_take_size(tmp_path):
    done = tirxc("sim", SAMPLES / "saxpy.tx", "--size", "300", "--seed", "4", "--output", tmp_path / "out.npz")
    assert done.returncode == 0, done.stderr
    assert "saxpy: grid (2, 1, 1) block (256, 1, 1)" in done.stdout
    with np.load(tmp_path / "out.npz") as out:
        assert out["y"].shape == (300,)


def test_several_kernels_name_their_outputs_kernel_dot_param(tmp_path):
    done = tirxc("sim", SAMPLES / "warp_reduce.tx", "--output", tmp_path / "out.npz")
    assert done.returncode == 0, done.stderr
    with np.load(tmp_path / "out.npz") as out:
        assert sorted(out.files) == ["warp_reduce_down.B", "warp_reduce_xor.B"]


def test_a_refused_launch_exits_1_with_the_launchers_message(tmp_path):
    np.savez(tmp_path / "in.npz", x=np.zeros(10, np.float32), y=np.zeros(11, np.float32))
    done = tirxc("sim", SAMPLES / "saxpy.tx", "--inputs", tmp_path / "in.npz")
    assert done.returncode == 1
    assert done.stderr.startswith("tirxc sim: saxpy(): ")


def test_what_the_simulator_cannot_run_is_a_located_error(tmp_path):
    kernel = ROOT / "tests" / "sim" / "tcgen05" / "shift_refused.tx"
    line = next(n for n, text in enumerate(kernel.read_text().splitlines(), 1) if "T.ptx[\"tcgen05.shift" in text)
    done = tirxc("sim", kernel, "--arch", "sm_100a")
    assert done.returncode == 1
    assert f"shift_refused.tx:{line}:9: error[E0810]: not supported yet by tirxc sim: tcgen05.shift" in done.stderr


def test_a_runtime_error_exits_1_naming_block_and_thread(tmp_path):
    done = tirxc("sim", ROOT / "tests" / "sim" / "kernels" / "broken.tx", "--kernel", "deadlock")
    assert done.returncode == 1
    assert "deadlock: no thread can go on" in done.stderr


def test_a_scalar_no_kernel_takes_is_a_usage_error():
    done = tirxc("sim", SAMPLES / "saxpy.tx", "--scalar", "zz=3")
    assert done.returncode == 2 and "--scalar zz: no parameter of that name in saxpy(a, x, y)" in done.stderr


def test_without_numpy_sim_says_what_is_missing_and_exits_4(tmp_path):
    """NumPy is the `[sim]` extra: without it, one line naming it and the environment's exit status,
    not an internal error (a `numpy` package that fails to import stands in for a missing one)."""
    (tmp_path / "numpy").mkdir()
    (tmp_path / "numpy" / "__init__.py").write_text("raise ImportError('no numpy here')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    done = subprocess.run([sys.executable, "-m", "transpiler", "sim", str(SAMPLES / "saxpy.tx")], capture_output=True,
                          text=True, env=env, timeout=300)
    assert done.returncode == 4 and "NumPy is not installed" in done.stderr and "internal error" not in done.stderr
