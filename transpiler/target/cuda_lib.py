"""The C++ sources of the `T.cuda.*` helper library (sema/calls/cuda_helpers.py): one
`__device__ __forceinline__` function per helper, each with the minimum architecture
it needs. Data only; a source is pasted once into the .cu when some kernel calls it.

The table has the shape of target/ptx's HELPERS (name -> Helper: the FEATURES row of
target/arch.py it needs, its source) and is merged into it, so lowering's helper
collection, ordering and architecture logic treat both alike. Its contents are fixed at import (never
grown while checking), so the order of helpers in a .cu never depends on what else
a process compiled.

Facts from the PTX ISA: the matrix descriptors (wgmma: "Matrix Descriptor Format";
tcgen05: "Shared memory descriptor"), mbarrier.try_wait.parity, barrier.cluster,
cvt.rn.bf16x2.f32 (sm_80), cvt.rn.satfinite.e4m3x2.f32 (sm_89), the .f32x2 arithmetic (sm_100).
"""
from __future__ import annotations

from typing import NamedTuple

from transpiler.target.dtypes import SCALARS


class Helper(NamedTuple):
    feature: str  # the FEATURES row (target/arch.py) of the architecture it needs
    source: str
    header: str = ""  # a CUDA header the source needs, included once with the dtype headers

# `swizzle` is TIRx's CUtensorMapSwizzle number (0 none, 1 32B, 2 64B, 3 128B, and for
# tcgen05 4 = 128B with 32B atoms); the descriptor's layout field encodes it differently.
WGMMA_LAYOUT = {0: 0, 1: 3, 2: 2, 3: 1}  # bits 62-63
TCGEN05_LAYOUT = {0: 0, 1: 6, 2: 4, 3: 2, 4: 1}  # bits 61-63


def _switch(table: dict[int, int]) -> str:
    return " : ".join(f"swizzle == {k} ? {v}ull" for k, v in table.items() if v) + " : 0ull"


def _reduce(op: str) -> str:
    return {"sum": "val += other;", "max": "val = other > val ? other : val;",
            "min": "val = other < val ? other : val;"}[op]


def _warp_reduce(op: str) -> str:
    return f"""\
template <typename T>
__device__ __forceinline__ T tirx_cuda_warp_{op}(T val, int width) {{
#pragma unroll
  for (int mask = width >> 1; mask > 0; mask >>= 1) {{
    T other = __shfl_xor_sync(0xffffffffu, val, mask);
    {_reduce(op)}
  }}
  return val;
}}"""


def _timers() -> dict[str, str]:
    """TIRx's profiler ring (`T.cuda.timer_*`, used by `tvm.tirx.bench.CudaProfiler`), in its record
    format so that TIRx's decoder reads it: word 0 of the buffer holds (groups << 32 | blocks); each
    (block, group) lane writes its records from slot 1 + lane, every `stride` slots; a record is the
    low 32 bits of %globaltimer above (lane << 12 | event << 2 | kind), kind 0 start, 1 end, 3 done.
    Each helper reads the timer itself (a helper's source cannot call another)."""
    params = ("unsigned long long* buffer, unsigned long long* tag, unsigned int* offset, int stride, "
              "bool leader")
    write = ("    unsigned int now;\n"
             "    asm volatile(\"mov.u32 %0, %%globaltimer_lo;\" : \"=r\"(now));\n"
             "    buffer[offset[0]] = ((unsigned long long)now << 32) | (tag[0] | {bits});\n"
             "    offset[0] += (unsigned int)stride;")
    fence = "  __threadfence_block();"
    return {
        "tirx_cuda_timer_init": """\
__device__ __forceinline__ void tirx_cuda_timer_init(unsigned long long* buffer, unsigned long long* tag,
                                                     unsigned int* offset, int num_groups, int group_id) {
  unsigned int blocks = gridDim.x * gridDim.y * gridDim.z;
  unsigned int block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  unsigned int lane = block * (unsigned int)num_groups + (unsigned int)group_id;
  if (block == 0 && threadIdx.x == 0) {
    buffer[0] = ((unsigned long long)(unsigned int)num_groups << 32) | blocks;
  }
  offset[0] = 1 + lane;
  tag[0] = (unsigned long long)lane << 12;
}""",
        "tirx_cuda_timer_start": f"""\
__device__ __forceinline__ void tirx_cuda_timer_start(int event, {params}) {{
  if (leader) {{
{write.format(bits="((unsigned int)event << 2)")}
  }}
{fence}
}}""",
        "tirx_cuda_timer_end": f"""\
__device__ __forceinline__ void tirx_cuda_timer_end(int event, {params}) {{
{fence}
  if (leader) {{
{write.format(bits="((unsigned int)event << 2 | 1u)")}
  }}
}}""",
        "tirx_cuda_timer_finalize": f"""\
__device__ __forceinline__ void tirx_cuda_timer_finalize({params}) {{
{fence}
  if (leader) {{
{write.format(bits="3u")}
  }}
}}""",
    }


