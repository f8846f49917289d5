"""`<kernel>_launch_config` of the C++ header makes every check of a launch that needs no device,
as the CuPy launcher's `launch_config` does (tests/launcher/test_tensor_map_reach.py): compiled
with g++ and run on the CPU, it refuses a TMA tensor map that reaches past the array it is encoded
over, and arrays that share memory when the kernel writes one, with the launch description's
messages."""
from __future__ import annotations

import shutil
import subprocess

import pytest

from tests.cpp.common import cuda_include, generate
from tests.launcher.test_tensor_map_reach import OVER

INCLUDE = cuda_include()
pytestmark = pytest.mark.skipif(INCLUDE is None or shutil.which("g++") is None,
                                reason="needs g++ and the CUDA headers (cuda_runtime_api.h)")

MAIN = r'''#include "over.h"
#include <cstdint>
#include <cstdio>

int main() {
  tirxc::launch_config c{};
  const float* A = reinterpret_cast<const float*>(static_cast<std::uintptr_t>(0x7F0000000000ULL));
  float* B = reinterpret_cast<float*>(static_cast<std::uintptr_t>(0x7F1000000000ULL));
  const int cases[] = {64, 16, 65, 128};
  for (int rows : cases) {
    const cudaError_t status = tirxc::over::over_launch_config(A, B, rows, &c);
    std::printf("%d|%s\n", rows, status == cudaSuccess ? "OK" : tirxc::over::last_error());
  }
  return 0;
}
'''


OVERLAP = r'''#include "saxpy.h"
#include <cstdint>
#include <cstdio>

int main() {
  tirxc::launch_config c{};
  float* x = reinterpret_cast<float*>(static_cast<std::uintptr_t>(0x7F0000000000ULL));
  float* apart = reinterpret_cast<float*>(static_cast<std::uintptr_t>(0x7F1000000000ULL));
  const cudaError_t same = tirxc::saxpy::saxpy_launch_config(2.0f, x, x, 300, &c);
  std::printf("%s\n", same == cudaSuccess ? "OK" : tirxc::saxpy::last_error());
  const cudaError_t fine = tirxc::saxpy::saxpy_launch_config(2.0f, x, apart, 300, &c);
  std::printf("%s\n", fine == cudaSuccess ? "OK" : tirxc::saxpy::last_error());
  return 0;
}
'''


def _run(tmp_path, main: str) -> list[str]:
    (tmp_path / "main.cpp").write_text(main)
    build = subprocess.run(["g++", "-std=c++17", "-O0", "-Wall", "-Wextra", "-Werror", f"-I{INCLUDE}",
                            f"-I{tmp_path}", str(tmp_path / "main.cpp"), "-o", str(tmp_path / "main")],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-4000:]
    return subprocess.run([str(tmp_path / "main")], capture_output=True, text=True, check=True).stdout.splitlines()


def test_launch_config_refuses_a_map_reaching_past_its_array(tmp_path):
    generate("over", tmp_path, OVER)
    answers = dict(line.split("|", 1) for line in _run(tmp_path, MAIN))
    assert answers["64"] == answers["16"] == "OK"
    for rows in (65, 128):
        assert answers[str(rows)] == (
            f"over(): tensor map 'A_map' would reach {rows * 256} bytes from the start of argument 'A' for these "
            f"arguments (extents (64, {rows}), byte strides (256,), innermost first), but 'A' holds {64 * 256} "
            f"bytes from there: TMA would touch memory the kernel was not given")


def test_launch_config_refuses_arrays_that_share_memory(tmp_path):
    generate("saxpy", tmp_path)
    same, fine = _run(tmp_path, OVERLAP)
    assert same.startswith("saxpy(): arguments 'x' and 'y' share memory, but the kernel writes 'y'")
    assert fine == "OK"
