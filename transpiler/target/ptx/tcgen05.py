"""The tcgen05 family (sm_100a): tensor memory (alloc, dealloc, relinquish, ld, st, cp,
shift), the fifth-generation MMA of every kind, commit, fences and waits."""
from __future__ import annotations

from transpiler.target.ptx.model import Family, Form, Operand, regs, vec

_G = r"cta_group::(?P<g>[12])"
_TADDR = Operand("in", "u32", name="taddr")

# registers per thread for one repetition of each tcgen05.ld / st shape, and the largest .num
_LD_SHAPES = {"32x32b": (1, 128), "16x64b": (1, 128), "16x128b": (2, 64), "16x256b": (4, 32), "16x32bx2": (1, 128)}


def _count(m) -> int | str:
    per, most = _LD_SHAPES[m["shape"]]
    num = int(m["num"])
    if num > most:
        return f"{m['shape']} repeats at most x{most}"
    return per * num


def _tcgen05_ld(m):
    n = _count(m)
    if isinstance(n, str):
        return n
    ops = regs("out", "b32", n) + (_TADDR,)
    if m["shape"] == "16x32bx2":
        ops += (Operand("imm", name="half_split_offset"),)
        return Form(ops, f"{m[0]} {vec(0, n)}, [${n}], ${n + 1};")
    return Form(ops, f"{m[0]} {vec(0, n)}, [${n}];")


def _tcgen05_st(m):
    n = _count(m)
    if isinstance(n, str):
        return n
    if m["shape"] == "16x32bx2":
        ops = (_TADDR, Operand("imm", name="half_split_offset")) + regs("in", "b32", n)
        return Form(ops, f"{m[0]} [$0], $1, {vec(2, n)};")
    return Form((_TADDR,) + regs("in", "b32", n), f"{m[0]} [$0], {vec(1, n)};")


def _tcgen05_mma(m):
    """[d-tmem], a-desc, b-desc, idesc, {disable-output-lane}, enable-input-d: the lane mask is
    optional (4 registers for one CTA, 8 for a pair); block-scaled kinds take the two scale
    factors' tensor-memory addresses instead."""
    lanes = 8 if m["g"] == "2" else 4
    base = (Operand("in", "u32", name="d_tmem"), Operand("in", "u64", name="a_desc"), Operand("in", "u64", name="b_desc"),
            Operand("in", "u32", name="idesc"))
    enable = Operand("in", "pred", name="enable_input_d")
    pre = "{\n.reg .pred p;\n"
    if m["scale"]:
        if m["kind"] not in ("mxf8f6f4", "mxf4", "mxf4nvf4"):
            return f"kind::{m['kind']} has no block scaling"
        ops = base + (Operand("in", "u32", name="scale_a_tmem"), Operand("in", "u32", name="scale_b_tmem"), enable)
        return Form(ops, pre + f"setp.ne.b32 p, $6, 0;\n{m[0]} [$0], $1, $2, $3, [$4], [$5], p;\n}}")
    if m["kind"] in ("mxf8f6f4", "mxf4", "mxf4nvf4"):
        return f"kind::{m['kind']} needs `.block_scale`"
    masked = base + regs("in", "u32", lanes, "mask") + (enable,)
    return [Form(masked, pre + f"setp.ne.b32 p, ${4 + lanes}, 0;\n{m[0]} [$0], $1, $2, $3, {vec(4, lanes)}, p;\n}}"),
            Form(base + (enable,), pre + f"setp.ne.b32 p, $4, 0;\n{m[0]} [$0], $1, $2, $3, p;\n}}")]


def _fixed(asm: str, *operands: Operand):
    return lambda m: Form(tuple(operands), asm.replace("@", m[0]))


def _commit(m):
    mbar = Operand("addr", space="shared", name="mbar")
    if m["mc"]:
        return Form((mbar, Operand("in", "u16", name="cta_mask")), f"{m[0]} [$0], $1;")
    return Form((mbar,), f"{m[0]} [$0];")


