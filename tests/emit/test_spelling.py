"""The newer TIRx spelling (apache-tvm-tirx: `@T.function`, `T.Tensor` parameters,
`T.device_entry(launch=T.cuda.LaunchConfig(...))`, `T.cuda.block_idx` ...) is an alias
of the spelling tirxc documents: every `samples/<name>_function.tx` gives exactly the
CUDA and the launcher of its twin `samples/<name>.tx`.

Both files are compiled under the twin's file name, because the generated header
names the source file; everything else must match byte for byte.
"""
from __future__ import annotations

import pytest

from tests.conftest import SAMPLES, transpile

NEW_SPELLING = sorted(SAMPLES.glob("*_function.tx"))


def outputs(path, as_name: str) -> tuple[str, str]:
    result = transpile(path.read_text(encoding="utf-8"), f"samples/{as_name}", until="launcher",
                       launcher_name=as_name.removesuffix(".tx"))
    assert result.ok, [(d.span.line, d.span.col, d.code, d.message) for d in result.diagnostics]
    return result.cuda, result.launcher


def test_every_construct_has_a_sample():
    text = "".join(p.read_text(encoding="utf-8") for p in NEW_SPELLING)
    for construct in ("@T.function", "T.dynamic(", "T.Tensor(", "launch=T.cuda.LaunchConfig(",
                      "dynamic_smem_bytes=", "T.cuda.block_idx(", "T.cuda.thread_idx(", "T.cuda.warp_id()",
                      "T.cuda.lane_id()", "T.alloc_tensor(", "T.decl_tensor(", "T.TileLayout(T.S[",
                      "T.Ramp(", "ty=T.float32"):
        assert construct in text, f"no new-spelling sample uses {construct}"


@pytest.mark.parametrize("sample", NEW_SPELLING, ids=lambda p: p.stem)
def test_same_cuda_and_launcher_as_twin(sample):
    twin = SAMPLES / (sample.stem.removesuffix("_function") + ".tx")
    assert twin.exists(), f"{sample.name} has no twin {twin.name}"
    assert f"samples/{twin.name}" in sample.read_text(encoding="utf-8"), "the header names the twin it mirrors"
    new_cuda, new_launcher = outputs(sample, twin.name)
    old_cuda, old_launcher = outputs(twin, twin.name)
    assert new_cuda == old_cuda
    assert new_launcher == old_launcher


def test_inline_launch_ids_are_named_after_the_call():
    """`T.cuda.thread_idx("x")` used without a name gets a C variable of its own."""
    result = transpile('''from tvm.script import tirx as T

@T.function
def k(A: T.Tensor((64, 2), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=(32, 2)))
    A[T.cuda.thread_idx("x") + 32 * T.cuda.thread_idx("y"), 0] = T.float32(T.cuda.block_dim("x"))
''')
    assert result.ok, result.diagnostics
    assert "int thread_idx_x = ((int)threadIdx.x);" in result.cuda
    assert "int thread_idx_y = ((int)threadIdx.y);" in result.cuda
    assert "32.0f" in result.cuda  # a constant block_dim folds to the launch's extent
    assert "__launch_bounds__(64)" in result.cuda


def test_symbolic_grid_dim_reads_the_builtin():
    result = transpile('''from tvm.script import tirx as T

n = T.dynamic("n")

@T.function
def k(A: T.Tensor((n,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, 128), block=128))
    A[0] = T.cuda.grid_dim("x")
''')
    assert result.ok, result.diagnostics
    assert "A_ptr[0] = ((int)gridDim.x);" in result.cuda


def test_module_level_dynamic_extent_is_per_kernel():
    """Two kernels sharing `n = T.dynamic("n")` each take `n` as a parameter of their own."""
    result = transpile('''from tvm.script import tirx as T

n = T.dynamic("n")

@T.function
def first(A: T.Tensor((n,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    A[0] = T.float32(n)

@T.function
def second(B: T.Tensor((n, 2), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=32))
    B[0, 0] = T.float32(n)
''')
    assert result.ok, result.diagnostics
    assert "first_kernel(float* __restrict__ A_ptr, int n)" in result.cuda
    assert "second_kernel(float* __restrict__ B_ptr, int n)" in result.cuda
