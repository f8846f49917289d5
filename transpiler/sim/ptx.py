"""The CPU implementations of the PTX helpers tirxc emits (docs/sim.md, "PTX"). `cpu_helper(name,
source, mnemonic)` takes a helper's name and its CUDA source (the PTX table's, or a fixed helper's) and
gives the same function with a body for the CPU, or None when the simulator has none yet, which
the sim flavour of the printer (codegen/cuda_sim.py) refuses by name (E0810). The signature is
kept as the table writes it; only the body is this module's, so a helper cannot be called
differently under `sim`.

What each body does is the instruction's effect on values (the PTX ISA's): the warp-wide ones
(ldmatrix, stmatrix, mma.sync) are warp operations of the runtime (include/tirx_sim_ptx.h,
tirx_sim_mma.h), wgmma a warpgroup operation (tirx_sim_wgmma.h); the asynchronous copies
(cp.async, TMA, bulk copies: tirx_sim_tma.h) copy at once, through one function that names each
copy's completion event, so their commits and waits are no-ops for values (the race checker
models the delay: ptx_hooks.py); cluster barriers and shared::cluster addresses are
tirx_sim_cluster.h's; tensor memory and tcgen05 (alloc, ld / st, cp, the MMAs, commit) are
tirx_sim_tcgen05.h's; cache hints and fences change no value.
"""
from __future__ import annotations

import re

_ASM_TEXT = re.compile(r'\basm\s*(?:volatile\s*)?\(\s*"([^"\\]*(?:\\.[^"\\]*)*)"')
_PARAMS = re.compile(r"\(([^()]*)\)\s*\{\s*$")


def _mnemonic(source: str) -> str | None:
    match = _ASM_TEXT.search(source)
    if match is None:
        return None
    words = match.group(1).replace("\\n", " ").replace("\\t", " ").split()
    words = [w for w in words if w not in ("{", "}") and not w.startswith((".reg", "{", "}"))]
    return words[0].rstrip(";") if words else None


def _signature(source: str) -> tuple[str, list[str]] | None:
    """The helper's text up to its body's `{` and its parameters' names."""
    head = source.split("{\n", 1)[0] + "{"
    match = _PARAMS.search(head)
    if match is None:
        return None
    names = [p.strip().split()[-1].lstrip("&*") for p in match.group(1).split(",") if p.strip()]
    return head, names


def _ldmatrix(mnemonic: str, names: list[str]) -> str | None:
    match = re.fullmatch(r"ldmatrix\.sync\.aligned\.m8n8\.x([124])(\.trans)?(\.shared(::cta)?)?\.b16", mnemonic)
    count = int(match.group(1)) if match else 0
    if not match or names != [f"out{i}" for i in range(count)] + ["ptr0"]:
        return None
    regs = ", ".join(f"(unsigned int*)&out{i}" for i in range(count))
    return f"  tirx_sim::ldmatrix<{count}, {str(bool(match.group(2))).lower()}>(ptr0, {regs});"


def _stmatrix(mnemonic: str, names: list[str]) -> str | None:
    match = re.fullmatch(r"stmatrix\.sync\.aligned\.m8n8\.x([124])(\.trans)?(\.shared(::cta)?)?\.b16", mnemonic)
    count = int(match.group(1)) if match else 0
    if not match or names != ["ptr0"] + [f"in{i}" for i in range(count)]:
        return None
    values = ", ".join(f"(unsigned int)in{i}" for i in range(count))
    return f"  tirx_sim::stmatrix<{count}, {str(bool(match.group(2))).lower()}>(ptr0, {values});"


_MMA_TYPES = {"f16": "MMA_F16", "bf16": "MMA_BF16", "tf32": "MMA_TF32", "e4m3": "MMA_E4M3", "e5m2": "MMA_E5M2",
              "s8": "MMA_S8", "u8": "MMA_U8"}
_MMA_BITS = {"f16": 16, "bf16": 16, "tf32": 32, "e4m3": 8, "e5m2": 8, "s8": 8, "u8": 8}


