"""`tirxc migrate`: the rewrite to standard output or a file, `--check` for CI, its refusals."""
from __future__ import annotations

from pathlib import Path

import pytest

from transpiler.cli import main as cli

STEP = sorted((Path(__file__).parent / "course").glob("step*.tx"))[0]
CURRENT = "from tvm.script import tirx as T\n\n\n@T.prim_func\ndef k():\n    T.device_entry()\n    T.cta_id([1])\n"
MIXED = ("from tvm.script import tirx as T\n\n\n@T.prim_func\ndef k():\n    T.device_entry()\n"
         "    T.warp_id([4], parent=\"cta\")\n")


def migrate(capsys, *args) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as stop:
        cli.main(["migrate", *args])
    out, err = capsys.readouterr()
    return stop.value.code, out, err


def test_migrate_writes_todays_spelling(tmp_path, capsys):
    code, out, err = migrate(capsys, str(STEP))
    assert code == 0 and err == "" and "T.device_entry()" in out and "    with Tx.kernel():" not in out
    target = tmp_path / "new.tx"
    assert migrate(capsys, str(STEP), "-o", str(target))[0] == 0
    assert target.read_text(encoding="utf-8") == out


def test_check_exits_1_while_a_file_needs_migrating(tmp_path, capsys):
    current = tmp_path / "current.tx"
    current.write_text(CURRENT, encoding="utf-8")
    code, out, err = migrate(capsys, "--check", str(STEP), str(current))
    assert code == 1 and out == "" and f"{STEP.name}: needs migrating (read as the pre-upstream fork's" in err
    assert "current.tx" not in err
    assert migrate(capsys, "--check", str(current)) == (0, "", "")


def test_a_file_in_todays_spelling_migrates_to_itself(tmp_path, capsys):
    current = tmp_path / "current.tx"
    current.write_text(CURRENT, encoding="utf-8")
    assert migrate(capsys, str(current)) == (0, CURRENT, "")


def test_a_kernel_mixing_spellings_is_refused(tmp_path, capsys):
    mixed = tmp_path / "mixed.tx"
    mixed.write_text(MIXED, encoding="utf-8")
    code, out, err = migrate(capsys, str(mixed))
    assert code == 1 and out == "" and "error[E0210]" in err


@pytest.mark.parametrize("args", [("a.tx", "b.tx"), ("--check", "-o", "x.tx", "a.tx")])
def test_usage_errors(capsys, args):
    assert migrate(capsys, *args)[0] == 2


def test_migrate_refuses_to_overwrite_its_input(capsys):
    assert migrate(capsys, str(STEP), "-o", str(STEP))[0] == 2