def _cta_reduce(op: str) -> str:
    # Self-contained (a helper's source cannot pull in another helper). Lanes past the
    # warp count read a neutral value: 0 for a sum, the first warp's partial for max / min
    # (which any partial leaves unchanged), so integers work too (TIRx pads with
    # -INFINITY / INFINITY). The last barrier lets the CTA reuse `scratch` right after.
    pad = "T(0)" if op == "sum" else "scratch[0]"

    def loop(var: str, indent: str) -> str:
        step = _reduce(op).replace("val", var)
        return (f"{indent}#pragma unroll\n{indent}for (int mask = 16; mask > 0; mask >>= 1) {{\n"
                f"{indent}  T other = __shfl_xor_sync(0xffffffffu, {var}, mask);\n{indent}  {step}\n{indent}}}")

    return f"""\
template <typename T>
__device__ __forceinline__ T tirx_cuda_cta_{op}(T val, int warps, void* scratch_ptr) {{
  T* scratch = static_cast<T*>(scratch_ptr);
{loop("val", "  ")}
  int tid = (int)(threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y);
  int warp = tid >> 5;
  int lane = tid & 31;
  if (lane == 0) scratch[warp] = val;
  __syncthreads();
  if (warp == 0) {{
    T partial = lane < warps ? scratch[lane] : {pad};
{loop("partial", "    ")}
    if (lane == 0) scratch[0] = partial;
  }}
  __syncthreads();
  T result = scratch[0];
  __syncthreads();
  return result;
}}"""


def _mbarrier_wait(name: str, sem: str, raw: bool) -> str:
    param = "unsigned int bar_addr" if raw else "const void* bar"
    addr = "bar_addr" if raw else "(unsigned int)__cvta_generic_to_shared(bar)"
    return f"""\
__device__ __forceinline__ void {name}({param}, int phase) {{
  unsigned int addr = {addr};
  unsigned int done;
  do {{
    asm volatile("{{\\n\\t.reg .pred p;\\n\\tmbarrier.try_wait.parity.{sem}.shared::cta.b64 p, [%1], %2;"
                 "\\n\\tselp.u32 %0, 1, 0, p;\\n\\t}}"
                 : "=r"(done) : "r"(addr), "r"(phase) : "memory");
  }} while (!done);
}}"""


def _sreg(reg: str, bits: int) -> str:
    name = "tirx_cuda_sreg_" + reg.replace(".", "_")
    ctype, constraint = ("unsigned long long", "l") if bits == 64 else ("unsigned int", "r")
    return f"""\
__device__ __forceinline__ {ctype} {name}() {{
  {ctype} value;
  asm volatile("mov.u{bits} %0, %%{reg};" : "={constraint}"(value));
  return value;
}}"""


