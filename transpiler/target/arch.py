"""Every per-architecture fact tirxc relies on, in one table: the checker, the PTX
table, `tirxc info` and the launcher read these and nothing else.

Sources: the CUDA C++ Programming Guide's table of technical specifications per
compute capability, and the PTX ISA's target notes for each instruction family.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

BASE_ARCH = 75  # the oldest architecture CUDA 13 compiles for: what a kernel needs at least

# Static shared memory per block. The hardware allows more only through the dynamic
# arena; NVRTC (the launcher's compiler) rejects a larger static total even where
# nvcc accepts it.
STATIC_SHARED_LIMIT = 48 * 1024

# Element indices and extents are C `int`s in the generated kernel.
INDEX_LIMIT = 2 ** 31 - 1

MAX_THREADS_PER_BLOCK = 1024

# Blocks per grid dimension (x, y, z), on every architecture tirxc compiles for.
MAX_GRID = (2 ** 31 - 1, 65535, 65535)

# CTAs in a portable thread-block cluster; larger ones need an opt-in attribute at launch.
MAX_CLUSTER_CTAS = 8

# The register cap `__maxnreg__` may set, per thread.
MIN_REGISTERS_PER_THREAD = 24
MAX_REGISTERS_PER_THREAD = 255

# Tensor memory (sm_100a): lanes by columns of 32-bit cells; an allocation takes a
# power-of-two number of columns in this range.
TMEM_LANES = 128
TMEM_COLUMNS = 512
TMEM_MIN_ALLOC_COLUMNS = 32


@dataclass(frozen=True)
class Arch:
    """One compute capability."""
    number: int  # 90 for sm_90
    shared_opt_in: int  # the most shared memory (static + dynamic) one block may use after opting in
    tensor_memory: bool = False


# "Maximum amount of shared memory per thread block" once the kernel opts in with
# cudaFuncAttributeMaxDynamicSharedMemorySize (1 KB of each SM's capacity is reserved
# for the system, hence 163 KB of 164 on sm_80 and 227 KB of 228 on sm_90 / sm_100).
ARCHS: dict[int, Arch] = {a.number: a for a in (
    Arch(75, 64 * 1024),
    Arch(80, 163 * 1024),
    Arch(86, 99 * 1024),
    Arch(87, 163 * 1024),
    Arch(89, 99 * 1024),
    Arch(90, 227 * 1024),
    Arch(100, 227 * 1024, tensor_memory=True),
    Arch(120, 99 * 1024),
)}

# The most any architecture allows: the limit for a kernel compiled without a target.
SHARED_OPT_IN_MAX = max(a.shared_opt_in for a in ARCHS.values())

# The architecture (and `a` suffix for arch-specific features, which run on exactly
# that architecture) each instruction family needs.
FEATURES: dict[str, tuple[int, str]] = {
    "base": (BASE_ARCH, ""),  # what every architecture tirxc compiles for has
    "fence": (BASE_ARCH, ""),  # fence.acq_rel / fence.sc
    "cp.async": (80, ""),  # ldgsts: cp.async.ca/cg, commit/wait groups
    "ldmatrix": (75, ""),
    "mma.sync": (80, ""),
    "mma.sync.int": (75, ""),  # mma.sync m8n8k16 / m8n8k32 integer, m8n8k4 f16
    "mma.f64": (90, ""),  # mma.sync m16n8k4 / k8 / k16 f64
    "mbarrier": (80, ""),  # init
    "mbarrier.tx": (90, ""),  # arrive, expect_tx, try_wait.parity
    "stmatrix": (90, ""),
    "bulk": (90, ""),  # cp.async.bulk(.tensor), proxy fences, fence.mbarrier_init
    "wgmma": (90, "a"),
    "setmaxnreg": (90, "a"),
    "tcgen05": (100, "a"),  # tensor memory and the fifth-generation tensor core
    "tcgen05.i8": (100, "a"),  # tcgen05.mma .kind::i8 (not sm_103a, not the sm_100f family)
    "tcgen05.specific": (100, "a"),  # tcgen05.shift, `.scale_vec::NX`, `.sp` with kind::mxf4*: not sm_100f
    "tcgen05.scale_d": (100, "a"),  # tcgen05.mma's scale-input-d immediate (not sm_110a)
    "cvt.rs": (100, "a"),  # cvt's stochastic rounding `.rs` (not sm_110a, not sm_100f)
    "memory": (BASE_ARCH, ""),  # ld / st / red / atom (with .sem and .scope: sm_70), mov, prefetch, bar
    "cvt.packed": (80, ""),  # cvt to f16x2 / bf16x2
    "cvt.fp8": (89, ""),  # cvt to and from e4m3x2 / e5m2x2
    "cache.hint": (80, ""),  # .L2::cache_hint, .L2::64B/128B/256B prefetch sizes, eviction priorities, createpolicy
    "cluster": (90, ""),  # mapa, barrier.cluster, elect.sync, the .cluster scope, shared::cluster
    "bar.count": (90, ""),  # bar.sync with a thread count (warpgroup_sync), as tirxc allows it
    "f32x2": (100, ""),  # add / sub / mul / fma on .f32x2 pairs
    "atom.sm90": (90, ""),  # vector red / atom, bf16 red / atom, .b128 atom.cas / exch
    "multimem": (90, ""),  # multimem.ld_reduce / st / red on multicast addresses
    "tensormap": (90, "a"),  # tensormap.replace
    "async.release": (100, ""),
    "multimem.fp8": (100, "a"),
    "tensormap.sm100": (100, "a"),
    "bf16.arith": (90, ""),  # setp on .bf16
    "half.sm80": (80, ""),  # fma .relu and on bf16 (x2), neg / abs on bf16 (x2)
    "arith.sm80": (80, ""),  # min / max .NaN and on f16 / bf16 (x2)
    "arith.sm86": (86, ""),  # min / max .xorsign.abs
    "arith.sm90": (90, ""),  # min / max on u16x2 / s16x2, .relu
    "arith.sm100": (100, ""),  # the three-input f32 min / max
    "st.bulk": (100, ""),
    "redux.f32": (100, "a"),
    "cvt.sm100": (100, "a"),  # fp6 / fp4 / ue8m0 pairs, fp8 from bf16x2, .rs  # redux.sync min / max on f32
    "ld256": (100, ""),  # the 256-bit ld / st vectors (.v8 of 32-bit, .v4 of 64-bit values)
    "bulk.sm100": (100, ""),  # cp.async.bulk's .cp_mask
    "bulk.multicast": (90, "a"),
    "bulk.gather4": (100, "a"),  # the TMA load's `.tile::gather4` (sm_100a ... and sm_120a)  # cp.async.bulk(.tensor)'s .multicast::cluster (ptxas: arch-specific targets)
    "clc": (100, ""),  # clusterlaunchcontrol try_cancel / query_cancel
    "clc.multicast": (100, "a"),  # clusterlaunchcontrol.try_cancel's .multicast::cluster::all
    "ldmatrix.b8": (100, "a"),  # ldmatrix .m16n16 / .m8n16 and stmatrix .m16n8 on 8-bit (and packed 6 / 4-bit) data
    "redux": (80, ""),  # redux.sync  # tensormap.replace's swizzle_atomicity field  # multimem.ld_reduce / st on packed fp8, .acc::f16  # st.async / red.async release forms into global memory
}

# The architectures each arch-specific (`a`) family exists on, named by the nvcc feature
# macros that say so in device code (`__CUDA_ARCH_FEAT_SM90_ALL` for sm_90a), and the
# family-specific targets (sm_100f: `__CUDA_ARCH_FAMILY_SPECIFIC__ == 1000`) that have it
# too. A helper of such a family compiles its instruction only under one of these and
# traps elsewhere, as CUTLASS does, so that one .cu builds with plain `-arch=sm_90a` (whose
# generic compute_90 pass lacks the instruction) as well as with `-gencode`.
SPECIFIC: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "wgmma": ((90,), ()),
    "setmaxnreg": ((90, 100, 101, 103, 110, 120, 121), (100, 101, 103, 110)),
    "tcgen05": ((100, 101, 103, 110), (100, 101, 103, 110)),
    "tcgen05.i8": ((100, 110), ()),
    "tcgen05.specific": ((100, 101, 103, 110), ()),
    "tcgen05.scale_d": ((100, 101, 103), (100, 101, 103)),
    "cvt.rs": ((100, 101, 103), ()),
    "redux.f32": ((100, 101, 103), (100, 101, 103)),
    "cvt.sm100": ((100, 101, 103, 110, 120, 121), (100, 101, 103, 110)),
    "tensormap": ((90, 100, 101, 103, 110, 120, 121), (100, 101, 103, 110, 120, 121)),
    "multimem.fp8": ((100, 101, 103, 110, 120, 121), (100, 101, 103, 110)),
    "tensormap.sm100": ((100, 101, 103, 110, 120, 121), (100, 101, 103, 110, 120, 121)),
    "bulk.multicast": ((90, 100, 101, 103, 110), (100, 101, 103, 110)),
    "bulk.gather4": ((100, 101, 103, 110, 120, 121), (100, 101, 103, 110)),
    "clc.multicast": ((100, 101, 103, 110, 120, 121), (100, 101, 103, 110, 120, 121)),
    "ldmatrix.b8": ((100, 101, 103, 110, 120, 121), (100, 101, 103, 110, 120, 121)),
}


def guard_macro(feature: str) -> str:
    """The macro a .cu defines where an arch-specific family's instructions exist ("" for a
    family every target has): its helpers compile the instruction under `#ifdef` of it."""
    return f"TIRX_HAS_{feature.upper().replace('.', '_')}" if feature in SPECIFIC else ""


def guard_condition(feature: str) -> str:
    """The preprocessor condition under which guard_macro(feature) is defined ("" when every
    target has the family)."""
    if feature not in SPECIFIC:
        return ""
    specific, families = SPECIFIC[feature]
    terms = [f"defined(__CUDA_ARCH_FEAT_SM{a}_ALL)" for a in specific]
    if families:
        terms.append("(defined(__CUDA_ARCH_FAMILY_SPECIFIC__) && ("
                     + " || ".join(f"__CUDA_ARCH_FAMILY_SPECIFIC__ == {a * 10}" for a in families) + "))")
    return " || ".join(terms)


def specific_archs(feature: str) -> tuple[int, ...]:
    """The architectures an arch-specific family runs on with the `a` suffix."""
    return SPECIFIC[feature][0] if feature in SPECIFIC else ()


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


def limits(number: int) -> Arch:
    """The facts of sm_{number}: its own entry, or that of the newest listed
    architecture before it (sm_87's for sm_88, say)."""
    known = [n for n in ARCHS if n <= number]
    return ARCHS[max(known)] if known else ARCHS[BASE_ARCH]


def runs_on(number: int, arch: int, suffix: str) -> bool:
    """Whether code built for sm_{arch}{suffix} runs on sm_{number}: `a` code on that
    architecture only, `f` code on its family (same major version), plain code on it
    and every later one."""
    if suffix == "a":
        return number == arch
    if suffix == "f":
        return number // 10 == arch // 10 and number >= arch
    return number >= arch
