"""The environment is a build input, and private: a file reads one variable by name; it cannot
enumerate the environment; no diagnostic prints a value read from it; every name read is listed
in the `.cu` header and by `tirxc info --json`; `--no-env` makes every read see nothing."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from transpiler.cli.main import tirxc as cli
from transpiler.driver import compile_file

from ._util import errors

HEAD = "from tvm.script import tirx as T\nimport os\n"
KERNEL = """
@T.prim_func
def k(out_ptr: T.handle):
    out = T.match_buffer(out_ptr, (4,), "int64")
    T.device_entry()
    out[0] = M
    out[1] = N
    out[2] = X
"""
READS = HEAD + 'M = int(os.environ.get("TIRXC_T_M", "8192"))\nN = int(os.getenv("TIRXC_T_N", "4"))\n' \
               'X = "TIRXC_T_X" in os.environ\n' + KERNEL
SECRET = "s3cr3t-value"


@pytest.fixture()
def environment(monkeypatch):
    monkeypatch.setenv("TIRXC_T_M", "4096")
    monkeypatch.setenv("TIRXC_T_SECRET", SECRET)


@pytest.mark.parametrize("expression", [
    "os.environ.items()", "os.environ.keys()", "os.environ.values()", "len(os.environ)", "dict(os.environ)",
    "str(os.environ)", "[k for k in os.environ]", "list(os.environ)", "{**os.environ}", "f'{os.environ}'",
    "sorted(os.environ)", "os.environ.copy()",
])
def test_enumerating_the_environment_is_refused_by_name(environment, expression):
    found = errors(HEAD + f"B = {expression}\n")
    assert [code for _, code, _ in found] == ["E0344"]
    assert "os.environ" in found[0][2] and SECRET not in found[0][2]


@pytest.mark.parametrize("expression", ['int(os.environ["TIRXC_T_SECRET"])', 'float(os.getenv("TIRXC_T_SECRET"))',
                                        '{1: 2}[os.environ["TIRXC_T_SECRET"]]'])
def test_a_failure_over_a_value_names_the_variable_not_the_value(environment, expression):
    result = compile_file("env.tx", (HEAD + f"B = {expression}\n").encode())
    messages = [d.message + (d.help or "") for d in result.diagnostics]
    assert messages and all(SECRET not in m for m in messages)
    assert any("`TIRXC_T_SECRET`" in m for m in messages)


def test_an_unset_variable_read_by_subscript_is_named():
    found = errors(HEAD + 'B = os.environ["TIRXC_T_UNSET"]\n')
    assert [(code, message) for _, code, message in found] == [("E0344", "environment variable `TIRXC_T_UNSET` is not set")]


def test_the_names_read_are_in_the_header_and_in_info(environment, tmp_path):
    result = compile_file("env.tx", READS.encode())
    assert result.ok
    assert "// Environment variables read: TIRXC_T_M, TIRXC_T_N, TIRXC_T_X\n" in result.cuda
    assert "out_ptr[0] = 4096LL;" in result.cuda
    assert result.program.environment_reads == ["TIRXC_T_M", "TIRXC_T_N", "TIRXC_T_X"]
    path = tmp_path / "env.tx"
    path.write_text(READS)
    out = CliRunner().invoke(cli, ["info", "--json", str(path)])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["environment"] == ["TIRXC_T_M", "TIRXC_T_N", "TIRXC_T_X"]


def test_a_file_that_reads_nothing_has_no_environment_line():
    result = compile_file("plain.tx", (HEAD + "M = N = X = 1\n" + KERNEL).encode())
    assert result.ok and "Environment" not in result.cuda


def test_no_env_reads_an_empty_environment(environment, tmp_path):
    path = tmp_path / "env.tx"
    path.write_text(READS)
    out = CliRunner().invoke(cli, ["--no-env", str(path), "-o", "-"])
    assert out.exit_code == 0, out.output
    assert "out_ptr[0] = 8192LL;" in out.output
    assert "// Environment variables read: TIRXC_T_M, TIRXC_T_N, TIRXC_T_X" in out.output