# The special registers `T.cuda.mov_sreg(bits, name)` reads (PTX ISA, "Special Registers"), with
# their width and the FEATURES row of the architecture that has them.
SREGS: dict[str, tuple[int, str]] = {
    **{f"{r}.{a}": (32, "base") for r in ("tid", "ntid", "ctaid", "nctaid") for a in "xyz"},
    "laneid": (32, "base"), "warpid": (32, "base"), "nwarpid": (32, "base"), "smid": (32, "base"), "nsmid": (32, "base"),
    "lanemask_eq": (32, "base"), "lanemask_le": (32, "base"), "lanemask_lt": (32, "base"), "lanemask_ge": (32, "base"),
    "lanemask_gt": (32, "base"), "clock": (32, "base"), "clock64": (64, "base"), "globaltimer": (64, "base"),
    "globaltimer_lo": (32, "base"), "globaltimer_hi": (32, "base"), "gridid": (64, "base"),
    "dynamic_smem_size": (32, "base"), "total_smem_size": (32, "base"),
    **{f"{r}.{a}": (32, "cluster") for r in ("clusterid", "nclusterid", "cluster_ctaid", "cluster_nctaid") for a in "xyz"},
    "cluster_ctarank": (32, "cluster"), "cluster_nctarank": (32, "cluster"), "is_explicit_cluster": (32, "cluster"),
}


def sreg_helper(reg: str) -> str:
    return "tirx_cuda_sreg_" + reg.replace(".", "_")


# `__ldg` by dtype (CUDA's overloads, dtypes.Scalar.ldg; half and bfloat16 come with cuda_fp16.h /
# cuda_bf16.h, which a kernel handling those dtypes includes), and its vector forms: integers
# before floats, each by width, as the messages name them
_LDG_ORDER = sorted(SCALARS, key=lambda name: (SCALARS[name].kind == "float", SCALARS[name].bits, list(SCALARS).index(name)))
LDG = {name: SCALARS[name].ldg for name in _LDG_ORDER if SCALARS[name].ldg is not None}
LDG_VECTOR = {name: SCALARS[name].ldg_vector for name in _LDG_ORDER if SCALARS[name].ldg_vector is not None}


def ldg_helper(dtype: str, lanes: int = 1) -> str:
    return f"tirx_cuda_ldg_{dtype}" + (f"x{lanes}" if lanes > 1 else "")


def _ldg(dtype: str, ctype: str) -> str:
    return f"""\
__device__ __forceinline__ {ctype} {ldg_helper(dtype)}(const void* src) {{
  return __ldg(static_cast<const {ctype}*>(src));
}}"""


def _ldg_vector(dtype: str, lanes: int) -> str:
    ctype, vtype = LDG[dtype], f"{LDG_VECTOR[dtype]}{lanes}"
    params = ", ".join(f"{ctype}* dst{i}" for i in range(lanes))
    stores = "".join(f"\n  *dst{i} = v.{m};" for i, m in enumerate("xyzw"[:lanes]))
    return f"""\
__device__ __forceinline__ void {ldg_helper(dtype, lanes)}({params}, const void* src) {{
  {vtype} v = __ldg(static_cast<const {vtype}*>(src));{stores}
}}"""