def _mma(mnemonic: str, names: list[str]) -> str | None:
    """mma.sync m16n8k{4,8,16,32}.row.col with fp32 or s32 accumulators (include/tirx_sim_mma.h)."""
    types = "|".join(_MMA_TYPES)
    match = re.fullmatch(rf"mma\.sync\.aligned\.m16n8k(4|8|16|32)\.row\.col(\.satfinite)?\.(f32|s32)\.({types})\.({types})"
                         r"\.(f32|s32)", mnemonic)
    if not match or match.group(3) != match.group(6) or (match.group(3) == "s32") != (match.group(4) in ("s8", "u8")):
        return None
    k, ta, tb = int(match.group(1)), match.group(4), match.group(5)
    a, b = (k * _MMA_BITS[ta] // 64, k * _MMA_BITS[tb] // 128)
    if names != [f"out{i}" for i in range(4)] + [f"in{i}" for i in range(a + b + 4)] or a < 1 or b < 1:
        return None
    accumulator = "float" if match.group(3) == "f32" else "int"
    saturate = 0 if accumulator == "float" else 2 if match.group(2) else 1
    regs = lambda first, n: ", ".join(f"in{first + i}" for i in range(n))  # noqa: E731
    return (f"  const unsigned int a[{a}] = {{{regs(0, a)}}};\n"
            f"  const unsigned int b[{b}] = {{{regs(a, b)}}};\n"
            f"  const {accumulator} c[4] = {{{regs(a + b, 4)}}};\n"
            f"  tirx_sim::mma_sync<{k}, tirx_sim::{_MMA_TYPES[ta]}, tirx_sim::{_MMA_TYPES[tb]}, {saturate}>"
            f"(&out0, &out1, &out2, &out3, a, b, c);")


def _wgmma(mnemonic: str, names: list[str], source: str) -> str | None:
    """wgmma.mma_async (include/tirx_sim_wgmma.h) with fp32 or s32 accumulators, A through its
    descriptor or in registers; fence / commit_group / wait_group change no value."""
    if mnemonic in ("wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned", "wgmma.wait_group.sync.aligned"):
        return "  // the warpgroup's MMAs completed when they were issued" if not names else None
    types = "|".join(_MMA_TYPES)
    match = re.fullmatch(rf"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k(8|16|32)(\.satfinite)?\.(f32|s32)"
                         rf"\.({types})\.({types})", mnemonic)
    if match is None or (match.group(4) == "s32") != (match.group(5) in ("s8", "u8")):
        return None
    n, k, ta, tb = int(match.group(1)), int(match.group(2)), match.group(5), match.group(6)
    outs = [f"d{i}" for i in range(n // 2)]
    if names == outs + ["a_desc", "b_desc", "scale_d"]:
        a_desc, a_regs = "a_desc", "nullptr"
    elif names == outs + ["a0", "a1", "a2", "a3", "b_desc", "scale_d"]:
        a_desc, a_regs = "0", "a"
    else:
        return None
    imm = {name: name if re.search(rf"\bint {name}\b", source.split("__device__", 1)[0]) else default
           for name, default in (("scale_a", "1"), ("scale_b", "1"), ("trans_a", "0"), ("trans_b", "0"))}
    saturate = 0 if match.group(4) == "f32" else 2 if match.group(3) else 1
    lines = [f"  void* d[{n // 2}] = {{{', '.join('&' + o for o in outs)}}};"]
    if a_regs == "a":
        lines.append("  const unsigned int a[4] = {a0, a1, a2, a3};")
    lines.append(f"  tirx_sim::wgmma<{n}, {k}, tirx_sim::{_MMA_TYPES[ta]}, tirx_sim::{_MMA_TYPES[tb]}, {saturate}>"
                 f"(d, {a_desc}, {a_regs}, b_desc, scale_d, {imm['scale_a']}, {imm['scale_b']}, {imm['trans_a']}, "
                 f"{imm['trans_b']});")
    return "\n".join(lines)


_TMEM_SHAPES = {"32x32b": ("TMEM_32X32B", 1), "16x64b": ("TMEM_16X64B", 1), "16x128b": ("TMEM_16X128B", 2),
                "16x256b": ("TMEM_16X256B", 4)}
_CP_SHAPES = {"128x256b": "CP_128X256B", "4x256b": "CP_4X256B", "128x128b": "CP_128X128B",
              "64x128b.warpx2::02_13": "CP_64X128B_02_13", "64x128b.warpx2::01_23": "CP_64X128B_01_23",
              "32x128b.warpx4": "CP_32X128B_WARPX4"}
_TCGEN05_KINDS = {"f16": "KIND_F16", "tf32": "KIND_TF32", "f8f6f4": "KIND_F8F6F4", "i8": "KIND_I8"}


def _tcgen05(mnemonic: str, names: list[str], source: str) -> str | None:
    """tcgen05 on tensor memory, cta_group::1 (include/tirx_sim_tcgen05.h): alloc / dealloc /
    relinquish, ld / st of the 32x32b and 16xNb shapes, the dense MMAs with both operands by
    descriptor, cp (shared memory by descriptor, every shape without decompression), commit (multicast too); the waits and fences change no value."""
    if not mnemonic.startswith("tcgen05.") or ".cta_group::2" in mnemonic:
        return None
    if mnemonic == "tcgen05.wait::ld.sync.aligned" and not names:
        return "  tirx_sim::tmem_wait_ld();"
    if mnemonic == "tcgen05.wait::st.sync.aligned" and not names:
        return "  tirx_sim::tmem_wait_st();"
    if mnemonic in ("tcgen05.fence::before_thread_sync",
                    "tcgen05.fence::after_thread_sync") and not names:
        return "  // tensor-memory operations complete when they are issued"
    if mnemonic == "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned" and not names:
        return "  tirx_sim::tmem_relinquish();"
    if re.fullmatch(r"tcgen05\.alloc\.cta_group::1\.sync\.aligned(\.shared::cta)?\.b32", mnemonic) \
            and names == ["slot", "columns"]:
        return "  tirx_sim::tmem_alloc((void*)slot, columns);"
    if mnemonic == "tcgen05.dealloc.cta_group::1.sync.aligned.b32" and names == ["taddr", "columns"]:
        return "  tirx_sim::tmem_dealloc(taddr, columns);"
    copy = re.fullmatch(r"tcgen05\.(ld|st)\.sync\.aligned\.(32x32b|16x64b|16x128b|16x256b)\.x(\d+)\.b32", mnemonic)
    if copy:
        shape, per = _TMEM_SHAPES[copy.group(2)]
        count = per * int(copy.group(3))
        if copy.group(1) == "ld" and names == [f"out{i}" for i in range(count)] + ["taddr"]:
            regs = ", ".join(f"(void*)&out{i}" for i in range(count))
            return (f"  void* const regs[{count}] = {{{regs}}};\n"
                    f"  tirx_sim::tmem_load<tirx_sim::{shape}, {count}>(taddr, regs);")
        if copy.group(1) == "st" and names == ["taddr"] + [f"in{i}" for i in range(1, count + 1)]:
            values = ", ".join(f"(unsigned int)in{i}" for i in range(1, count + 1))
            return (f"  const unsigned int values[{count}] = {{{values}}};\n"
                    f"  tirx_sim::tmem_store<tirx_sim::{shape}, {count}>(taddr, values);")
        return None
    commit = re.fullmatch(r"tcgen05\.commit\.cta_group::1\.mbarrier::arrive::one(\.shared::cluster)?"
                          r"(\.multicast::cluster)?\.b64", mnemonic)
    if commit:
        if names == ["mbar"] and not commit.group(2):
            return "  tirx_sim::tcgen05_commit(mbar);"
        if names == ["mbar", "cta_mask"] and commit.group(2):
            return "  tirx_sim::tcgen05_commit(mbar, (int)cta_mask);"
        return None
    cp = re.fullmatch(r"tcgen05\.cp\.cta_group::1\.(128x256b|4x256b|128x128b|64x128b\.warpx2::02_13|64x128b\.warpx2::01_23"
                      r"|32x128b\.warpx4)", mnemonic)
    if cp:
        return f"  tirx_sim::tcgen05_cp(tirx_sim::{_CP_SHAPES[cp.group(1)]}, taddr, s_desc);" \
            if names == ["taddr", "s_desc"] else None
    mma = re.fullmatch(r"tcgen05\.mma\.cta_group::1\.kind::(f16|tf32|f8f6f4|i8)", mnemonic)
    head = ["d_tmem", "a_desc", "b_desc", "idesc"]
    if mma is None or names[:4] != head:
        return None
    rest = names[4:]
    mask = "nullptr"
    if rest[:4] == [f"mask{i}" for i in range(4)]:
        rest, mask = rest[4:], "lanes"
    if rest not in (["enable_input_d"], ["enable_input_d", "scale_input_d"]):
        return None
    # (an immediate scale-input-d is the helper's template parameter)
    scale = "scale_input_d" if "scale_input_d" in rest or re.search(r"\bint scale_input_d\b", source.split("__device__", 1)[0]) \
        else "0"
    lines = ["  const unsigned int lanes[4] = {mask0, mask1, mask2, mask3};"] if mask == "lanes" else []
    lines.append(f"  tirx_sim::tcgen05_mma(tirx_sim::{_TCGEN05_KINDS[mma.group(1)]}, d_tmem, a_desc, b_desc, idesc, "
                 f"enable_input_d, (int){scale}, {mask});")
    return "\n".join(lines)


_FORMATS = {"f16x2": "FORMAT_F16", "bf16x2": "FORMAT_BF16", "e4m3x2": "FORMAT_E4M3", "e5m2x2": "FORMAT_E5M2"}


def _cvt_pair(mnemonic: str, names: list[str]) -> str | None:
    """The packed conversions (include/tirx_sim_formats.h): f32 pairs to f16x2 / bf16x2 / fp8x2,
    fp8x2 to f16x2."""
    match = re.fullmatch(r"cvt\.(rn|rz)((?:\.(?:relu|satfinite))*)\.(f16x2|bf16x2|e4m3x2|e5m2x2)\.(f32|e4m3x2|e5m2x2)",
                         mnemonic)
    if match is None:
        return None
    rz, mods, dst, src = match.group(1) == "rz", match.group(2), match.group(3), match.group(4)
    relu, sat = str(".relu" in mods).lower(), str(".satfinite" in mods).lower()
    out = "unsigned short" if dst in ("e4m3x2", "e5m2x2") else "unsigned int"
    if src == "f32" and names == ["out0", "in0", "in1"]:
        value = f"tirx_sim::cvt_pair(in0, in1, tirx_sim::{_FORMATS[dst]}, {str(rz).lower()}, {sat}, {relu})"
    elif src != "f32" and dst == "f16x2" and not rz and names == ["out0", "in0"]:
        value = f"tirx_sim::cvt_fp8_pair_to_f16x2(in0, tirx_sim::{_FORMATS[src]}, {relu})"
    else:
        return None
    return f"  *reinterpret_cast<{out}*>(&out0) = ({out}){value};"


_WIDTHS = {"8": 1, "16": 2, "32": 4, "64": 8, "128": 16}


class _Qualified:
    """An ld / st match read as (op, space, qualifiers, vector, width)."""

    def __init__(self, match):
        self._groups = (match.group(1), match.group(3), match.group(2) + match.group(4), match.group(5), match.group(6))

    def group(self, index):
        return self._groups[index - 1]


def _ld_st(mnemonic: str, names: list[str]) -> str | None:
    """ld / st of global or shared memory with cache hints: the hints change no value."""
    match = re.fullmatch(r"(ld|st)((?:\.[a-z]+)*?)\.(global|local|shared(?:::cta|::cluster)?)((?:\.[A-Za-z0-9_:]+)*?)(?:\.v([248]))?"
                         r"\.[usbf](8|16|32|64|128)", mnemonic)
    if match is not None:  # (the ISA puts semantics before or after the state space: one list of qualifiers)
        match = _Qualified(match)
    if match is None or ".async" in match.group(3) or "::" in match.group(2) and match.group(2) != "shared::cta" \
            and match.group(2) != "shared::cluster":
        return None
    count, size = int(match.group(4) or 1), _WIDTHS[match.group(5)]
    outs, ins = "out", "in"
    if match.group(5) == "128":  # a .b128 value travels in two 64-bit halves, d0 / b0 the low one
        count, size, outs, ins = 2 * count, 8, "d", "b"
    # a load with memory-order semantics may be a spin on a flag another thread sets: it is a
    # scheduling point, so that the others run (and --step-limit bounds a spin that never ends)
    ordered = any(q in match.group(3) for q in (".volatile", ".relaxed", ".acquire"))
    if match.group(1) == "ld":
        if names != [f"{outs}{i}" for i in range(count)] + ["ptr0"]:
            return None
        lines = ["  tirx_sim::spin_point();"] if ordered else []
        lines += [f"  memset(&{outs}{i}, 0, sizeof {outs}{i}); memcpy(&{outs}{i}, (const char*)ptr0 + {i * size}, {size});"
                  for i in range(count)]
        return "\n".join(lines)
    if names != ["ptr0"] + [f"{ins}{i}" for i in range(count)]:
        return None
    return "\n".join(f"  memcpy((char*)ptr0 + {i * size}, &{ins}{i}, {size});" for i in range(count))


def _cp_async(mnemonic: str, names: list[str]) -> str | None:
    if re.fullmatch(r"cp\.async\.c[ag]\.shared(::cta)?\.global(\.L2::(64|128|256)B)?(\.L2::cache_hint)?", mnemonic) \
            and names[:2] == ["ptr0", "ptr1"] and set(names[2:]) <= {"src_size", "cache_policy"}:
        # at once: the values a wait_group would make visible; past src_size, zeros
        read = "src_size" if "src_size" in names else "bytes"
        return f"  tirx_sim::cp_async_copy((void*)ptr0, ptr1, (unsigned int)bytes, (unsigned int){read});"
    arrive = re.fullmatch(r"cp\.async\.mbarrier\.arrive(\.noinc)?(\.shared(::cta)?)?\.b64", mnemonic)
    if arrive and names == ["ptr0"]:
        # the arrive-on is triggered when this thread's earlier copies complete: at once; without
        # .noinc the pending count was raised by one first, so the pair changes nothing
        if arrive.group(1):
            return "  tirx_sim::mbarrier_arrive(ptr0, 1, 0, false);"
        return '  tirx_sim::mbarrier_read(ptr0, "cp.async.mbarrier.arrive");'
    if mnemonic in ("cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all") and not names:
        return "  // the copies completed when they were issued"
    return None


_HINT = r"(?:\.L2::cache_hint)?"


def _tma(mnemonic: str, names: list[str]) -> str | None:
    """TMA and bulk copies (include/tirx_sim_tma.h): tensor loads completing on an mbarrier, tensor
    stores and bulk copies in the bulk group, prefetches (no value changes)."""
    hint = ["cache_policy"] if mnemonic.endswith(".L2::cache_hint") else []
    load = re.fullmatch(r"cp\.async\.bulk\.tensor\.([1-5])d\.shared::(?:cluster|cta)\.global(?:\.tile)?"
                        r"\.mbarrier::complete_tx::bytes(\.multicast::cluster)?" + _HINT, mnemonic)
    if load:
        rank = int(load.group(1))
        coords = [f"c{i}" for i in range(rank)]
        mask = ["cta_mask"] if load.group(2) else []
        if names != ["dst", "tensor_map", *coords, "mbar", *mask, *hint]:
            return None
        return (f"  const int coords[{rank}] = {{{', '.join(coords)}}};\n"
                f"  tirx_sim::tma_load((void*)dst, tensor_map, coords, {rank}, mbar{', cta_mask' if mask else ''});")
    store = re.fullmatch(r"cp\.async\.bulk\.tensor\.([1-5])d\.global\.shared::cta(?:\.tile)?\.bulk_group" + _HINT,
                         mnemonic)
    if store:
        rank = int(store.group(1))
        coords = [f"c{i}" for i in range(rank)]
        if names != ["tensor_map", *coords, "src", *hint]:
            return None
        return (f"  const int coords[{rank}] = {{{', '.join(coords)}}};\n"
                f"  tirx_sim::tma_store(tensor_map, coords, {rank}, src);")
    reduce = re.fullmatch(r"cp\.reduce\.async\.bulk\.tensor\.([1-5])d\.global\.shared::cta\.(add|min|max|and|or|xor)"
                          r"(?:\.tile)?\.bulk_group" + _HINT, mnemonic)
    if reduce:
        rank, op = int(reduce.group(1)), {"add": "+", "min": "<", "max": ">", "and": "&", "or": "|", "xor": "^"}
        coords = [f"c{i}" for i in range(rank)]
        if names != ["tensor_map", *coords, "src", *hint]:
            return None
        return (f"  const int coords[{rank}] = {{{', '.join(coords)}}};\n"
                f"  tirx_sim::tma_reduce(tensor_map, coords, {rank}, src, '{op[reduce.group(2)]}');")
    # (a shared::cluster destination given as a generic pointer is a pointer into that CTA's area)
    if re.fullmatch(r"cp\.async\.bulk\.shared::(?:cluster|cta)\.(?:global|shared::cta)\.mbarrier::complete_tx::bytes"
                    + _HINT,
                    mnemonic) and names == ["dst", "src", "bytes", "mbar", *hint]:
        return "  tirx_sim::bulk_copy((void*)dst, src, bytes, mbar);"
    if re.fullmatch(r"cp\.async\.bulk\.global\.shared::cta\.bulk_group" + _HINT, mnemonic) \
            and names == ["dst", "src", "bytes", *hint]:
        return "  tirx_sim::bulk_copy((void*)dst, src, bytes, nullptr);"
    if re.fullmatch(r"cp\.async\.bulk\.(commit_group|wait_group(\.read)?)", mnemonic) and not names:
        return "  // the bulk copies completed when they were issued"
    if mnemonic.startswith(("cp.async.bulk.prefetch.", "prefetch.")) or \
            mnemonic.startswith("fence.proxy.tensormap"):
        return "  // a prefetch (or a tensor-map fence): changes no value"
    return None


def _fence(mnemonic: str, names: list[str]) -> str | None:
    if mnemonic.startswith(("fence.", "membar.")) and not names:
        return "  __atomic_thread_fence(__ATOMIC_SEQ_CST);  // orders, changes no value"
    if mnemonic.startswith("setmaxnreg.") and not names:
        return "  // a register budget: changes no value"
    return None


def _mov(mnemonic: str, names: list[str]) -> str | None:
    """mov.bN: a copy, or the pack / unpack of a vector of equal pieces (the first the lowest)."""
    match = re.fullmatch(r"mov\.b(16|32|64)", mnemonic)
    if match is None:
        return None
    total = int(match.group(1)) // 8
    outs = [n for n in names if n.startswith("out")]
    ins = [n for n in names if n.startswith("in")]
    if names != outs + ins or not outs or not ins or (len(outs) > 1 and len(ins) > 1) or total % len(ins) or total % len(outs):
        return None
    put, get = total // len(ins), total // len(outs)
    lines = ["  unsigned char bytes[8];"]
    lines += [f"  memcpy(bytes + {i * put}, &{name}, {put});" for i, name in enumerate(ins)]
    lines += [f"  memcpy(&{name}, bytes + {i * get}, {get});" for i, name in enumerate(outs)]
    return "\n".join(lines)


def _approx(mnemonic: str, names: list[str]) -> str | None:
    """ex2.approx{.ftz}.f32: the host's exp2f (docs/sim.md, "Numerics": within the approximation's
    bound, not equal to it); .ftz flushes a subnormal operand and result to a zero of its sign."""
    match = re.fullmatch(r"ex2\.approx(\.ftz)?\.f32", mnemonic)
    if match is None or names != ["out0", "in0"]:
        return None
    if not match.group(1):
        return "  out0 = exp2f(in0);"
    return ("  float x = std::fpclassify(in0) == FP_SUBNORMAL ? copysignf(0.0f, in0) : in0;\n"
            "  out0 = exp2f(x);\n"
            "  if (std::fpclassify(out0) == FP_SUBNORMAL) out0 = 0.0f;")


def _named_barrier(mnemonic: str, names: list[str], source: str) -> str | None:
    """`tirx_warpgroup_sync(barrier_id)` (bar.sync id, 128) and the table's bar.sync / bar.arrive."""
    match = re.fullmatch(r"(bar|barrier)(\.cta)?\.(sync|arrive)(\.aligned)?", mnemonic)
    if match is None:
        return None
    wait = "true" if match.group(3) == "sync" else "false"
    fixed = re.search(r'bar\.sync %0, (\d+);', source)
    if names == ["barrier_id"] and fixed:
        return f"  tirx_sim::named_barrier(barrier_id, {fixed.group(1)}, {wait});"
    if len(names) == 2:
        return f"  tirx_sim::named_barrier((int){names[0]}, (int){names[1]}, {wait});"
    return None


def _mbarrier(mnemonic: str, names: list[str], returns: bool) -> str | None:
    """mbarrier on this CTA's shared memory (include/tirx_sim_ptx.h keeps its state in its 8 bytes)."""
    match = re.fullmatch(r"mbarrier\.(init|inval|arrive|arrive_drop|expect_tx|complete_tx|try_wait|test_wait)"
                         r"((?:\.[a-z_:]+)*?)(\.shared(?:::cta|::cluster)?)?\.b64", mnemonic)
    lead = names[:1] if names[:1] in (["done"], ["state"]) else []  # a destination before the address
    names = names[len(lead):]
    if match is None or ".noComplete" in mnemonic or names[:1] != ["ptr0"]:
        return None
    op, qualifiers, rest = match.group(1), match.group(2), set(names[1:] + lead)
    if op == "init" and names == ["ptr0", "count"]:
        return "  tirx_sim::mbarrier_init(ptr0, count);"
    if op == "inval" and not rest:
        return "  memset((void*)ptr0, 0, 8);"
    if op in ("arrive", "arrive_drop") and rest <= {"count", "tx_bytes", "state"}:
        count = "count" if "count" in rest else "1"
        tx = "(long long)tx_bytes" if "tx_bytes" in rest else "0"
        call = f"tirx_sim::mbarrier_arrive(ptr0, {count}, {tx}, {str(op == 'arrive_drop').lower()})"
        return f"  state = (typename std::remove_reference<decltype(state)>::type){call};" if "state" in rest else f"  {call};"
    if op in ("expect_tx", "complete_tx") and rest == {"tx_bytes"}:
        sign = "" if op == "expect_tx" else "-"
        return f"  tirx_sim::mbarrier_tx(ptr0, {sign}(long long)tx_bytes);"
    if op in ("try_wait", "test_wait") and rest - {"suspend_hint", "done"} in ({"parity"}, {"state"}):
        phase = "parity" if "parity" in rest else "(unsigned int)state"
        call = f"tirx_sim::mbarrier_try_wait_parity(ptr0, {phase}, true)"
        if returns:
            return f"  return {call};"
        return f"  done = (typename std::remove_reference<decltype(done)>::type){call};" if "done" in rest else None
    return None


def _cluster(mnemonic: str, names: list[str]) -> str | None:
    """Cluster barriers and mapa (include/tirx_sim_cluster.h)."""
    barrier = re.fullmatch(r"barrier\.cluster\.(arrive|wait)(\.relaxed|\.release|\.acquire)?(\.aligned)?", mnemonic)
    if barrier and not names:
        release = "false" if barrier.group(1) == "arrive" and barrier.group(2) == ".relaxed" else ""  # (orders no memory)
        return f"  tirx_sim::cluster_{barrier.group(1)}({release});"
    if mnemonic == "mapa.shared::cluster.u32" and names == ["out0", "ptr0", "cta_rank"]:
        return "  out0 = tirx_sim::cluster_address(ptr0, cta_rank);"
    if mnemonic == "mapa.u64" and names == ["out0", "ptr0", "cta_rank"]:
        return "  out0 = (unsigned long long)tirx_sim::cluster_pointer(ptr0, cta_rank);"
    return None


def _elect(mnemonic: str, names: list[str], returns: bool) -> str | None:
    if mnemonic == "elect.sync" and names == ["membermask"] and returns:
        return "  return tirx_sim::elect_one_of(membermask);"
    if mnemonic == "elect.sync" and names in (["elected", "membermask"], ["lane", "elected", "membermask"]):
        lines = ["  unsigned int leader = (unsigned int)__builtin_ctz(__ballot_sync(membermask, 1));",
                 "  elected = (typename std::remove_reference<decltype(elected)>::type)"
                 "(tirx_sim::current_fiber->linear % 32 == (int)leader);"]
        return "\n".join(lines + (["  lane = leader;"] if "lane" in names else []))
    return None


# the fixed helpers (target/ptx/helpers.py, target/cuda_lib.py) that wrap PTX, by name
_FIXED = {
    "tirx_elect_sync": "  return tirx_sim::elect_one_of(0xffffffffu);",
    "tirx_cuda_mbarrier_wait": "  while (!tirx_sim::mbarrier_try_wait_parity(bar, (unsigned int)phase, true)) {}",
    "tirx_cuda_mbarrier_wait_u32":
        "  while (!tirx_sim::mbarrier_try_wait_parity(tirx_sim::shared_at(bar_addr), (unsigned int)phase, true)) {}",
    "tirx_cuda_mbarrier_wait_acquire_cluster":
        "  while (!tirx_sim::mbarrier_try_wait_parity(bar, (unsigned int)phase, true)) {}",
    "tirx_cuda_cluster_sync": "  tirx_sim::cluster_arrive();\n  tirx_sim::cluster_wait();",
    # register fences for the compiler around wgmma: no instruction, no value changes
    "tirx_cuda_wgmma_fence_f32": "  (void)reg;",
    "tirx_cuda_wgmma_fence_u32": "  (void)reg;",
    "tirx_cuda_float22bfloat162_rn": "  return tirx_sim::cvt_pair(y, x, tirx_sim::FORMAT_BF16, false, false, false);",
    "tirx_cuda_fp8x4_e4m3_from_float4":
        "  return tirx_sim::cvt_pair(y, x, tirx_sim::FORMAT_E4M3, false, true, false) |\n"
        "         tirx_sim::cvt_pair(w, z, tirx_sim::FORMAT_E4M3, false, true, false) << 16;",
    "tirx_cuda_fmul2_rn": "  return tirx_sim::f32x2(a, b, false);",
    "tirx_cuda_fadd2_rn": "  return tirx_sim::f32x2(a, b, true);",
    "tirx_cuda_hmin2": "  return tirx_sim::bf16x2_min_max(a, b, false);",
    "tirx_cuda_hmax2": "  return tirx_sim::bf16x2_min_max(a, b, true);",
}

# the special registers T.cuda.mov_sreg reads (target/cuda_lib.py SREGS), as the running thread
# sees them; %warpid is the warp's index in the block (the hardware's may differ and change), the
# clocks count scheduling points; the cluster registers are those of the thread's cluster
_SREGS = {
    **{f"{r}_{a}": f"{v}.{a}" for r, v in (("tid", "threadIdx"), ("ntid", "blockDim"), ("ctaid", "blockIdx"),
                                            ("nctaid", "gridDim")) for a in "xyz"},
    "laneid": "tirx_sim::current_fiber->linear % 32", "warpid": "tirx_sim::current_fiber->linear / 32",
    "lanemask_eq": "1u << tirx_sim::current_fiber->linear % 32",
    "lanemask_lt": "(1u << tirx_sim::current_fiber->linear % 32) - 1u",
    "lanemask_le": "(2u << tirx_sim::current_fiber->linear % 32) - 1u",
    "lanemask_gt": "~((2u << tirx_sim::current_fiber->linear % 32) - 1u)",
    "lanemask_ge": "~((1u << tirx_sim::current_fiber->linear % 32) - 1u)",
    "clock": "tirx_sim::current_block->steps", "clock64": "tirx_sim::current_block->steps",
    **{f"{r}_{a}": f"tirx_sim::cluster_register(\"{r}\", {i})"
       for r in ("clusterid", "nclusterid", "cluster_ctaid", "cluster_nctaid") for i, a in enumerate("xyz")},
    **{r: f"tirx_sim::cluster_register(\"{r}\", 0)" for r in ("cluster_ctarank", "cluster_nctarank",
                                                             "is_explicit_cluster")},
}
_FIXED.update({f"tirx_cuda_sreg_{name}": f"  return ({{result}})({value});" for name, value in _SREGS.items()})

_ATOMIC_TYPES = {"u32": "unsigned int", "s32": "int", "b32": "unsigned int", "u64": "unsigned long long",
                 "s64": "long long", "b64": "unsigned long long", "f32": "float", "f64": "double"}
_ATOMIC_OPS = {"add": "atomicAdd", "min": "atomicMin", "max": "atomicMax", "and": "atomicAnd", "or": "atomicOr",
               "xor": "atomicXor", "exch": "atomicExch"}


def _atomic(mnemonic: str, names: list[str]) -> str | None:
    """red / atom on global or shared memory: the runtime's atomics (blocks run on several OS threads).
    A `.bN` destination may be any register of the width: it gets the old value's bits."""
    match = re.fullmatch(r"(red|atom)((?:\.(?:relaxed|release|acquire|acq_rel|sem|cta|gpu|sys))*)"
                         r"\.(global|shared(?:::cta)?)\.(add|min|max|and|or|xor|exch|cas)\.([usbf](?:32|64))", mnemonic)
    if match is None or match.group(5) not in _ATOMIC_TYPES:
        return None
    ctype, op = _ATOMIC_TYPES[match.group(5)], match.group(4)
    if op == "cas":
        if match.group(1) == "atom" and names == ["out0", "ptr0", "in0", "in1"]:
            return f"  *reinterpret_cast<{ctype}*>(&out0) = atomicCAS(({ctype}*)ptr0, ({ctype})in0, ({ctype})in1);"
        return None
    call = _ATOMIC_OPS[op]
    if match.group(1) == "red" and names == ["ptr0", "in0"]:
        return f"  {call}(({ctype}*)ptr0, ({ctype})in0);"
    if match.group(1) == "atom" and names == ["out0", "ptr0", "in0"]:
        return f"  *reinterpret_cast<{ctype}*>(&out0) = {call}(({ctype}*)ptr0, ({ctype})in0);"
    return None


def _packed_red(mnemonic: str, names: list[str]) -> str | None:
    """red.global.add.noftz.{f16x2,bf16x2}: an atomic add of each half, rounded to nearest even."""
    match = re.fullmatch(r"red((?:\.(?:relaxed|release|cta|gpu|sys))*)\.(global|shared(?:::cta)?)\.add\.noftz"
                         r"\.(f16x2|bf16x2)", mnemonic)
    if match is None or names != ["ptr0", "in0"]:
        return None
    return f"  tirx_sim::packed_add((unsigned int*)ptr0, in0, tirx_sim::{_FORMATS[match.group(3)]});"


def _vector_red(mnemonic: str, names: list[str]) -> str | None:
    """red.add.v{2,4,8}.f32: an atomic add per element."""
    match = re.fullmatch(r"red((?:\.(?:relaxed|release|cta|gpu|sys))*)\.global\.add\.v([248])\.f32", mnemonic)
    count = int(match.group(2)) if match else 0
    if match is None or names != ["ptr0"] + [f"in{i}" for i in range(count)]:
        return None
    return "\n".join(f"  atomicAdd((float*)ptr0 + {i}, in{i});" for i in range(count))


_BODIES = (_ldmatrix, _stmatrix, _mma, _cvt_pair, _ld_st, _cp_async, _tma, _fence, _atomic, _packed_red, _vector_red, _mov, _approx)


def _addressed(names: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """The table's forms that take a shared-window address as an integer (`shared_addr`, or a
    shared::cluster one, `cluster_addr`, which takes the place of `ptr0` and of one input number)
    read as the pointer form: the names the
    bodies expect, and (name, what it stands for) for each renamed parameter."""
    if "shared_addr" in names:
        at, pointer = names.index("shared_addr"), "tirx_sim::shared_at((unsigned int)shared_addr)"
    elif "cluster_addr" in names:
        at, pointer = names.index("cluster_addr"), "tirx_sim::cluster_shared_at(cluster_addr)"
    else:
        return names, []
    renamed, aliases = list(names), [("ptr0", pointer)]
    renamed[at] = "ptr0"
    for i in range(at + 1, len(names)):
        number = re.fullmatch(r"in(\d+)", names[i])
        if number:
            renamed[i] = f"in{int(number.group(1)) - 1}"
            aliases.append((renamed[i], names[i]))
    return renamed, aliases


def _aliased(body: str, aliases: list[tuple[str, str]]) -> str:
    """`body` in a block where each renamed parameter's name refers to what it stands for (bound
    first under names of their own, since a new name may be an old one's)."""
    bind = [f"  auto&& tirx_sim_alias{i} = {value};" for i, (_, value) in enumerate(aliases)]
    inner = [f"    auto&& {name} = tirx_sim_alias{i};" for i, (name, _) in enumerate(aliases)]
    return "\n".join(bind + ["  {"] + inner + ["  " + line for line in body.split("\n")] + ["  }"])


def cpu_helper(name: str, source: str, mnemonic: str | None = None, checked: bool = False) -> str | None:
    """The CPU version of the helper `name` whose CUDA source is `source` (the PTX table's
    `mnemonic`, when it is one of the table's), or None; `checked`: with the checkers' hooks
    (transpiler/sim/ptx_hooks.py)."""
    signature = _signature(source)
    if signature is None:
        return None
    head, names = signature
    if name in _FIXED:
        result = head.split(name, 1)[0].split()[-1]  # (the return type: the special registers' width)
        return f"{head}\n{_FIXED[name].replace('{result}', result)}\n}}"
    mnemonic = mnemonic or _mnemonic(source)
    if mnemonic is None:
        return None
    returns = " void " not in head.split("(", 1)[0] + " "
    guarded = bool(names) and names[-1] == "pred"  # the table's `pred=` forms: run where pred is non-zero
    if guarded:
        names = names[:-1]
    names, aliases = _addressed(names)
    body = _named_barrier(mnemonic, names, source) or _mbarrier(mnemonic, names, returns) or \
        _elect(mnemonic, names, returns) or _wgmma(mnemonic, names, source) or _cluster(mnemonic, names) or \
        _tcgen05(mnemonic, names, source)
    for make in _BODIES:
        if body is not None:
            break
        body = make(mnemonic, names)
    if body is None:
        return None
    if checked:  # (the hooks name the parameters as the bodies do: inside the aliases' block)
        from transpiler.sim.ptx_hooks import checked_body
        body = checked_body(mnemonic, names, body)
    if aliases:
        body = _aliased(body, aliases)
    if guarded:  # (destinations not written keep their values: the `_keep` forms' meaning)
        body = "  if (pred) {\n" + "\n".join("  " + line for line in body.split("\n")) + "\n  }"
    return f"{head}\n{body}\n}}"
