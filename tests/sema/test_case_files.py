"""The case files of tests/sema/cases (the format: tests/check/case_files.py): device functions
(`@T.prim_func` returning a value), kernels without `T.device_entry()`, typed handles and the
typed-pointer spellings not supported yet; and the device functions' CUDA compiled by nvcc."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.build_cache import compile_cuda
from tests.check import filecheck
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


COMPILED = [p for p in CASE_FILES if "# CHECK" in p.read_text(encoding="utf-8")]


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("path", COMPILED, ids=case_id(CASES))
def test_case_cuda_compiles_with_nvcc(path: Path):
    """Each case that transpiles compiles with nvcc, warnings as errors, for its `# ARCH:` (sm_90a
    when it names none)."""
    text = path.read_text(encoding="utf-8")
    directives = filecheck.parse(text)
    arch = directives.arch or "sm_90a"
    result = compile_source(SourceFile(path.name, text), arch=arch)
    assert result.ok, result.diagnostics
    code, output = compile_cuda(result.cuda, (f"-arch={arch}", "-std=c++17", "-Werror", "all-warnings", "-c"))
    assert code == 0, output


def test_an_arena_of_extent_zero_is_sized_by_its_furthest_view():
    path = CASES / "dynamic_arena_of_extent_zero.tx"
    result = compile_source(SourceFile(path.name, path.read_text()), until="cuda")
    assert result.ok, result.diagnostics
    assert [k.spec.dynamic_shared_bytes for k in result.program.kernels] == [1024 + 64 * 4]


def test_a_grid_sync_in_a_device_function_makes_its_callers_cooperative():
    """Through a chain of device functions, the kernel that calls one is launched cooperatively,
    its launch pointing at the barrier itself; a kernel that calls none is not."""
    path = CASES / "grid_sync_in_a_device_function.tx"
    result = compile_source(SourceFile(path.name, path.read_text()), until="launcher")
    assert result.ok, result.diagnostics
    launches = {k.spec.name: k.spec.cooperative for k in result.program.kernels}
    assert launches["plain"] is None and launches["two_phase"].line == 12


def test_a_cooperative_kernel_keeps_its_clusters():
    """DeepEP's dispatch: the launch is cooperative and the cluster shape is the kernel's own."""
    path = CASES / "grid_sync_with_clusters.tx"
    result = compile_source(SourceFile(path.name, path.read_text()), until="launcher", arch="sm_90a")
    assert result.ok, result.diagnostics
    (kernel,) = result.program.kernels
    assert kernel.spec.cooperative is not None and kernel.spec.cluster == (2, 1, 1)