LIBRARY: dict[str, Helper] = {
    # -- mbarrier waits: try_wait polls once, so the helper loops until the phase completes
    "tirx_cuda_mbarrier_wait": Helper("mbarrier.tx", _mbarrier_wait("tirx_cuda_mbarrier_wait", "acquire.cta", False)),
    "tirx_cuda_mbarrier_wait_u32": Helper("mbarrier.tx", _mbarrier_wait("tirx_cuda_mbarrier_wait_u32", "acquire.cta", True)),
    "tirx_cuda_mbarrier_wait_acquire_cluster": Helper("mbarrier.tx", _mbarrier_wait(
        "tirx_cuda_mbarrier_wait_acquire_cluster", "acquire.cluster", False)),
    # -- wgmma companions
    "tirx_cuda_wgmma_fence_f32": Helper("base", """\
__device__ __forceinline__ void tirx_cuda_wgmma_fence_f32(float& reg) {
  asm volatile("" : "+f"(reg) :: "memory");
}"""),
    "tirx_cuda_wgmma_fence_u32": Helper("base", """\
__device__ __forceinline__ void tirx_cuda_wgmma_fence_u32(unsigned int& reg) {
  asm volatile("" : "+r"(reg) :: "memory");
}"""),
    "tirx_cuda_wgmma_make_desc": Helper("base", f"""\
__device__ __forceinline__ unsigned long long tirx_cuda_wgmma_make_desc(const void* addr, int ldo, int sdo,
                                                                        int swizzle) {{
  unsigned long long start = ((unsigned long long)__cvta_generic_to_shared(addr) >> 4) & 0x3FFFull;
  unsigned long long layout = {_switch(WGMMA_LAYOUT)};
  return start | (((unsigned long long)ldo & 0x3FFFull) << 16) | (((unsigned long long)sdo & 0x3FFFull) << 32)
         | (layout << 62);
}}"""),
    "tirx_cuda_tcgen05_make_desc": Helper("base", f"""\
__device__ __forceinline__ unsigned long long tirx_cuda_tcgen05_make_desc(const void* addr, int ldo, int sdo,
                                                                          int swizzle) {{
  unsigned long long start = ((unsigned long long)__cvta_generic_to_shared(addr) >> 4) & 0x3FFFull;
  unsigned long long layout = {_switch(TCGEN05_LAYOUT)};
  return start | (((unsigned long long)ldo & 0x3FFFull) << 16) | (((unsigned long long)sdo & 0x3FFFull) << 32)
         | (1ull << 46) | (layout << 61);
}}"""),
    # -- addresses and tensor memory
    "tirx_cuda_cvta_generic_to_shared": Helper("base", """\
__device__ __forceinline__ unsigned int tirx_cuda_cvta_generic_to_shared(const void* p) {
  return (unsigned int)__cvta_generic_to_shared(p);
}"""),
    "tirx_cuda_get_tmem_addr": Helper("base", """\
__device__ __forceinline__ unsigned int tirx_cuda_get_tmem_addr(unsigned int addr, int row_offset, int col_offset) {
  unsigned int col = ((addr & 0xFFFFu) + (unsigned int)col_offset) & 0xFFFFu;
  unsigned int row = ((addr >> 16) + (unsigned int)row_offset) & 0xFFFFu;
  return (row << 16) | col;
}"""),
    # -- loads, timers
    **{ldg_helper(name): Helper("base", _ldg(name, ctype)) for name, ctype in LDG.items()},
    **{ldg_helper(name, lanes): Helper("base", _ldg_vector(name, lanes)) for name in LDG_VECTOR for lanes in (2, 4)},
    "tirx_cuda_clock64": Helper("base", """\
__device__ __forceinline__ unsigned long long tirx_cuda_clock64() {
  return (unsigned long long)clock64();
}"""),
    **{name: Helper("base", source) for name, source in _timers().items()},
    "tirx_cuda_thread_rank": Helper("base", """\
__device__ __forceinline__ int tirx_cuda_thread_rank() {
  return (int)(threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y);
}"""),
    # -- packed float2 (a uint64 holding .x in the low word) and bfloat16x2 / fp8x4 (uint32)
    "tirx_cuda_make_float2": Helper("base", """\
__device__ __forceinline__ unsigned long long tirx_cuda_make_float2(float x, float y) {
  return (unsigned long long)__float_as_uint(x) | ((unsigned long long)__float_as_uint(y) << 32);
}"""),
    "tirx_cuda_float2_x": Helper("base", """\
__device__ __forceinline__ float tirx_cuda_float2_x(unsigned long long packed) {
  return __uint_as_float((unsigned int)packed);
}"""),
    "tirx_cuda_float2_y": Helper("base", """\
__device__ __forceinline__ float tirx_cuda_float2_y(unsigned long long packed) {
  return __uint_as_float((unsigned int)(packed >> 32));
}"""),
    "tirx_cuda_fmul2_rn": Helper("f32x2", """\
__device__ __forceinline__ unsigned long long tirx_cuda_fmul2_rn(unsigned long long a, unsigned long long b) {
  unsigned long long result;
  asm("mul.rn.f32x2 %0, %1, %2;" : "=l"(result) : "l"(a), "l"(b));
  return result;
}"""),
    "tirx_cuda_fadd2_rn": Helper("f32x2", """\
__device__ __forceinline__ unsigned long long tirx_cuda_fadd2_rn(unsigned long long a, unsigned long long b) {
  unsigned long long result;
  asm("add.rn.f32x2 %0, %1, %2;" : "=l"(result) : "l"(a), "l"(b));
  return result;
}"""),
    "tirx_cuda_float22bfloat162_rn": Helper("cvt.packed", """\
__device__ __forceinline__ unsigned int tirx_cuda_float22bfloat162_rn(float x, float y) {
  unsigned int result;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(result) : "f"(y), "f"(x));
  return result;
}"""),
    "tirx_cuda_bfloat1622float2": Helper("base", """\
__device__ __forceinline__ unsigned long long tirx_cuda_bfloat1622float2(unsigned int packed) {
  return (unsigned long long)(packed << 16) | ((unsigned long long)(packed & 0xFFFF0000u) << 32);
}"""),
    "tirx_cuda_hmin2": Helper("arith.sm80", """\
__device__ __forceinline__ unsigned int tirx_cuda_hmin2(unsigned int a, unsigned int b) {
  unsigned int result;
  asm("min.bf16x2 %0, %1, %2;" : "=r"(result) : "r"(a), "r"(b));
  return result;
}"""),
    "tirx_cuda_hmax2": Helper("arith.sm80", """\
__device__ __forceinline__ unsigned int tirx_cuda_hmax2(unsigned int a, unsigned int b) {
  unsigned int result;
  asm("max.bf16x2 %0, %1, %2;" : "=r"(result) : "r"(a), "r"(b));
  return result;
}"""),
    "tirx_cuda_fp8x4_e4m3_from_float4": Helper("cvt.fp8", """\
__device__ __forceinline__ unsigned int tirx_cuda_fp8x4_e4m3_from_float4(float x, float y, float z, float w) {
  unsigned short lo, hi;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(lo) : "f"(y), "f"(x));
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(hi) : "f"(w), "f"(z));
  return (unsigned int)lo | ((unsigned int)hi << 16);
}"""),
    # -- half <-> float through memory (pointers to consecutive elements)
    "tirx_cuda_float22half2": Helper("base", """\
__device__ __forceinline__ void tirx_cuda_float22half2(void* dst, const void* src) {
  *static_cast<half2*>(dst) = __float22half2_rn(*static_cast<const float2*>(src));
}"""),
    "tirx_cuda_half8tofloat8": Helper("base", """\
__device__ __forceinline__ void tirx_cuda_half8tofloat8(const void* src, void* dst) {
  const half2* source = static_cast<const half2*>(src);
  float2* dest = static_cast<float2*>(dst);
#pragma unroll
  for (int i = 0; i < 4; ++i) dest[i] = __half22float2(source[i]);
}"""),
    "tirx_cuda_float8tohalf8": Helper("base", """\
__device__ __forceinline__ void tirx_cuda_float8tohalf8(const void* src, void* dst) {
  const float2* source = static_cast<const float2*>(src);
  half2* dest = static_cast<half2*>(dst);
#pragma unroll
  for (int i = 0; i < 4; ++i) dest[i] = __float22half2_rn(source[i]);
}"""),
    "tirx_cuda_trap_when_assert_failed": Helper("base", """\
__device__ __forceinline__ void tirx_cuda_trap_when_assert_failed(bool cond) {
  if (!cond) __trap();
}"""),
    "tirx_cuda_runtime_instr_desc": Helper("base", """\
__device__ __forceinline__ void tirx_cuda_runtime_instr_desc(unsigned int* desc, unsigned int sf_id) {
  *desc = (*desc & ~0x60000030u) | (sf_id << 29) | (sf_id << 4);
}"""),
    # -- warp and CTA reductions
    **{f"tirx_cuda_warp_{op}": Helper("base", _warp_reduce(op)) for op in ("sum", "max", "min")},
    **{f"tirx_cuda_cta_{op}": Helper("base", _cta_reduce(op)) for op in ("sum", "max", "min")},
    # -- thread-block clusters
    "tirx_cuda_cluster_sync": Helper("cluster", """\
__device__ __forceinline__ void tirx_cuda_cluster_sync() {
  asm volatile("barrier.cluster.arrive.aligned;\\n\\tbarrier.cluster.wait.aligned;" ::: "memory");
}"""),
    # -- the grid: TIRx's own form (cooperative groups); the kernel is launched cooperatively
    "tirx_cuda_grid_sync": Helper("base", """\
__device__ __forceinline__ void tirx_cuda_grid_sync() {
  cooperative_groups::this_grid().sync();
}""", "cooperative_groups.h"),
    **{sreg_helper(reg): Helper(feature, _sreg(reg, bits)) for reg, (bits, feature) in SREGS.items()},
}
