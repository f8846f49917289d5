"""The command-line contract: outputs, standard streams, exit codes, atomic
writes, colour, --explain / --version / --help, and the internal-error guard.

Runs the installed package as `python -m transpiler`, as a user would.
(`--emit launcher` / `--launcher` are tested with the launcher itself.)
"""
from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

import transpiler
from transpiler.cli import main as cli

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "smem_demo.tx"

BROKEN = ("from tvm.script import tirx as T\n"
          "\n"
          "x = = 1\n"
          "y = (1, 2]\n"
          "z = 2j\n")


def run(*args, stdin: bytes | None = None, env: dict | None = None, cwd=None, stderr=subprocess.PIPE):
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TIRXC_DEBUG")}
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "transpiler", *map(str, args)], input=stdin,
                          stdout=subprocess.PIPE, stderr=stderr, env=full_env, cwd=cwd, timeout=120)


def text(data: bytes) -> str:
    return data.decode("utf-8")


@pytest.fixture
def broken(tmp_path) -> Path:
    path = tmp_path / "broken.tx"
    path.write_text(BROKEN)
    return path


# ---- outputs -----------------------------------------------------------------------------

def test_cuda_to_stdout_by_default():
    result = run(SAMPLE)
    assert result.returncode == 0, text(result.stderr)
    out = text(result.stdout)
    assert "__global__" in out and "__syncthreads();" in out and "smem_demo_kernel" in out
    assert result.stderr == b""


def test_output_file_and_dash_for_stdout(tmp_path):
    target = tmp_path / "smem.cu"
    result = run(SAMPLE, "-o", target)
    assert result.returncode == 0 and result.stdout == b""
    assert target.read_bytes() == run(SAMPLE).stdout == run(SAMPLE, "-o", "-").stdout
    assert run(SAMPLE, "--output", tmp_path / "long.cu").returncode == 0
    assert (tmp_path / "long.cu").read_bytes() == target.read_bytes()


def test_dash_reads_standard_input(tmp_path):
    result = run("-", stdin=SAMPLE.read_bytes())
    assert result.returncode == 0
    # Identical but for the header line, which names the input.
    from_stdin, from_file = text(result.stdout).split("\n", 1), text(run(SAMPLE).stdout).split("\n", 1)
    assert from_stdin[1] == from_file[1] and "__global__" in from_stdin[1]
    assert "<stdin>" in from_stdin[0]
    bad = run("-", stdin=b"x = = 1\n")
    assert bad.returncode == 1
    assert text(bad.stderr).startswith("<stdin>:1:5: error[E0100]: unexpected '='")


def test_emit_ast():
    result = run(SAMPLE, "--emit", "ast")
    assert result.returncode == 0
    out = text(result.stdout)
    assert out.startswith("Module @1:1-")
    assert "FunctionDef @13:1-23:36 name='smem_demo'" in out
    assert "Attribute @20:10-20:24 attr='alloc_shared'" in out  # `T.alloc_shared` on line 20


def test_emit_ast_to_a_file(tmp_path):
    target = tmp_path / "tree.txt"
    assert run(SAMPLE, "--emit", "ast", "-o", target).returncode == 0
    assert target.read_text() == text(run(SAMPLE, "--emit", "ast").stdout)


def test_check_writes_nothing(tmp_path):
    result = run(SAMPLE, "--check", "-o", tmp_path / "x.cu")
    assert (result.returncode, result.stdout, result.stderr) == (0, b"", b"")
    assert not (tmp_path / "x.cu").exists()


def test_arch_is_validated():
    assert run(SAMPLE, "--arch", "sm_90a", "--check").returncode == 0
    result = run(SAMPLE, "--arch", "pentium", "--check")
    assert result.returncode == 2
    assert "unknown architecture 'pentium'" in text(result.stderr)


# ---- errors and exit codes ---------------------------------------------------------------------

def test_input_errors_exit_1_with_every_diagnostic_in_order(broken):
    result = run(broken)
    assert result.returncode == 1
    assert result.stdout == b""
    err = text(result.stderr)
    heads = re.findall(r"^(\S+?):(\d+):(\d+): error\[(E\d{4})\]", err, flags=re.M)
    assert [(int(line), int(col), code) for _, line, col, code in heads] == [
        (3, 5, "E0100"), (4, 10, "E0104"), (5, 5, "E0109")]
    assert all(path == str(broken) for path, *_ in heads)
    assert err.rstrip().endswith("3 errors generated")
    assert "Traceback" not in err


def test_diagnostic_layout(tmp_path):
    path = tmp_path / "k.tx"
    path.write_text("x = 1\nif x = 1:\n    pass\n")
    result = run(path)
    assert text(result.stderr) == (
        f"{path}:2:6: error[E0100]: unexpected '=': assignment is a statement, not part of an expression\n"
        "  |\n"
        "2 | if x = 1:\n"
        "  |      ^\n"
        "  = help: did you mean `==`?\n"
        "\n"
        f"{path}: 1 error generated\n")


