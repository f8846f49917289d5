"""What keeps a small `tirxc` process short (docs/benchmarks.md) without
changing what it does: the plain command line read without click, the
process ended without the interpreter's teardown, C names allocated without
re-probing, expressions compared by value through shared methods."""
from __future__ import annotations

import dataclasses
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from transpiler.cli import main as cli

from transpiler import ir
from transpiler.target.dtypes import FLOAT32, INT32
from transpiler.sema.kernel import CNames

ROOT = Path(__file__).resolve().parent.parent.parent
SAXPY = ROOT / "samples" / "saxpy.tx"


def _python(code: str, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, input=stdin,
                          cwd=ROOT)


# ---- the plain command line -------------------------------------------------------------------

PLAIN = [
    ["k.tx"],
    ["k.tx", "-o", "k.cu"],
    ["-o", "k.cu", "k.tx"],
    ["k.tx", "--output", "k.cu", "--launcher", "k.py"],
    ["k.tx", "--emit", "launcher", "-o", "-"],
    ["k.tx", "--emit", "ast"],
    ["k.tx", "--check", "--arch", "sm_90a"],
    ["k.tx", "--line-info", "-o", "a.cu", "-o", "b.cu"],  # a later option wins
    ["-", "-o", "k.cu"],
    ["--check", "--check", "k.tx"],
]
NOT_PLAIN = [
    [], ["-h"], ["--help"], ["--version"], ["--explain", "E0100"], ["k.tx", "--output=k.cu"], ["k.tx", "-ok.cu"],
    ["k.tx", "-o"], ["k.tx", "-o", "--check"], ["k.tx", "j.tx"], ["k.tx", "--emit", "ptx"], ["k.tx", "--"],
    ["--no-such-flag", "k.tx"], ["k.tx", "-o", ""], ["-x.tx"], ["k.tx", "--arch"],
]


@pytest.mark.parametrize("args", PLAIN, ids=" ".join)
def test_plain_command_lines_mean_what_click_reads(args):
    options = cli._plain_options(list(args))
    assert options is not None
    params = cli._click_command().make_context("tirxc", list(args)).params
    expected = {name: value for name, value in params.items()
                if name != "explain_code" and value not in (None, False) and not (name == "emit" and value == "cuda")}
    shown = {name: value for name, value in options.items() if not (name == "emit" and value == "cuda")}
    assert shown == expected


@pytest.mark.parametrize("args", NOT_PLAIN, ids=lambda a: " ".join(a) or "(none)")
def test_everything_else_goes_to_click(args):
    assert cli._plain_options(list(args)) is None


def test_a_plain_compile_does_not_import_click(tmp_path):
    code = ("import sys; from transpiler.cli import main as cli\n"
            "try:\n    cli.main(sys.argv[1:])\nexcept SystemExit as e:\n    code = e.code\n"
            "print(code, 'click' in sys.modules, 'tempfile' in sys.modules)")
    out = _python(code, str(SAXPY), "-o", str(tmp_path / "s.cu"))
    assert out.stdout.decode().split() == ["0", "False", "False"], out.stderr.decode()
    assert (tmp_path / "s.cu").read_text() == (ROOT / "tests" / "golden" / "saxpy.cu").read_text()


@pytest.mark.parametrize("problem", ["missing input", "unwritable output", "bad arch", "input as output"])
def test_usage_errors_read_as_click_writes_them(problem, tmp_path):
    """The same error through the plain path (`-o X`) and through click (`--output=X`)."""
    target = {"missing input": (str(tmp_path / "none.tx"), str(tmp_path / "o.cu")),
              "unwritable output": (str(SAXPY), str(tmp_path / "no" / "such" / "dir" / "o.cu")),
              "bad arch": (str(SAXPY), str(tmp_path / "o.cu")),
              "input as output": (str(SAXPY), str(SAXPY))}[problem]
    extra = ["--arch", "sm_7"] if problem == "bad arch" else []
    runs = []
    for output in (["-o", target[1]], [f"--output={target[1]}"]):
        args = [target[0], *output, *extra]
        assert (cli._plain_options(args) is None) == output[0].startswith("--output=")
        runs.append(_python("from transpiler.cli.main import main; main()", *args))
    plain, through_click = runs
    assert plain.returncode == through_click.returncode == 2
    assert plain.stderr == through_click.stderr
    assert plain.stderr.decode().startswith("Usage: tirxc [OPTIONS] KERNEL.tx")


