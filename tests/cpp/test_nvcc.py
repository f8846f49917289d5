"""Every sample's `.cu` with its C++ entry points (`--header`) compiles with nvcc, warnings as
errors (nvcc's and the host compiler's -Wall -Wextra), and every header alone with g++
(marker `nvcc`; skipped without nvcc); so do a kernel launched in clusters, awkward names, and
the GPU test program of test_gpu.py."""
from __future__ import annotations

import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.conftest import has_nvcc
from tests.build_cache import compile_cuda
from tests.nvcc_batch import DEFINE, EXTERN_C_KERNEL
from tests.cpp.common import cuda_include, generate, sample_stems

pytestmark = [pytest.mark.nvcc, pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")]

WARNINGS = ["-std=c++17", "-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra", "-c"]


def _arch(result) -> str:
    program = result.program
    return f"sm_{max(program.min_arch, 80)}{program.arch_suffix}"


# what a file defines at global scope and names with `::` (its kernels, the tensor-map type)
GLOBAL_NAME = re.compile(r'^extern "C" __global__ void\b[^\n]*\n(\w+)\(|^struct\b[^{;\n]*?(\w+) \{', re.M)
SYSTEM_INCLUDE = re.compile(r"^#include <[^>]+>\n", re.M)
LOCAL_INCLUDE = re.compile(r'^#include "([^"/]+)"$', re.M)


def entry_point_unit(parts: list[tuple[str, str]], headers: dict[str, str]) -> str:
    """Entry-point files [(stem, text)] as one translation unit (tests/nvcc_batch.py's idea for
    files whose includes are not all first): every `#include <...>` of the files and their headers
    ({name: text}) read once, first; each file in a namespace of its own after a `#line` naming it,
    its header's text in place of its `#include "..."`, its kernels without `extern "C"`, its
    `::tirxc::`, `::<kernel>` and `::<struct>` names pointed into that namespace, the macros it
    defines undefined after it."""
    text = "\n".join(f"{stem}.cu\n{cuda}" for stem, cuda in parts) + "".join(headers.values())
    out = list(dict.fromkeys(line.strip() for line in SYSTEM_INCLUDE.findall(text)))
    for number, (stem, cuda) in enumerate(parts):
        names = "|".join(["tirxc", *(kernel or struct for kernel, struct in GLOBAL_NAME.findall(cuda))])
        inlined = LOCAL_INCLUDE.sub(lambda m: SYSTEM_INCLUDE.sub("", headers[m.group(1)]), SYSTEM_INCLUDE.sub("", cuda))
        body = re.sub(rf"(?<![\w:])::({names})\b", rf"::tirxc_case_{number}::\1", EXTERN_C_KERNEL.sub("", inlined))
        out += [f"namespace tirxc_case_{number} {{", f'#line 1 "{stem}.cu"', body, "}"]
        out += [f"#undef {macro}" for macro in dict.fromkeys(DEFINE.findall(body))]
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """{stem: (returncode, nvcc's output)} for every sample with a C++ interface: the files of one
    architecture compiled as one unit (entry_point_unit), each alone where that unit fails."""
    folder = tmp_path_factory.mktemp("cpp_nvcc")
    by_arch: dict[str, dict[str, str]] = {}
    for stem in sample_stems():
        result = generate(stem, folder)
        if result is not None:
            by_arch.setdefault(_arch(result), {})[stem] = (folder / f"{stem}.cu").read_text(encoding="utf-8")

    def headers_of(text):
        return {name: (folder / name).read_text(encoding="utf-8") for name in LOCAL_INCLUDE.findall(text)}

    def run(arch):  # cached by content, the .cu with the headers it includes (tests/build_cache.py)
        # PTX only (code=compute_XX, no ptxas): the entry points are host code, and every sample's
        # device code goes through ptxas in tests/emit/test_nvcc.py already; this halves the time.
        virtual = arch.replace("sm_", "compute_")
        flags, sources = [*WARNINGS, "-gencode", f"arch={virtual},code={virtual}"], by_arch[arch]
        headers = {name: body for text in sources.values() for name, body in headers_of(text).items()}
        if len(sources) > 1 and compile_cuda(entry_point_unit(list(sources.items()), headers), flags,
                                             name="entry_points")[0] == 0:
            return {stem: (0, "") for stem in sources}
        return {stem: compile_cuda(text, flags, name=stem, headers=headers_of(text)) for stem, text in sources.items()}

    with ThreadPoolExecutor(2) as pool:
        results = {stem: done for by_stem in pool.map(run, by_arch) for stem, done in by_stem.items()}
    return folder, results


@pytest.mark.parametrize("stem", sample_stems())
def test_sample_with_entry_points_compiles_warning_free(compiled, stem):
    folder, results = compiled
    if stem not in results:
        pytest.skip(f"{stem} has no C++ interface")
    code, output = results[stem]
    assert code == 0, output[-3000:]  # a warning is an error (-Werror all-warnings)


def test_the_batch_unit_points_only_a_files_own_global_names_into_its_namespace():
    cuda = ('#include <cuda_bf16.h>\nstruct __align__(64) tirx_tensor_map { int o; };\n'
            'extern "C" __global__ void __launch_bounds__(32)\nk(int* x) {}\n#ifndef __CUDACC_RTC__\n#include "a.h"\n'
            '#include <atomic>\nvoid f() { ::cudaLaunchKernel(&::k); ::tirx_tensor_map m; ::tirxc::x y; ::std::size_t n; }\n'
            '#endif\n')
    unit = entry_point_unit([("a", cuda)], {"a.h": "#include <cstdio>\n#define TIRXC_A_H_\nnamespace tirxc { struct x {}; }\n"})
    assert unit.startswith("#include <cuda_bf16.h>\n#include <atomic>\n#include <cstdio>\nnamespace tirxc_case_0 {\n")
    assert "__global__ void __launch_bounds__(32)\nk(" in unit and 'extern "C"' not in unit
    assert "namespace tirxc { struct x {}; }" in unit and '#include "a.h"' not in unit
    assert ("::cudaLaunchKernel(&::tirxc_case_0::k); ::tirxc_case_0::tirx_tensor_map m; ::tirxc_case_0::tirxc::x y; "
            "::std::size_t n;") in unit
    assert unit.endswith("}\n#undef TIRXC_A_H_\n")


def test_every_header_compiles_alone_with_gpp(compiled):
    folder, results = compiled
    include = cuda_include()
    if include is None or shutil.which("g++") is None:
        pytest.skip("needs g++ and the CUDA headers")
    for stem in results:
        source = folder / f"{stem}_alone.cpp"
        source.write_text(f'#include "{stem}.h"\n#include "{stem}.h"\n')  # include-guarded
        done = subprocess.run(["g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic", f"-I{include}",
                               f"-I{folder}", "-c", str(source), "-o", str(folder / f"{stem}_alone.o")],
                              capture_output=True, text=True)
        assert done.returncode == 0, (stem, done.stderr[-3000:])


def test_cluster_launch_compiles_and_checks_whole_clusters(tmp_path):
    """A kernel launched in clusters (its `__cluster_dims__` in the .cu) launches like any other;
    launch_config reports the cluster shape and refuses a grid the clusters do not divide."""
    result = generate("cluster_grid", tmp_path, (Path(__file__).parent / "cluster_grid.tx").read_text())
    assert result.program.kernels[0].spec.cluster
    (tmp_path / "main.cu").write_text(MAIN)
    done = subprocess.run(["nvcc", "-std=c++17", "-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra",
                           "-arch=sm_90a", f"-I{tmp_path}", str(tmp_path / "cluster_grid.cu"), str(tmp_path / "main.cu"),
                           "-o", str(tmp_path / "cluster")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    run = subprocess.run([str(tmp_path / "cluster")], capture_output=True, text=True)
    assert run.stdout.splitlines() == [
        "0 4 4",
        "1 by_fours(): the grid would be (3, 1, 1) for these arguments, which clusters of (4, 1, 1) blocks do not "
        "divide (the kernel's __cluster_dims__)"]


def test_cooperative_launch_compiles_and_the_header_alone_with_gpp(tmp_path):
    """A kernel that synchronizes its grid: its entry point checks the grid against the device's
    occupancy and launches through cudaLaunchCooperativeKernel; the .cu builds with nvcc and the
    header alone with g++."""
    result = generate("cooperative_grid", tmp_path, (Path(__file__).parent / "cooperative_grid.tx").read_text())
    cuda = (tmp_path / "cooperative_grid.cu").read_text()
    assert "::cudaLaunchCooperativeKernel(" in cuda and "::cudaOccupancyMaxActiveBlocksPerMultiprocessor(" in cuda
    assert "#include <cooperative_groups.h>" in cuda and result.program.kernels[0].spec.cooperative
    done = subprocess.run(["nvcc", *WARNINGS, "-arch=sm_80", str(tmp_path / "cooperative_grid.cu"), "-o",
                           str(tmp_path / "cooperative_grid.o")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    include = cuda_include()
    if include is None or shutil.which("g++") is None:
        pytest.skip("needs g++ and the CUDA headers")
    (tmp_path / "alone.cpp").write_text('#include "cooperative_grid.h"\n')
    done = subprocess.run(["g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-pedantic", f"-I{include}",
                           f"-I{tmp_path}", "-c", str(tmp_path / "alone.cpp"), "-o", str(tmp_path / "alone.o")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]


MAIN = r"""
#include <cstdio>
#include "cluster_grid.h"
int main() {
  tirxc::launch_config c{};
  int* a = reinterpret_cast<int*>(static_cast<std::uintptr_t>(1ULL << 40));
  const cudaError_t status = tirxc::cluster_grid::by_fours_launch_config(a, 512, &c);
  std::printf("%d %u %u\n", static_cast<int>(status), c.grid[0], c.cluster[0]);
  if (tirxc::cluster_grid::by_fours_launch_config(a, 384, &c) != cudaSuccess)
    std::printf("1 %s\n", tirxc::cluster_grid::last_error());
  return 0;
}
"""


def test_awkward_names_compile(tmp_path):
    """Kernels named `last_error` and `min`, arguments named `stream`, `config` and `tirx_ar`, a
    file stem that is no identifier: renamed, and the result compiles warning-free."""
    text = (Path(__file__).parent / "awkward_names.tx").read_text()
    result = generate("9-odd name", tmp_path, text)
    assert result is not None
    header = (tmp_path / "9-odd name.h").read_text()
    assert "namespace m9_odd_name {" in header
    assert "::cudaError_t last_error_(float* detail_, ::std::int32_t stream_, ::std::int32_t config_, " \
        "::std::int32_t n, ::cudaStream_t stream = 0) noexcept;" in header
    assert "::cudaError_t min_(float* A, ::std::int32_t utirx_ar_, ::cudaStream_t stream = 0) noexcept;" in header
    done = subprocess.run(["nvcc", *WARNINGS, "-arch=sm_80", str(tmp_path / "9-odd name.cu"), "-o",
                           str(tmp_path / "odd.o")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("stem", ["saxpy", "global_workspace", "math_ops"])
def test_gpu_test_program_builds(tmp_path, stem):
    """The GPU test program of tests/cpp/test_gpu.py builds without a GPU (scalars, extents,
    workspaces, float16 buffers), so that its GPU run fails only on what a GPU decides."""
    from tests.cpp.test_gpu import runner_source
    result = generate(stem, tmp_path)
    shutil.copy(Path(__file__).parent / "runner_prelude.h", tmp_path / "runner_prelude.h")
    (tmp_path / "runner.cu").write_text(runner_source(stem, result.program))
    done = subprocess.run(["nvcc", "-std=c++17", "-Werror", "all-warnings", "-Xcompiler", "-Wall,-Wextra",
                           "-arch=sm_80", f"-I{tmp_path}", str(tmp_path / f"{stem}.cu"), str(tmp_path / "runner.cu"),
                           "-o", str(tmp_path / "runner")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    run = subprocess.run([str(tmp_path / "runner")], capture_output=True, text=True)
    assert run.returncode == 1 and "usage" in run.stderr


def test_a_caller_encoded_tensor_map_is_taken_by_address(tmp_path):
    result = generate("caller_map", tmp_path, (Path(__file__).parent / "caller_map.tx").read_text())
    header = (tmp_path / "caller_map.h").read_text()
    assert "::cudaError_t take_map(const void* tmap, unsigned short* B, ::cudaStream_t stream = 0) noexcept;" in header
    cuda = (tmp_path / "caller_map.cu").read_text()
    assert "::std::memcpy(&tirx_p1, tmap, sizeof tirx_p1);" in cuda
    done = subprocess.run(["nvcc", *WARNINGS, f"-arch=sm_{result.program.min_arch}{result.program.arch_suffix}",
                           str(tmp_path / "caller_map.cu"), "-o", str(tmp_path / "caller_map.o")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]


CHECKS = r"""
#include <cstdio>
#include "saxpy.h"
#include "global_workspace.h"
template <class T> T* at(unsigned long long address) { return reinterpret_cast<T*>(static_cast<std::uintptr_t>(address)); }
void show(cudaError_t status, const char* message) { std::printf("%d %s\n", static_cast<int>(status), status ? message : ""); }
int main() {
  namespace sx = tirxc::saxpy;
  namespace gw = tirxc::global_workspace;
  const unsigned long long base = 1ULL << 40;
  show(sx::saxpy(1.0f, at<const float>(base), at<float>(base), 1000), sx::last_error());
  show(sx::saxpy(1.0f, at<const float>(base), at<float>(base + 3968), 1000), sx::last_error());
  show(sx::saxpy(1.0f, nullptr, nullptr, 0), sx::last_error());
  show(sx::saxpy(1.0f, at<const float>(base), at<float>(base + 4096), -1), sx::last_error());
  const std::size_t bytes = gw::global_sum_workspace_bytes(at<const float>(base), at<float>(base + 8192), 1000);
  std::printf("%zu\n", bytes);
  show(gw::global_sum(at<const float>(base), at<float>(base + 8192), 1000, nullptr, bytes), gw::last_error());
  show(gw::global_sum(at<const float>(base), at<float>(base + 8192), 1000, at<void>(base + 65536), bytes - 1),
       gw::last_error());
  show(gw::global_sum(at<const float>(base), at<float>(base + 8192), 1000, at<void>(base + 65536 + 128), bytes),
       gw::last_error());
  std::printf("%zu\n", gw::global_sum_workspace_bytes(at<const float>(base), at<float>(base + 8192), -5));
  return 0;
}
"""


def test_entry_point_checks_before_any_cuda_call(tmp_path):
    """What the entry points refuse before they touch CUDA, run without a GPU: overlapping
    buffers the kernel writes, a bad extent, a NULL, short or misaligned workspace; an empty
    problem succeeds without launching."""
    for stem in ("saxpy", "global_workspace"):
        generate(stem, tmp_path)
    (tmp_path / "checks.cu").write_text(CHECKS)
    done = subprocess.run(["nvcc", "-std=c++17", "-arch=sm_80", f"-I{tmp_path}", str(tmp_path / "saxpy.cu"),
                           str(tmp_path / "global_workspace.cu"), str(tmp_path / "checks.cu"), "-o",
                           str(tmp_path / "checks")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    run = subprocess.run([str(tmp_path / "checks")], capture_output=True, text=True)
    shared = ("saxpy(): arguments 'x' and 'y' share memory, but the kernel writes 'y' and takes its buffers as "
              "__restrict__ pointers (nvcc may read one through the read-only cache while the other is written): "
              "pass arrays that do not overlap")
    assert run.stdout.splitlines() == [
        f"1 {shared}",
        f"1 {shared}",  # y starts at x's last element
        "0 ",  # n = 0: nothing to launch
        "1 saxpy(): extent 'n' is -1, but an extent is from 0 to 2147483647 (the kernel indexes with 32-bit ints)",
        "512",  # partials: 4 floats, tickets: 1 int, each at a 256-byte boundary
        "1 global_sum(): the workspace is NULL, but the launch needs 512 bytes of it",
        "1 global_sum(): the workspace has 511 bytes, but the launch needs 512 (global_sum_workspace_bytes)",
        "1 global_sum(): the workspace must be 256-byte aligned, its pointer is 0x10000010080",
        str(2 ** 64 - 1),  # refused: SIZE_MAX
    ]