@pytest.mark.parametrize("args, message", [
    (["--no-such-flag", SAMPLE], "No such option"),
    (["/no/such/file.tx"], "no such file"),
    ([], "missing KERNEL.tx"),
    ([SAMPLE, "--emit", "pdf"], "Invalid value for '--emit'"),
    (["--explain", "E9999"], "unknown diagnostic code"),
    ([SAMPLE, "-o"], "requires an argument"),
])
def test_usage_errors_exit_2(args, message):
    result = run(*args)
    assert result.returncode == 2
    assert message in text(result.stderr)
    assert result.stdout == b""


def test_directory_as_input_is_a_usage_error(tmp_path):
    result = run(tmp_path)
    assert result.returncode == 2 and "is a directory" in text(result.stderr)


def test_unreadable_input_is_a_usage_error(tmp_path):
    path = tmp_path / "secret.tx"
    path.write_text("x = 1\n")
    path.chmod(0)
    if os.access(path, os.R_OK):
        pytest.skip("running as a user who can read anything")
    result = run(path)
    assert result.returncode == 2 and "cannot read" in text(result.stderr)


def test_unwritable_output_is_a_usage_error(tmp_path):
    result = run(SAMPLE, "-o", tmp_path / "no" / "such" / "dir" / "x.cu")
    assert result.returncode == 2
    assert "cannot write" in text(result.stderr)


def test_refuses_to_overwrite_its_input(tmp_path):
    path = tmp_path / "k.tx"
    path.write_bytes(SAMPLE.read_bytes())
    result = run(path, "-o", path)
    assert result.returncode == 2 and "refusing to overwrite the input" in text(result.stderr)
    assert path.read_bytes() == SAMPLE.read_bytes()


# ---- atomic output ----------------------------------------------------------------------------

def test_no_output_file_on_error(broken, tmp_path):
    target = tmp_path / "out.cu"
    assert run(broken, "-o", target).returncode == 1
    assert not target.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.tx"]  # no temporary left behind


def test_existing_output_untouched_on_error(broken, tmp_path):
    target = tmp_path / "out.cu"
    target.write_text("// the previous, good output\n")
    before = target.stat()
    assert run(broken, "-o", target).returncode == 1
    assert target.read_text() == "// the previous, good output\n"
    assert target.stat().st_mtime_ns == before.st_mtime_ns and target.stat().st_ino == before.st_ino
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.tx", "out.cu"]


def test_existing_output_replaced_whole_on_success(tmp_path):
    target = tmp_path / "out.cu"
    target.write_text("x" * 100000)
    assert run(SAMPLE, "-o", target).returncode == 0
    assert target.read_bytes() == run(SAMPLE).stdout
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.cu"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_output_is_written_in_place_not_replaced(tmp_path):
    # The atomic rename would turn a FIFO or device (`-o /dev/null` as root) into a
    # plain file; special files are written through instead.
    import stat
    import threading

    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    result = run(SAMPLE, "-o", fifo)
    reader.join(timeout=60)
    assert result.returncode == 0, text(result.stderr)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert received == [run(SAMPLE).stdout]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.fifo"]


# ---- colour ----------------------------------------------------------------------------------

def _stderr_on_a_terminal(path: Path, env: dict) -> str:
    """Run with stderr on a pseudo-terminal; returns what it printed there."""
    master, slave = pty.openpty()
    try:
        result = run(path, env=env, stderr=slave)
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the other side is closed and drained
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(master)
    assert result.returncode == 1
    return b"".join(chunks).decode("utf-8")


def test_colour_on_a_terminal(broken):
    err = _stderr_on_a_terminal(broken, {})
    assert "\x1b[" in err
    assert "\x1b[1;31merror[E0100]\x1b[0m" in err


@pytest.mark.parametrize("value", ["1", "0", "yes"])
def test_no_colour_when_no_color_is_set(broken, value):
    err = _stderr_on_a_terminal(broken, {"NO_COLOR": value})
    assert "\x1b[" not in err
    assert "error[E0100]" in err


def test_no_colour_when_not_a_terminal(broken):
    assert b"\x1b[" not in run(broken).stderr


# ---- --explain, --version, --help -----------------------------------------------------------------

def test_explain_prints_the_codes_paragraph():
    result = run("--explain", "E0109")
    assert result.returncode == 0
    out = text(result.stdout)
    assert out.startswith("E0109: construct not supported in a kernel file\n\n")
    assert "(`try`, `global`, `yield`, `import *`" in out
    assert run("--explain", "e0109").stdout == result.stdout  # case does not matter
    assert "more than 100 syntax errors" not in text(run("--explain", "E0112").stdout)
    assert "stops reading a file after 100 syntax errors" in text(run("--explain", "E0112").stdout)


