"""The `.cu` of a sample is a pure function of the `.tx` text: byte-identical
under different PYTHONHASHSEED values (no set or dict-of-set iteration order
leaks into names or the order of declarations), from different working
directories and whether the path is given relative or absolute, and with no
absolute path in it.

Each of the two runs is one Python subprocess (they differ in hash seed, working
directory and path spelling at once) that calls the `tirxc` command for every sample
in turn, writing each `.cu` with `-o`: one interpreter a run instead of one a sample
(68 start-ups were most of this module's time); `python -m transpiler` itself is run
for one sample in each setting.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import ROOT, SAMPLES
from tests.emit.test_golden import generate

SAMPLE_FILES = sorted(SAMPLES.glob("*.tx"))


def _env(hash_seed: str) -> dict:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    # the checkout, not whatever `transpiler` another working directory would find first
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    return env


def run_cli(path_arg: str, cwd, hash_seed: str) -> bytes:
    """`python -m transpiler path_arg`: the CUDA it writes to standard output."""
    proc = subprocess.run([sys.executable, "-m", "transpiler", path_arg], cwd=cwd, env=_env(hash_seed),
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return proc.stdout


# one interpreter: the `tirxc` command (transpiler.cli.main.main) on each (path, output) pair
DRIVER = """\
import json, sys
from transpiler.cli.main import main
for path, out in json.loads(sys.argv[1]):
    try:
        main([path, "-o", out])
    except SystemExit as done:
        if done.code not in (0, None):
            sys.exit(f"tirxc {path}: exit {done.code}")
"""


def run_all(pairs: list[tuple[str, str]], cwd, hash_seed: str) -> None:
    proc = subprocess.run([sys.executable, "-c", DRIVER, json.dumps(pairs)], cwd=cwd, env=_env(hash_seed),
                          capture_output=True, timeout=600)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """sample stem -> (output of run A, output of run B)."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    out_a, out_b = tmp_path_factory.mktemp("run_a"), tmp_path_factory.mktemp("run_b")
    runs = [([(f"samples/{s.name}", str(out_a / f"{s.stem}.cu")) for s in SAMPLE_FILES], ROOT, "0"),  # A: relative
            ([(str(s), str(out_b / f"{s.stem}.cu")) for s in SAMPLE_FILES], elsewhere, "4242")]        # B: absolute
    with ThreadPoolExecutor(max_workers=2) as pool:
        list(pool.map(lambda run: run_all(*run), runs))
    return {s.stem: ((out_a / f"{s.stem}.cu").read_bytes(), (out_b / f"{s.stem}.cu").read_bytes())
            for s in SAMPLE_FILES}, elsewhere


def test_python_m_transpiler_writes_the_same_in_both_settings(runs):
    """The real command line, once a setting: standard output is what `-o` writes."""
    outputs, elsewhere = runs
    sample = SAMPLES / "saxpy.tx"
    a = run_cli(f"samples/{sample.name}", ROOT, "0")
    b = run_cli(str(sample), elsewhere, "4242")
    assert a == b == outputs[sample.stem][0]


@pytest.mark.parametrize("sample", SAMPLE_FILES, ids=lambda p: p.stem)
def test_byte_identical_across_hash_seeds_and_directories(runs, sample):
    outputs, _ = runs
    a, b = outputs[sample.stem]
    assert a, "no output"
    assert a == b, "output depends on PYTHONHASHSEED, the working directory or the path spelling"
    # and the CLI writes exactly what the library returns
    assert a.decode("utf-8") == generate(sample)


@pytest.mark.parametrize("sample", SAMPLE_FILES, ids=lambda p: p.stem)
def test_no_absolute_paths_in_output(runs, sample):
    outputs, elsewhere = runs
    text = outputs[sample.stem][1].decode("utf-8")  # the run given an absolute path
    for path in {str(ROOT), str(elsewhere), str(SAMPLES), os.path.expanduser("~")}:
        if len(path) > 1:  # a home of "/" would match every comment
            assert path not in text, f"output contains the absolute path {path}"
    assert f"from {sample.name}." in text.splitlines()[0]  # the header names the file, not its folder


def test_repeated_compiles_in_one_process_are_identical():
    """No state leaks from one compile into the next (caches, counters)."""
    first = [generate(s) for s in SAMPLE_FILES]
    second = [generate(s) for s in reversed(SAMPLE_FILES)]
    assert first == list(reversed(second))
