"""What keeps a small `tirxc` process short (docs/benchmarks.md) without
changing what it does: a compile imports no command it does not run, the
process ends without the interpreter's teardown, C names are allocated
without re-probing, expressions compare by value through shared methods.

Every command line is click's (docs/design.md, decision 23), so click is
imported by every run; that cost is accepted."""
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
from transpiler.sema.state import CNames

ROOT = Path(__file__).resolve().parent.parent.parent
SAXPY = ROOT / "samples" / "saxpy.tx"


def _python(code: str, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, input=stdin,
                          cwd=ROOT)


# ---- the compile command line -------------------------------------------------------------------

def test_a_compile_imports_no_other_command(tmp_path):
    code = ("import sys; from transpiler.cli import main as cli\n"
            "try:\n    cli.main(sys.argv[1:])\nexcept SystemExit as e:\n    code = e.code\n"
            "print(code, *sorted(m for m in sys.modules if m.startswith('transpiler.cli.') or m == 'lark'))")
    out = _python(code, str(SAXPY), "-o", str(tmp_path / "s.cu"))
    assert out.stdout.decode().split() == ["0", "transpiler.cli.files", "transpiler.cli.main"], out.stderr.decode()
    assert (tmp_path / "s.cu").read_text() == (ROOT / "tests" / "golden" / "saxpy.cu").read_text()


@pytest.mark.parametrize("problem", ["missing input", "unwritable output", "bad arch", "input as output"])
def test_usage_errors_read_the_same_whatever_the_option_spelling(problem, tmp_path):
    """The same error after `-o X` and after `--output=X`, with the compile command's usage line."""
    target = {"missing input": (str(tmp_path / "none.tx"), str(tmp_path / "o.cu")),
              "unwritable output": (str(SAXPY), str(tmp_path / "no" / "such" / "dir" / "o.cu")),
              "bad arch": (str(SAXPY), str(tmp_path / "o.cu")),
              "input as output": (str(SAXPY), str(SAXPY))}[problem]
    extra = ["--arch", "sm_7"] if problem == "bad arch" else []
    runs = []
    for output in (["-o", target[1]], [f"--output={target[1]}"]):
        args = [target[0], *output, *extra]
        runs.append(_python("from transpiler.cli.main import main; main()", *args))
    short, long = runs
    assert short.returncode == long.returncode == 2
    assert short.stderr == long.stderr
    assert short.stderr.decode().startswith("Usage: tirxc [OPTIONS] KERNEL.tx\nTry 'tirxc --help' for help.")


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


def test_in_process_callers_keep_their_process_settings(tmp_path):
    """cli.main pauses the cyclic collector and handles signals for the run only."""
    import gc
    import signal

    handler = signal.getsignal(signal.SIGTERM)
    assert gc.isenabled()
    for args in ([str(SAXPY), "-o", str(tmp_path / "s.cu")], ["--no-such-flag"], ["info", str(SAXPY)]):
        with pytest.raises(SystemExit):
            cli.main(args)
        assert gc.isenabled() and signal.getsignal(signal.SIGTERM) is handler


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


# ---- what a compile loads -------------------------------------------------------------------------

_LOADED = """import sys
from transpiler.cli import main as cli
from transpiler.codegen.jinja import environment
from transpiler.target import ptx

def loaded():
    modules = [m for m in sys.modules if m.startswith(("transpiler.tile.", "transpiler.codegen.host_cpp"))]
    templates = sorted(key[1] for key in environment().cache.keys())
    return len(modules), any(m.startswith("transpiler.tile.") for m in modules), \\
        "transpiler.codegen.host_cpp" in modules, ptx._compiled.cache_info().currsize, templates

for path in sys.argv[1:]:
    try:
        cli.main([path, "-o", "/dev/null"])
    except SystemExit as exit_:
        assert exit_.code == 0, path
    print(*loaded())
"""


def test_a_compile_loads_only_what_its_file_uses():
    """An import graph, not a timing: a file without tile primitives or PTX instructions (saxpy)
    imports no tile family, compiles no PTX pattern and loads only the .cu template (the
    launcher's and the C++ header's when they are written); one with tile primitives (rmsnorm_tx)
    imports the tile stage."""
    out = _python(_LOADED, str(SAXPY), str(ROOT / "samples" / "rmsnorm_tx.tx"))
    assert out.returncode == 0, out.stderr.decode()
    saxpy, rmsnorm = out.stdout.decode().splitlines()
    assert saxpy == "0 False False 0 ['kernel.cu.j2']"
    assert rmsnorm.split()[1:3] == ["True", "False"]


_IMPORTED = """import sys
from transpiler.cli import main as cli
try:
    cli.main(sys.argv[1:])
except SystemExit as exit_:
    assert exit_.code == 0
print(*sorted(m for m in sys.modules if m.startswith(("transpiler.", "jinja2", "lark"))))
"""

# What a compile of saxpy to a .cu file has no use for: the launcher and the C++ header (other
# outputs), the tile stage, the older spellings' reader, the simulator, the other commands.
_NOT_FOR_SAXPY = ("transpiler.codegen.launcher", "transpiler.codegen.host_cpp", "transpiler.codegen.cuda_sim",
                  "transpiler.tile.", "transpiler.dialect.", "transpiler.sim",
                  "transpiler.runtime", "transpiler.cli.run", "transpiler.cli.info", "transpiler.cli.sim",
                  "transpiler.cli.migrate", "transpiler.cli.layout_view", "lark")


def test_a_compile_to_cuda_imports_nothing_it_does_not_use(tmp_path):
    """An import set, not a timing: each module above costs every tirxc process its import."""
    out = _python(_IMPORTED, str(SAXPY), "-o", str(tmp_path / "s.cu"))
    assert out.returncode == 0, out.stderr.decode()
    imported = out.stdout.decode().split()
    assert "transpiler.codegen.cuda" in imported and "jinja2" in imported  # (the run did compile)
    assert [m for m in imported if m.startswith(_NOT_FOR_SAXPY)] == []


def test_node_classes_share_their_frozen_guard():
    """@frozen_node classes compile no __setattr__/__delattr__ of their own (dataclass(frozen=True)
    compiles two per class), and stay frozen."""
    from transpiler.sema import values
    from transpiler.syntax import ast

    classes = [ast.Name, ast.Call, ir.BinOp, ir.BufferStore, values.LayoutVal]
    assert len({c.__setattr__ for c in classes}) == len({c.__delattr__ for c in classes}) == 1
    node = ast.Name(ir.NOWHERE, "x")
    with pytest.raises(dataclasses.FrozenInstanceError):
        node.id = "y"
    with pytest.raises(dataclasses.FrozenInstanceError):
        del node.id
    assert dataclasses.replace(node, id="y").id == "y" and node.id == "x"
    assert [f.name for f in dataclasses.fields(ir.Var)] == ["dtype", "name", "span"]
    assert ir.Var(INT32, "x").span is ir.NOWHERE
