"""The case files of tests/sema/cases (the format: tests/check/case_files.py): device functions
(`@T.prim_func` returning a value), kernels without `T.device_entry()`, typed handles and the
typed-pointer spellings not supported yet; and the device functions' CUDA compiled by nvcc."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.build_cache import compile_cuda
from tests.check.case_files import case_files, case_id, check_case_file
from tests.conftest import has_nvcc
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

CASES = Path(__file__).resolve().parent / "cases"
CASE_FILES = case_files(CASES)


@pytest.mark.parametrize("path", CASE_FILES, ids=case_id(CASES))
def test_case_file(path: Path, update_check_cases: bool):
    check_case_file(path, update_check_cases)


def test_device_functions_are_not_kernels():
    """The launcher and the C++ header list the kernel only."""
    path = CASES / "device_function_returns_a_value.tx"
    result = compile_source(SourceFile(path.name, path.read_text()), until="launcher", header_module="k")
    assert result.ok, result.diagnostics
    assert [k.spec.name for k in result.program.kernels] == ["main"]
    assert [f.name for f in result.program.functions] == ["add", "clamp", "running_sum", "widen"]
    assert "main__prepare" in result.header and "clamp_" not in result.header and "add_" not in result.header


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("arch", ["sm_80", "sm_90a", "sm_100a"])
def test_device_functions_compile_with_nvcc(arch: str):
    path = CASES / "device_function_returns_a_value.tx"
    result = compile_source(SourceFile(path.name, path.read_text()), arch=arch)
    assert result.ok, result.diagnostics
    code, output = compile_cuda(result.cuda, (f"-arch={arch}", "-std=c++17", "-Werror", "all-warnings", "-c"))
    assert code == 0, output


def test_an_arena_of_extent_zero_is_sized_by_its_furthest_view():
    path = CASES / "dynamic_arena_of_extent_zero.tx"
    result = compile_source(SourceFile(path.name, path.read_text()), until="cuda")
    assert result.ok, result.diagnostics
    assert [k.spec.dynamic_shared_bytes for k in result.program.kernels] == [1024 + 64 * 4]