def test_version():
    result = run("--version")
    assert (result.returncode, text(result.stdout)) == (0, f"tirxc {transpiler.__version__}\n")


def test_help_has_usage_options_and_examples():
    result = run("--help")
    assert result.returncode == 0
    out = text(result.stdout)
    for fragment in ("Usage: tirxc [OPTIONS] KERNEL.tx", "   or: tirxc COMMAND [ARGS]...",
                     "--emit [cuda|launcher|header|ast]", "--check", "--arch",
                     "--explain CODE", "--version", "Examples:", "tirxc kernel.tx -o kernel.cu",
                     "tirxc - -o kernel.cu", "Exit status: 0 success, 1 the input has errors, 2 usage error"):
        assert fragment in out, fragment
    commands = out.split("\nCommands:\n", 1)[1].split("\n\n", 1)[0]
    assert [line.split()[0] for line in commands.splitlines()] == ["run", "sim", "info", "layout", "migrate"]
    assert run("-h").stdout == result.stdout


# ---- commands ------------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["run", "info", "layout", "migrate"])
def test_a_command_has_its_own_usage_and_help(command):
    result = run(command, "--no-such-flag")
    assert result.returncode == 2 and result.stdout == b""
    assert text(result.stderr).startswith(f"Usage: tirxc {command} [OPTIONS] ")
    assert f"Try 'tirxc {command} " in text(result.stderr)
    shown = run(command, "--help")
    assert shown.returncode == 0 and text(shown.stdout).startswith(f"Usage: tirxc {command} [OPTIONS] ")


@pytest.mark.parametrize("args", [["./run"], ["--", "run"], ["--check", "run"]])
def test_a_kernel_file_named_like_a_command(tmp_path, args):
    """Only a first word that names a command runs it; `./run`, `-- run` or any
    option first compile the file."""
    (tmp_path / "run").write_bytes(SAMPLE.read_bytes())
    result = run(*args, cwd=tmp_path)
    assert result.returncode == 0, text(result.stderr)
    assert result.stdout == (b"" if "--check" in args else run(SAMPLE).stdout.replace(b"smem_demo.tx", b"run", 1))


def test_the_commands_options_are_not_the_compilers():
    assert run("info", SAMPLE, "-o", "x.cu").returncode == 2  # `-o` is the compile command's
    assert run(SAMPLE, "--json").returncode == 2  # `--json` is info's


# ---- the last-resort guard -----------------------------------------------------------------------

def test_internal_error_is_one_line_and_exit_3(monkeypatch, capsys):
    import transpiler.driver

    def explode(*args, **kwargs):
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(transpiler.driver, "compile_file", explode)
    monkeypatch.delenv("TIRXC_DEBUG", raising=False)
    with pytest.raises(SystemExit) as exit_info:
        cli.main([str(SAMPLE)])
    assert exit_info.value.code == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith("tirxc: internal error: RuntimeError: boom second line")
    assert "Traceback" not in err


def test_internal_error_traceback_on_request(monkeypatch, capsys):
    import transpiler.driver

    monkeypatch.setattr(transpiler.driver, "compile_file", lambda *a, **k: 1 / 0)
    monkeypatch.setenv("TIRXC_DEBUG", "1")
    with pytest.raises(SystemExit) as exit_info:
        cli.main([str(SAMPLE)])
    assert exit_info.value.code == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and "tirxc: internal error: ZeroDivisionError" in err


def test_usage_errors_do_not_reach_the_guard(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--no-such-flag"])
    assert exit_info.value.code == 2
    assert "internal error" not in capsys.readouterr().err


def test_output_file_gets_ordinary_permissions(tmp_path):
    mask = os.umask(0o022)
    try:
        target = tmp_path / "new.cu"
        assert run(SAMPLE, "-o", target).returncode == 0
        assert target.stat().st_mode & 0o777 == 0o644  # not the 0600 of a temporary file
        existing = tmp_path / "existing.cu"
        existing.write_text("old\n")
        existing.chmod(0o640)
        assert run(SAMPLE, "-o", existing).returncode == 0
        assert existing.stat().st_mode & 0o777 == 0o640  # a replaced file keeps its mode
    finally:
        os.umask(mask)


def test_closed_standard_input_is_a_usage_error():
    result = subprocess.run([sys.executable, "-m", "transpiler", "-"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    # An empty standard input is an empty file: no kernels, a warning, success.
    assert result.returncode == 0 and b"W0001" in result.stderr
    closed = subprocess.run([sys.executable, "-c", "import sys, os; os.close(0); sys.stdin = None; "
                             "from transpiler.cli.main import main; main(['-'])"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    assert closed.returncode == 2 and b"cannot read standard input" in closed.stderr