# ---- ending the process -------------------------------------------------------------------------

def test_the_program_flushes_its_output_before_ending_the_process():
    out = subprocess.run([sys.executable, "-m", "transpiler", str(SAXPY)], capture_output=True, cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.returncode == 0
    assert out.stdout.decode() == (ROOT / "tests" / "golden" / "saxpy.cu").read_text()


def test_the_program_keeps_its_exit_codes(tmp_path):
    broken = tmp_path / "broken.tx"
    broken.write_text("x = = 1\n")
    out = subprocess.run([sys.executable, "-m", "transpiler", str(broken)], capture_output=True, cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.returncode == 1 and b"broken.tx:1:" in out.stderr and out.stdout == b""


def test_in_process_callers_get_system_exit(tmp_path):
    with pytest.raises(SystemExit) as exit_:
        cli.main([str(SAXPY), "-o", str(tmp_path / "s.cu")])
    assert exit_.value.code == 0


# ---- C names ---------------------------------------------------------------------------------------

def _first_free(taken: set[str], name: str) -> str:
    """The allocation CNames replaces: probe name, name_1, name_2 ... from the start."""
    candidate, n = name, 1
    while candidate in taken:
        candidate = f"{name}_{n}"
        n += 1
    return candidate


def test_c_names_are_the_first_free_ones_in_any_order_of_use():
    rng = random.Random(7)
    names, taken = CNames(), set()
    for _ in range(3000):
        if taken and rng.random() < 0.1:
            freed = rng.choice(sorted(taken))
            names.discard(freed)
            taken.discard(freed)
            continue
        base = rng.choice(["i", "k", "acc", "i_1", "k_2", "tmp"])
        expected = _first_free(taken, base)
        assert names.fresh(base) == expected
        taken.add(expected)
        assert all((name in names) == (name in taken) for name in (base, expected, f"{base}_1"))


def test_many_loops_over_one_name_do_not_reprobe():
    names = CNames()
    assert [names.fresh("i") for _ in range(4)] == ["i", "i_1", "i_2", "i_3"]
    assert names.next_suffix["i"] == 4  # the next call starts at i_4, not at i


# ---- expressions ------------------------------------------------------------------------------------

def test_expressions_compare_hash_and_print_as_dataclasses_would():
    x = ir.Var(INT32, "x")
    a = ir.BinOp(INT32, "+", x, ir.IntImm(INT32, 1))
    b = ir.BinOp(INT32, "+", ir.Var(INT32, "x", ir.Span("k.tx", 3, 1, 3, 2)), ir.IntImm(INT32, 1))
    assert a == b and hash(a) == hash(b)  # spans do not count
    assert a != ir.BinOp(INT32, "-", x, ir.IntImm(INT32, 1)) and a != ir.IntImm(INT32, 1) and a != "x + 1"
    assert ir.IntImm(INT32, 1) != ir.FloatImm(FLOAT32, 1.0)
    assert {a: "a"}[b] == "a"
    twin = dataclasses.make_dataclass("IntImm", [("dtype", object), ("value", int)], frozen=True)
    assert repr(ir.IntImm(INT32, 3)) == repr(twin(INT32, 3))
    nan = float("nan")
    assert ir.FloatImm(FLOAT32, nan) == ir.FloatImm(FLOAT32, nan)  # the same object: equal, as in a tuple
