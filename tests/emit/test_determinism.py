"""The `.cu` of a sample is a pure function of the `.tx` text: byte-identical
under different PYTHONHASHSEED values (no set or dict-of-set iteration order
leaks into names or the order of declarations), from different working
directories and whether the path is given relative or absolute, and with no
absolute path in it.

Each run is a real `python -m transpiler` subprocess (the two runs differ in
hash seed, working directory and path spelling at once); they run in parallel.
"""
from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import ROOT, SAMPLES
from tests.emit.test_golden import generate

SAMPLE_FILES = sorted(SAMPLES.glob("*.tx"))


def run_cli(path_arg: str, cwd, hash_seed: str) -> bytes:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    # the checkout, not whatever `transpiler` another working directory would find first
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    proc = subprocess.run([sys.executable, "-m", "transpiler", path_arg], cwd=cwd, env=env,
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    return proc.stdout


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """sample stem -> (output of run A, output of run B)."""
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    jobs = []
    for sample in SAMPLE_FILES:
        jobs.append((sample.stem, f"samples/{sample.name}", ROOT, "0"))  # A: relative path from the checkout
        jobs.append((sample.stem, str(sample), elsewhere, "4242"))       # B: absolute path from elsewhere
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        outputs = list(pool.map(lambda job: run_cli(job[1], job[2], job[3]), jobs))
    by_sample: dict[str, list[bytes]] = {}
    for (stem, *_), out in zip(jobs, outputs):
        by_sample.setdefault(stem, []).append(out)
    return {stem: tuple(outs) for stem, outs in by_sample.items()}, elsewhere


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
