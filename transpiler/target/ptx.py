"""Architectures, and the table of helper functions the generated CUDA may need
(each with the minimum architecture it requires). Data only."""
from __future__ import annotations

import re

from transpiler.target.arch import FEATURES

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


# ---- the PTX instruction table (docs/design.md, decisions 15 and 16) -------------------------------------------------
#
# Each known instruction becomes one small `__device__ __forceinline__` helper
# wrapping `asm volatile`. Operands, in call order, are registers written
# (passed by reference: `r[0]`), values, memory addresses (pointers, converted
# to the shared window where the instruction wants one) and compile-time
# immediates (template parameters).

from dataclasses import dataclass  # noqa: E402

_C = {"u32": ("unsigned int", "uint32", "r"), "f32": ("float", "float32", "f"), "u64": ("unsigned long long", "uint64", "l"),
      "s32": ("int", "int32", "r")}


@dataclass(frozen=True)
class Operand:
    role: str  # out in addr imm
    kind: str = "u32"  # register kind for out/in: u32 f32 u64 s32
    space: str = ""  # for addr: shared or global
    name: str = ""

    @property
    def ctype(self) -> str:
        return _C[self.kind][0]

    @property
    def dtype(self) -> str:
        return _C[self.kind][1]


@dataclass(frozen=True)
class Instruction:
    mnemonic: str
    operands: tuple[Operand, ...]
    asm: str  # PTX text with %0... in the order: outputs, inputs (incl. addresses), immediates
    min_arch: int
    suffix: str = ""  # "a" when the instruction needs sm_90a / sm_100a
    returns: str | None = None  # register kind of a returned value (try_wait's predicate as u32)

    @property
    def helper(self) -> str:
        return "tirx_ptx_" + "".join(c if c.isalnum() else "_" for c in self.mnemonic).strip("_")

    def source(self) -> str:
        params, outs, ins, imms = [], [], [], []
        counts = {"out": 0, "in": 0, "addr": 0, "imm": 0}
        prefix = {"out": "out", "in": "in", "addr": "ptr", "imm": "value"}
        for op in self.operands:
            name = op.name or f"{prefix[op.role]}{counts[op.role]}"
            counts[op.role] += 1
            if op.role == "out":
                params.append(f"{op.ctype}& {name}")
                outs.append(f'"={_C[op.kind][2]}"({name})')
            elif op.role == "in":
                params.append(f"{op.ctype} {name}")
                ins.append(f'"{_C[op.kind][2]}"({name})')
            elif op.role == "addr":
                params.append(f"const void* {name}")
                ins.append(f'"r"((unsigned int)__cvta_generic_to_shared({name}))' if op.space == "shared"
                           else f'"l"({name})')
            else:
                imms.append(f"int {name}")
                ins.append(f'"n"({name})')
        result = "void"
        body = []
        if self.returns:
            ctype, _, constraint = _C[self.returns]
            result = ctype
            body.append(f"  {ctype} result;")
            outs.insert(0, f'"={constraint}"(result)')
        # mma.sync only reads and writes registers; everything else orders memory
        clobber = "" if self.mnemonic.startswith("mma.") else ' : "memory"'
        text = self.asm.replace("\n", "\\n\\t")
        sections = "".join(" :" + (" " + ", ".join(group) if group else "") for group in (outs, ins))
        body.append(f'  asm volatile("{text}"{sections}{clobber});')
        if self.returns:
            body.append("  return result;")
        template = f"template <{', '.join(imms)}>\n" if imms else ""
        return (f"{template}__device__ __forceinline__ {result} {self.helper}({', '.join(params)}) {{\n"
                + "\n".join(body) + "\n}")


def _regs(role, kind, count, start=0):
    return tuple(Operand(role, kind) for _ in range(count))


def _placeholders(start: int, count: int) -> str:
    return ", ".join(f"%{i}" for i in range(start, start + count))


def _ldmatrix(m):
    n = int(m.group(1))
    ops = _regs("out", "u32", n) + (Operand("addr", space="shared"),)
    return ops, f"{m.group(0)} {{{_placeholders(0, n)}}}, [%{n}];", *FEATURES["ldmatrix"]


def _stmatrix(m):
    n = int(m.group(1))
    ops = (Operand("addr", space="shared"),) + _regs("in", "u32", n)
    return ops, f"{m.group(0)} [%0], {{{_placeholders(1, n)}}};", *FEATURES["stmatrix"]


def _mma(m):
    shape, d, a, b, c = m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)
    if a != b:
        return None
    k = int(shape.split("k")[1])
    a_regs, b_regs = (4, 2) if k == 16 else (2, 1)
    d_kind, d_regs = ("f32", 4) if d == "f32" else ("u32", 2)
    c_kind, c_regs = ("f32", 4) if c == "f32" else ("u32", 2)
    if a == "bf16" and (d != "f32" or c != "f32"):
        return None
    ops = _regs("out", d_kind, d_regs) + _regs("in", "u32", a_regs) + _regs("in", "u32", b_regs) + _regs("in", c_kind, c_regs)
    i = 0
    groups = []
    for count in (d_regs, a_regs, b_regs, c_regs):
        groups.append("{" + _placeholders(i, count) + "}")
        i += count
    return ops, f"{m.group(0)} {', '.join(groups)};", *FEATURES["mma.sync"]


