"""Many generated `.cu` files in one nvcc run (tests/nvcc_batch.py): files that share their
includes and names compile together, a failing file is still found and named alone, and a file
whose includes are not all first compiles alone."""
from __future__ import annotations

import pytest

from tests.conftest import has_nvcc
from tests.nvcc_batch import compile_many, split_includes, translation_unit

FLAGS = ("-gencode", "arch=compute_80,code=sm_80", "-std=c++17", "-Werror", "all-warnings")
KERNEL = '''// Generated for a test.
#include <cuda_fp16.h>

#define TIRX_SCALE 2
__device__ __forceinline__ float twice(float x) { return x * TIRX_SCALE; }

extern "C" __global__ void __launch_bounds__(32)
k_kernel(float* __restrict__ A_ptr) {
  A_ptr[threadIdx.x] = twice(A_ptr[threadIdx.x])BODY;
}
'''


def test_the_includes_are_split_off_only_when_they_come_first():
    includes, rest = split_includes(KERNEL)
    assert includes == ("#include <cuda_fp16.h>",) and "#include" not in rest
    assert split_includes("struct S {};\n#include <cuda_fp16.h>\n") is None
    assert split_includes("#if 1\n#include <cuda_fp16.h>\n#endif\n") is None


def test_each_file_is_a_namespace_that_ends_its_macros():
    unit = translation_unit(("#include <cuda_fp16.h>",), [("a", "#define M 1\nint x;"), ("b", "int x;")])
    assert unit.index("namespace tirxc_case_0 {") < unit.index('#line 1 "a.cu"') < unit.index("#undef M") \
        < unit.index("namespace tirxc_case_1 {")
    body = split_includes(KERNEL)[1]
    assert 'extern "C"' not in translation_unit((), [("k", body)])


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
def test_files_with_the_same_names_compile_together_and_a_failing_one_is_named():
    good = {f"good{n}": KERNEL.replace("BODY", f" + {n}.0f") for n in range(2)}
    assert {name: code for name, (code, _) in compile_many(good, FLAGS).items()} == dict.fromkeys(good, 0)
    # an unused variable is a warning, an error under -Werror all-warnings: only its file fails
    bad = KERNEL.replace("BODY", ";\n  int unused = 1")
    results = compile_many({"good0": good["good0"], "bad": bad}, FLAGS)
    assert [name for name, (code, _) in results.items() if code != 0] == ["bad"]
    assert "bad.cu" in results["bad"][1] and "unused" in results["bad"][1]
