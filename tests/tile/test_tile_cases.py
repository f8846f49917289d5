"""The tile cases: every `tests/tile/cases/<family>/*.tx` file is one behaviour of a tile
primitive, named by it, with the variant each call takes and the CUDA lines that show the
behaviour as CHECK comments next to the call, and its diagnostics inline (the format:
tests/check/case_files.py). Each file with CHECK lines also compiles warning-free with nvcc
at its `# ARCH:` (marker `nvcc`; the files of a target in one nvcc run, tests/nvcc_batch.py;
results cached by content, tests/build_cache.py)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.check.case_files import case_files, case_id, check_case_file, run
from tests.check.filecheck import parse
from tests.conftest import has_nvcc
from tests.nvcc_batch import compile_many

CASES = Path(__file__).resolve().parent / "cases"
CASE_FILES = case_files(CASES)
WITH_CUDA = [p for p in CASE_FILES if parse(p.read_text(encoding="utf-8")).checks]
FLAGS = ("-std=c++17", "-Werror", "all-warnings")


@pytest.mark.parametrize("path", CASE_FILES, ids=case_id(CASES))
def test_case_file(path: Path, update_check_cases: bool):
    check_case_file(path, update_check_cases)


def nvcc_target(arch: str | None, cuda: str = "") -> tuple[str, ...]:
    """`-gencode` for the file's architecture (an arch-specific one needs its own virtual
    architecture); files without `# ARCH:` for sm_90a, or the minimum architecture the CUDA
    states where that is newer (a kernel that needs sm_100a without naming it)."""
    minimum = re.search(r"^// Minimum architecture: sm_(\d+)(a?)$", cuda, re.M)
    newer = minimum and int(minimum[1]) > 90
    number = (arch or (f"sm_{minimum[1]}{minimum[2]}" if newer else "sm_90a"))[3:]
    return ("-gencode", f"arch=compute_{number},code=sm_{number}")


@pytest.fixture(scope="module")
def compiled() -> dict[Path, tuple[tuple[str, ...], int, str]]:
    """{case file: (its nvcc target, return code, output)}: the files of a target compiled
    together, a few nvcc runs for them all (tests/nvcc_batch.py)."""
    by_target: dict[tuple[str, ...], dict[str, str]] = {}
    paths = {}
    for path in WITH_CUDA:
        directives, result = run(path, path.read_text(encoding="utf-8"))
        assert result.ok, path.name
        name = case_id(CASES)(path).replace("/", "__")
        paths[name] = path
        by_target.setdefault(nvcc_target(directives.arch, result.cuda), {})[name] = result.cuda
    done = {}
    for target, sources in by_target.items():
        for name, (code, output) in compile_many(sources, (*target, *FLAGS)).items():
            done[paths[name]] = (target, code, output)
    return done


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("path", WITH_CUDA, ids=case_id(CASES))
def test_case_compiles_warning_free(compiled, path: Path):
    target, code, output = compiled[path]
    assert code == 0, f"nvcc {' '.join(target)} {path.name}:\n{output}"