def _cp_async(m):
    ops = (Operand("addr", space="shared"), Operand("addr", space="global"), Operand("imm", name="bytes"))
    return ops, f"{m.group(0)} [%0], [%1], %2;", *FEATURES["cp.async"]


def _fixed(asm: str, feature: str, operands=()):
    arch, suffix = FEATURES[feature]
    return lambda m: (tuple(operands), asm.replace("$", m.group(0)), arch, suffix)


def _tcgen05_ld(m):
    n = int(m.group(1))
    ops = _regs("out", "u32", n) + (Operand("in", "u32", name="taddr"),)
    return ops, f"{m.group(0)} {{{_placeholders(0, n)}}}, [%{n}];", *FEATURES["tcgen05"]


def _tcgen05_st(m):
    n = int(m.group(1))
    ops = (Operand("in", "u32", name="taddr"),) + _regs("in", "u32", n)
    return ops, f"{m.group(0)} [%0], {{{_placeholders(1, n)}}};", *FEATURES["tcgen05"]


def _bulk_tensor(m):
    dims = int(m.group(1))
    ops = ((Operand("addr", space="shared", name="dst"), Operand("in", "u64", name="tensor_map"))
           + tuple(Operand("in", "s32", name=f"c{i}") for i in range(dims)) + (Operand("addr", space="shared", name="mbar"),))
    coords = _placeholders(2, dims)
    return ops, f"{m.group(0)} [%0], [%1, {{{coords}}}], [%{2 + dims}];", *FEATURES["bulk"]


_SHARED = r"\.shared(?:::cta)?"
_FAMILIES = [
    (rf"ldmatrix\.sync\.aligned\.m8n8\.x(1|2|4)(?:\.trans)?{_SHARED}\.b16", _ldmatrix),
    (rf"stmatrix\.sync\.aligned\.m8n8\.x(1|2|4)(?:\.trans)?{_SHARED}\.b16", _stmatrix),
    (r"mma\.sync\.aligned\.(m16n8k16|m16n8k8)\.row\.col\.(f32|f16)\.(f16|bf16)\.(f16|bf16)\.(f32|f16)", _mma),
    (rf"cp\.async\.(?:ca|cg){_SHARED}\.global", _cp_async),
    (r"cp\.async\.commit_group", _fixed("$;", "cp.async")),
    (r"cp\.async\.wait_group", _fixed("$ %0;", "cp.async", (Operand("imm", name="groups"),))),
    (r"cp\.async\.wait_all", _fixed("$;", "cp.async")),
    (rf"mbarrier\.init{_SHARED}\.b64", _fixed("$ [%0], %1;", "mbarrier", (Operand("addr", space="shared"), Operand("in", "u32", name="count")))),
    (rf"mbarrier\.arrive{_SHARED}\.b64", _fixed("$ _, [%0];", "mbarrier.tx", (Operand("addr", space="shared"),))),
    (rf"mbarrier\.arrive\.expect_tx{_SHARED}\.b64",
     _fixed("$ _, [%0], %1;", "mbarrier.tx", (Operand("addr", space="shared"), Operand("in", "u32", name="tx_bytes")))),
    (rf"mbarrier\.try_wait\.parity{_SHARED}\.b64",
     lambda m: ((Operand("addr", space="shared"), Operand("in", "u32", name="parity")),
                "{\n.reg .pred p;\n" + m.group(0) + " p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}", *FEATURES["mbarrier.tx"])),
    (r"fence\.proxy\.async(?:\.shared::cta|\.global)?", _fixed("$;", "bulk")),
    (r"fence\.mbarrier_init\.release\.cluster", _fixed("$;", "bulk")),
    (r"fence\.(?:acq_rel|sc)\.(?:cta|gpu|sys)", _fixed("$;", "fence")),
    (r"cp\.async\.bulk\.shared::cluster\.global\.mbarrier::complete_tx::bytes",
     _fixed("$ [%0], [%1], %2, [%3];", "bulk", (Operand("addr", space="shared", name="dst"),
                                               Operand("addr", space="global", name="src"),
                                               Operand("in", "u32", name="bytes"), Operand("addr", space="shared", name="mbar")))),
    (r"cp\.async\.bulk\.tensor\.([1-5])d\.shared::cluster\.global\.tile\.mbarrier::complete_tx::bytes", _bulk_tensor),
    (r"cp\.async\.bulk\.commit_group", _fixed("$;", "bulk")),
    (r"cp\.async\.bulk\.wait_group(?:\.read)?", _fixed("$ %0;", "bulk", (Operand("imm", name="groups"),))),
    (r"wgmma\.fence\.sync\.aligned", _fixed("$;", "wgmma")),
    (r"wgmma\.commit_group\.sync\.aligned", _fixed("$;", "wgmma")),
    (r"wgmma\.wait_group\.sync\.aligned", _fixed("$ %0;", "wgmma", (Operand("imm", name="groups"),))),
    (r"setmaxnreg\.(?:inc|dec)\.sync\.aligned\.u32", _fixed("$ %0;", "setmaxnreg", (Operand("imm", name="registers"),))),
    (r"tcgen05\.alloc\.cta_group::[12]\.sync\.aligned\.shared::cta\.b32",
     _fixed("$ [%0], %1;", "tcgen05", (Operand("addr", space="shared", name="slot"), Operand("in", "u32", name="columns")))),
    (r"tcgen05\.dealloc\.cta_group::[12]\.sync\.aligned\.b32",
     _fixed("$ %0, %1;", "tcgen05", (Operand("in", "u32", name="taddr"), Operand("in", "u32", name="columns")))),
    (r"tcgen05\.relinquish_alloc_permit\.cta_group::[12]\.sync\.aligned", _fixed("$;", "tcgen05")),
    (r"tcgen05\.ld\.sync\.aligned\.32x32b\.x(1|2|4|8|16|32|64|128)\.b32", _tcgen05_ld),
    (r"tcgen05\.st\.sync\.aligned\.32x32b\.x(1|2|4|8|16|32|64|128)\.b32", _tcgen05_st),
    (r"tcgen05\.wait::(?:ld|st)\.sync\.aligned", _fixed("$;", "tcgen05")),
    (r"tcgen05\.commit\.cta_group::[12]\.mbarrier::arrive::one\.shared::cluster\.b64",
     _fixed("$ [%0];", "tcgen05", (Operand("addr", space="shared", name="mbar"),))),
    (r"tcgen05\.fence::(?:before|after)_thread_sync", _fixed("$;", "tcgen05")),
]
_COMPILED = [(re.compile(pattern + r"$"), build) for pattern, build in _FAMILIES]

