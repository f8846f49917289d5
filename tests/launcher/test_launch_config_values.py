"""`T.cuda.LaunchConfig(grid=..., block=..., cluster=...)` given a value that is no extent list (a
float, None, an empty list, a string, a nested list) is a located error of the file, never an
internal error of tirxc: the `tirxc` command exits 1 (bad input) and names the line and column."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.hostile._util import errors

KERNEL = '''from tvm.script import tirx as T


@T.prim_func
def k(A: T.Buffer((8,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig({config}))
    A[0] = 1.0
'''
BAD = ["1.5", "None", "[]", '"ab"', "[[1]]", "{}", "[1.5]", "(None,)", "[1, 2, 3, 4]"]


@pytest.mark.parametrize("field", ["grid", "block", "cluster"])
@pytest.mark.parametrize("value", BAD)
def test_a_launch_config_field_that_is_no_extent_list_is_a_located_error(field, value):
    config = {"grid": "grid=[1]", "block": "block=[8]", "cluster": ""}
    config[field] = f"{field}={value}"
    found = errors(KERNEL.format(config=", ".join(c for c in config.values() if c)))
    assert found and all(line == 6 for line, _, _ in found), found
    assert all(code.startswith("E0") for _, code, _ in found), found


@pytest.mark.parametrize("value", ["1.5", "None", "[]", '"ab"'])
def test_the_command_exits_1_naming_the_grid(tmp_path, value):
    path = tmp_path / "k.tx"
    path.write_text(KERNEL.format(config=f"grid={value}, block=[8]"))
    run = subprocess.run([sys.executable, "-m", "transpiler", str(path), "-o", str(tmp_path / "k.cu")],
                         capture_output=True, text=True)
    assert run.returncode == 1, run.stderr
    assert "k.tx:6:" in run.stderr and "please report this bug" not in run.stderr