_NUM = r"\.x(?P<num>1|2|4|8|16|32|64|128)"
_SHAPE = r"(?P<shape>32x32b|16x64b|16x128b|16x256b|16x32bx2)"
FAMILIES = [
    Family(rf"tcgen05\.alloc\.{_G}\.sync\.aligned\.shared::cta\.b32",
           _fixed("@ [$0], $1;", Operand("addr", space="shared", name="slot"), Operand("in", "u32", name="columns")),
           "tcgen05", ("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
                       "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32"),
           "allocate tensor-memory columns; the address is written to a shared slot"),
    Family(rf"tcgen05\.dealloc\.{_G}\.sync\.aligned\.b32",
           _fixed("@ $0, $1;", _TADDR, Operand("in", "u32", name="columns")), "tcgen05",
           ("tcgen05.dealloc.cta_group::1.sync.aligned.b32",)),
    Family(rf"tcgen05\.relinquish_alloc_permit\.{_G}\.sync\.aligned", _fixed("@;"), "tcgen05",
           ("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned",)),
    Family(rf"tcgen05\.ld\.sync\.aligned\.{_SHAPE}{_NUM}(?P<pack>\.pack::16b)?\.b32", _tcgen05_ld, "tcgen05",
           ("tcgen05.ld.sync.aligned.32x32b.x8.b32", "tcgen05.ld.sync.aligned.16x64b.x4.b32",
            "tcgen05.ld.sync.aligned.16x128b.x2.pack::16b.b32", "tcgen05.ld.sync.aligned.16x256b.x1.b32",
            "tcgen05.ld.sync.aligned.16x32bx2.x2.b32"),
           "tensor memory -> registers (any 32-bit registers)"),
    Family(rf"tcgen05\.st\.sync\.aligned\.{_SHAPE}{_NUM}(?P<pack>\.unpack::16b)?\.b32", _tcgen05_st, "tcgen05",
           ("tcgen05.st.sync.aligned.32x32b.x8.b32", "tcgen05.st.sync.aligned.16x128b.x1.unpack::16b.b32",
            "tcgen05.st.sync.aligned.16x32bx2.x1.b32"),
           "registers -> tensor memory"),
    Family(r"tcgen05\.wait::(?:ld|st)\.sync\.aligned", _fixed("@;"), "tcgen05",
           ("tcgen05.wait::ld.sync.aligned", "tcgen05.wait::st.sync.aligned")),
    Family(rf"tcgen05\.commit\.{_G}\.mbarrier::arrive::one(?:\.shared::cluster)?(?P<mc>\.multicast::cluster)?\.b64",
           _commit, "tcgen05",
           ("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64",
            "tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64"),
           "arrive on an mbarrier when the thread's earlier tcgen05 operations complete"),
    Family(r"tcgen05\.fence::(?:before|after)_thread_sync", _fixed("@;"), "tcgen05",
           ("tcgen05.fence::before_thread_sync", "tcgen05.fence::after_thread_sync")),
    Family(rf"tcgen05\.mma\.{_G}\.kind::(?P<kind>f16|tf32|f8f6f4|i8|mxf8f6f4|mxf4|mxf4nvf4)"
           r"(?P<scale>\.block_scale(?:\.block16|\.block32|\.scale_vec::(?:1X|2X|4X))?)?", _tcgen05_mma, "tcgen05",
           ("tcgen05.mma.cta_group::1.kind::f16", "tcgen05.mma.cta_group::2.kind::tf32",
            "tcgen05.mma.cta_group::1.kind::f8f6f4", "tcgen05.mma.cta_group::1.kind::i8",
            "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale",
            "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.block32",
            "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16"),
           "D (tensor memory) = A * B (+ D when enable_input_d); A and B by shared-memory descriptors"),
    Family(rf"tcgen05\.cp\.{_G}\.(?:128x256b|4x256b|128x128b|64x128b\.warpx2::(?:02_13|01_23)|32x128b\.warpx4)"
           r"(?:\.b8x16\.(?:b6x16_p32|b4x16_p64))?",
           _fixed("@ [$0], $1;", _TADDR, Operand("in", "u64", name="s_desc")), "tcgen05",
           ("tcgen05.cp.cta_group::1.128x256b", "tcgen05.cp.cta_group::1.32x128b.warpx4",
            "tcgen05.cp.cta_group::2.64x128b.warpx2::02_13", "tcgen05.cp.cta_group::1.128x128b.b8x16.b4x16_p64"),
           "shared memory (by descriptor) -> tensor memory"),
    Family(rf"tcgen05\.shift\.{_G}\.down", _fixed("@ [$0];", _TADDR), "tcgen05",
           ("tcgen05.shift.cta_group::1.down",)),
]