# Spellings shown in "did you mean" help.
EXAMPLES = (
    "ldmatrix.sync.aligned.m8n8.x4.shared.b16", "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
    "stmatrix.sync.aligned.m8n8.x4.shared.b16", "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
    "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "cp.async.cg.shared.global", "cp.async.ca.shared.global",
    "cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all", "mbarrier.init.shared::cta.b64",
    "mbarrier.arrive.shared::cta.b64", "mbarrier.arrive.expect_tx.shared::cta.b64",
    "mbarrier.try_wait.parity.shared::cta.b64", "fence.proxy.async.shared::cta", "fence.mbarrier_init.release.cluster",
    "fence.acq_rel.gpu", "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
    "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes", "cp.async.bulk.commit_group",
    "cp.async.bulk.wait_group", "wgmma.fence.sync.aligned", "wgmma.commit_group.sync.aligned",
    "wgmma.wait_group.sync.aligned", "setmaxnreg.inc.sync.aligned.u32", "setmaxnreg.dec.sync.aligned.u32",
    "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32", "tcgen05.dealloc.cta_group::1.sync.aligned.b32",
    "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned", "tcgen05.ld.sync.aligned.32x32b.x8.b32",
    "tcgen05.st.sync.aligned.32x32b.x8.b32", "tcgen05.wait::ld.sync.aligned", "tcgen05.wait::st.sync.aligned",
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64", "tcgen05.fence::before_thread_sync",
    "tcgen05.fence::after_thread_sync",
)

_BY_HELPER: dict[str, Instruction] = {}


def lookup(mnemonic: str) -> Instruction | None:
    """The instruction for an exact PTX mnemonic, or None when tirxc does not know it."""
    for pattern, build in _COMPILED:
        match = pattern.match(mnemonic)
        if match:
            built = build(match)
            if built is None:
                return None
            operands, asm, arch, suffix = built
            returns = "u32" if mnemonic.startswith("mbarrier.try_wait") else None
            instr = Instruction(mnemonic, tuple(operands), asm, arch, suffix, returns)
            _BY_HELPER[instr.helper] = instr
            return instr
    return None


def close_mnemonics(mnemonic: str) -> list[str]:
    from difflib import get_close_matches  # an error path only

    return get_close_matches(mnemonic, EXAMPLES, n=3, cutoff=0.5)


def from_attribute_path(parts) -> str:
    """`T.ptx.tcgen05.wait__ld.sync.aligned` -> "tcgen05.wait::ld.sync.aligned" (`__` is `::`,
    a trailing `_` escapes a Python keyword such as `async_`)."""
    return ".".join(p.rstrip("_") if p.endswith("_") and not p.endswith("__") else p for p in parts).replace("__", "::")


def is_helper(name: str) -> bool:
    return name in HELPERS or name.split("<", 1)[0] in _BY_HELPER


def helper_source(name: str) -> str:
    base = name.split("<", 1)[0]
    if base in HELPERS:
        return HELPERS[base][2]
    return _BY_HELPER[base].source()


def helper_arch(name: str) -> tuple[int, str]:
    base = name.split("<", 1)[0]
    if base in HELPERS:
        return HELPERS[base][0], ""
    instr = _BY_HELPER[base]
    return instr.min_arch, instr.suffix
