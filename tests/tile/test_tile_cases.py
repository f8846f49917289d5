"""The tile cases: every `tests/tile/cases/<family>/*.tx` file is one behaviour of a tile
primitive, named by it, with the variant each call takes and the CUDA lines that show the
behaviour as CHECK comments next to the call, and its diagnostics inline (the format:
tests/check/case_files.py). Each file with CHECK lines also compiles warning-free with nvcc
at its `# ARCH:` (marker `nvcc`; results cached by content, tests/build_cache.py)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.check.case_files import case_files, case_id, check_case_file, run
from tests.check.filecheck import parse
from tests.conftest import has_nvcc
from tests.build_cache import compile_cuda

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


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("path", WITH_CUDA, ids=case_id(CASES))
def test_case_compiles_warning_free(path: Path):
    directives, result = run(path, path.read_text(encoding="utf-8"))
    assert result.ok
    target = nvcc_target(directives.arch, result.cuda)
    code, output = compile_cuda(result.cuda, (*target, *FLAGS), name=path.stem)
    assert code == 0, f"nvcc {' '.join(target)} {path.name}:\n{output}"
