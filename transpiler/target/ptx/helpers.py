"""The fixed helper functions the generated CUDA may need (not PTX instructions of the
table): name -> Helper (the FEATURES row it needs, its C++ source). A source is pasted
once into the .cu when some kernel calls the helper."""
from __future__ import annotations

from transpiler.target.cuda_lib import LIBRARY, Helper

HELPERS: dict[str, Helper] = {
    "tirx_floordiv": Helper("base", """\
template <typename T>
__device__ __forceinline__ T tirx_floordiv(T a, T b) {
  T q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}"""),
    "tirx_floormod": Helper("base", """\
template <typename T>
__device__ __forceinline__ T tirx_floormod(T a, T b) {
  T r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}"""),
    "tirx_elect_sync": Helper("cluster", """\
__device__ __forceinline__ unsigned int tirx_elect_sync() {
  unsigned int elected = 0;
  asm volatile(
      "{\\n\\t.reg .pred p;\\n\\telect.sync _|p, 0xffffffff;\\n\\tselp.u32 %0, 1, 0, p;\\n\\t}"
      : "+r"(elected));
  return elected;
}"""),
    "tirx_warpgroup_sync": Helper("bar.count", """\
__device__ __forceinline__ void tirx_warpgroup_sync(int barrier_id) {
  asm volatile("bar.sync %0, 128;" : : "r"(barrier_id) : "memory");
}"""),
}

# The T.cuda helper library (target/cuda_lib.py) has the same shape; one table holds both, so that
# lowering and `tirxc info` find every helper whatever the checker imported.

HELPERS.update(LIBRARY)
