"""Architectures, and the table of helper functions the generated CUDA may need
(each with the minimum architecture it requires). Data only."""
from __future__ import annotations

import re

ARCH_RE = re.compile(r"^sm_(\d+)([af]?)$")


def parse_arch(text: str) -> tuple[int, str] | None:
    """`sm_90a` -> (90, "a"); None when not an architecture name."""
    match = ARCH_RE.match(text.strip())
    if not match:
        return None
    number = int(match.group(1))
    if number < 50 or number > 200:
        return None
    return number, match.group(2)


def arch_name(number: int, suffix: str = "") -> str:
    return f"sm_{number}{suffix}"


# name -> (minimum arch, needs the "a" suffix, C++ source). The source is pasted
# once into the .cu when some kernel calls the helper.
HELPERS: dict[str, tuple[int, bool, str]] = {
    "tirx_floordiv": (0, False, """\
template <typename T>
__device__ __forceinline__ T tirx_floordiv(T a, T b) {
  T q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}"""),
    "tirx_floormod": (0, False, """\
template <typename T>
__device__ __forceinline__ T tirx_floormod(T a, T b) {
  T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}"""),
    "tirx_elect_sync": (90, False, """\
__device__ __forceinline__ unsigned int tirx_elect_sync() {
  unsigned int elected = 0;
  asm volatile(
      "{\\n\\t.reg .pred p;\\n\\telect.sync _|p, 0xffffffff;\\n\\tselp.u32 %0, 1, 0, p;\\n\\t}"
      : "+r"(elected));
  return elected;
}"""),
    "tirx_warpgroup_sync": (90, False, """\
__device__ __forceinline__ void tirx_warpgroup_sync(int barrier_id) {
  asm volatile("bar.sync %0, 128;" : : "r"(barrier_id) : "memory");
}"""),
}
