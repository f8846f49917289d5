"""The tcgen05 family (sm_100a): tensor memory (alloc, dealloc, relinquish, ld, st, cp,
shift), the fifth-generation MMA of every kind, commit, fences and waits."""
from __future__ import annotations

from dataclasses import replace

from transpiler.target.ptx.model import Family, Form, Operand, regs, vec

_G = r"cta_group::(?P<g>[12])"
_TADDR = Operand("in", "u32", name="taddr")

# registers per thread for one repetition of each tcgen05.ld / st shape, and the largest .num
# (T.alloc_tcgen05_ldst_frag, sema/calls/tcgen05_frag.py, sizes its fragments from this table too)
LD_SHAPES = _LD_SHAPES = {"32x32b": (1, 128), "16x64b": (1, 128), "16x128b": (2, 64), "16x256b": (4, 32), "16x32bx2": (1, 128)}


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


_BLOCK_SCALED = ("mxf8f6f4", "mxf4", "mxf4nvf4")
TMEM_OPERANDS = ("taddr", "d_tmem", "a_tmem", "sp_meta_tmem", "scale_a_tmem", "scale_b_tmem")


def _render(mnemonic: str, parts) -> Form:
    """parts: (operand, how) with how "$" (a register), "[]" (a tensor-memory address),
    "p" (the predicate enable_input_d, set from a register) or an int n > 0 (the first of n
    registers of one vector)."""
    ops, text, pred, k = [], [], None, 0
    for op, how in parts:
        if isinstance(how, int):
            ops.extend(op)
            text.append("{" + ", ".join(f"${k + i}" for i in range(how)) + "}")
            k += how
            continue
        ops.append(op)
        text.append({"$": f"${k}", "[]": f"[${k}]", "p": "p"}[how])
        pred = k if how == "p" else pred
        k += 1
    return Form(tuple(ops), "{\n.reg .pred p;\n" + f"setp.ne.b32 p, ${pred}, 0;\n{mnemonic} {', '.join(text)};\n}}")


def _tcgen05_mma(m):
    """[d-tmem], A, b-desc, {[sp-meta-tmem],} idesc, then by variant: {disable-output-lane,}
    enable-input-d {, scale-input-d} (the lane mask optional: 4 registers for one CTA, 8 for a
    pair; scale-input-d, an immediate 0..15, only for kind::f16 / tf32); the two scale
    factors' tensor-memory addresses and enable-input-d (block-scaled kinds); or
    enable-input-d {, zero-column-mask-desc} (`.ws`). A is a shared-memory descriptor
    (`a_desc`) or a tensor-memory address (`[a_tmem]`): the forms come in that order, and the
    argument's width (or a tmem buffer) chooses. `.ashift` needs A in tensor memory;
    `.collector::a::*` goes with the non-`.ws` forms, `.collector::b0..b3::*` with `.ws`."""
    kind, ws, sparse = m["kind"], bool(m["ws"]), bool(m["sp"])
    if ws and m["g"] == "2":
        return "`.ws` is a single-CTA form (cta_group::1)"
    if m["scale"] and kind not in _BLOCK_SCALED:
        return f"kind::{kind} has no block scaling"
    if not m["scale"] and kind in _BLOCK_SCALED:
        return f"kind::{kind} needs `.block_scale`"
    if ws and m["scale"]:
        return "`.ws` has no block-scaled kinds"
    if m["buf"] and (m["buf"] == "a") == ws:
        return ("`.ws` uses the B collector buffers (.collector::b0 .. b3)" if ws
                else "the collector buffer of this form is A (.collector::a::...)")
    if m["ashift"] and ws:
        return "`.ashift` is not a `.ws` qualifier"
    if why := _unfit_scaling(m):
        return why
    d = (Operand("in", "u32", name="d_tmem"), "[]")
    b = (Operand("in", "u64", name="b_desc"), "$")
    meta = ((Operand("in", "u32", name="sp_meta_tmem"), "[]"),) if sparse else ()
    idesc = (Operand("in", "u32", name="idesc"), "$")
    enable = (Operand("in", "pred", name="enable_input_d"), "p")
    scale_d = (Operand("imm", name="scale_input_d", choices=tuple(range(16))), "$")
    if m["scale"]:
        tails = [((Operand("in", "u32", name="scale_a_tmem"), "[]"), (Operand("in", "u32", name="scale_b_tmem"), "[]"),
                  enable)]
    elif ws:
        tails = [(enable,), (enable, (Operand("in", "u64", name="zero_column_mask_desc"), "$"))]
    else:
        lanes = 8 if m["g"] == "2" else 4
        tails = [((regs("in", "u32", lanes, "mask"), lanes), enable), (enable,)]
    a_forms = [(Operand("in", "u64", name="a_desc"), "$"), (Operand("in", "u32", name="a_tmem"), "[]")]
    if m["ashift"]:
        a_forms = a_forms[1:]
    forms = []
    for a in a_forms:
        for tail in tails:
            forms.append(_render(m[0], (d, a, b) + meta + (idesc,) + tail))
    feature = _mma_feature(m)
    forms = [replace(f, feature=feature) for f in forms] if feature else forms
    # the forms with scale-input-d come after the others (whose helper names stay as they were)
    if kind in ("f16", "tf32") and not ws and not sparse:
        for a in a_forms:
            for tail in tails:
                forms.append(replace(_render(m[0], (d, a, b) + meta + (idesc,) + tail + (scale_d,)),
                                     feature="tcgen05.scale_d"))
    return forms


# the scale-vector sizes each block-scaled kind takes ("": none written)
_VECTOR_SIZES = {"mxf8f6f4": ("", ".block32", ".scale_vec::1X"), "mxf4": ("", ".block32", ".scale_vec::2X"),
                 "mxf4nvf4": (".block16", ".block32", ".scale_vec::2X", ".scale_vec::4X")}


def _unfit_scaling(m) -> str:
    """Why the block scaling, `.ashift` and the A collector do not go together ("" when they do)."""
    kind, scale = m["kind"], m["scale"]
    if scale and kind in _VECTOR_SIZES:
        size = scale[len(".block_scale"):]
        if size not in _VECTOR_SIZES[kind]:
            sizes = " / ".join(f"`{s}`" if s else "none" for s in _VECTOR_SIZES[kind])
            return f"kind::{kind} takes the scale-vector sizes {sizes}"
    if m["ashift"] and scale:
        return "`.ashift` goes with the kinds without block scaling"
    if m["ashift"] and m["buf"] == "a" and m["cop"] in ("fill", "use"):
        return f"`.ashift` goes with `.collector::a::lastuse` / `::discard`, not `::{m['cop']}`"
    return ""


def _mma_feature(m) -> str | None:
    """The arch-specific FEATURES row narrower than tcgen05's that the form needs."""
    if m["kind"] == "i8":
        return "tcgen05.i8"
    if "scale_vec" in (m["scale"] or "") or (m["sp"] and m["kind"] in ("mxf4", "mxf4nvf4")):
        return "tcgen05.specific"
    return None


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
    Family(rf"tcgen05\.alloc\.{_G}\.sync\.aligned(?P<ss>\.shared::cta)?\.b32",
           lambda m: Form((Operand("addr", space="shared" if m["ss"] else "generic", name="slot"),
                           Operand("in", "u32", name="columns")), f"{m[0]} [$0], $1;"),
           "tcgen05", ("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32",
                       "tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32", "tcgen05.alloc.cta_group::1.sync.aligned.b32"),
           "allocate tensor-memory columns; the address is written to a shared slot (without `.shared::cta`: "
           "its generic address)"),
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
    Family(rf"tcgen05\.mma(?P<ws>\.ws)?(?P<sp>\.sp)?\.{_G}\.kind::(?P<kind>f16|tf32|f8f6f4|i8|mxf8f6f4|mxf4|mxf4nvf4)"
           r"(?P<scale>\.block_scale(?:\.block16|\.block32|\.scale_vec::(?:1X|2X|4X))?)?(?P<ashift>\.ashift)?"
           r"(?:\.collector::(?P<buf>a|b[0-3])::(?P<cop>fill|use|lastuse|discard))?", _tcgen05_mma, "tcgen05",
           ("tcgen05.mma.cta_group::1.kind::f16", "tcgen05.mma.cta_group::2.kind::tf32",
            "tcgen05.mma.cta_group::1.kind::f8f6f4", "tcgen05.mma.cta_group::1.kind::i8",
            "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale",
            "tcgen05.mma.cta_group::1.kind::mxf4.block_scale.block32",
            "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16",
            "tcgen05.mma.cta_group::2.kind::mxf8f6f4.block_scale.scale_vec::1X",
            "tcgen05.mma.ws.cta_group::1.kind::f16", "tcgen05.mma.ws.cta_group::1.kind::i8",
            "tcgen05.mma.sp.cta_group::1.kind::f16", "tcgen05.mma.sp.cta_group::2.kind::f8f6f4",
            "tcgen05.mma.sp.cta_group::1.kind::mxf8f6f4.block_scale.block32",
            "tcgen05.mma.ws.sp.cta_group::1.kind::tf32", "tcgen05.mma.cta_group::1.kind::f16.collector::a::fill",
            "tcgen05.mma.cta_group::2.kind::i8.ashift.collector::a::discard",
            "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.collector::a::lastuse",
            "tcgen05.mma.ws.cta_group::1.kind::tf32.collector::b2::use"),
           "D (tensor memory) = A * B (+ D * 2^-scale_input_d when enable_input_d; scale_input_d, an immediate "
           "0..15, kind::f16 / tf32 only, optional); A by shared-memory descriptor or in tensor "
           "memory, B by descriptor; `.sp`: A structured-sparse, its metadata in tensor memory; `.ws`: "
           "weight-stationary; `.collector::a::*` (`.ws`: `::b0`..`::b3`) reuses A (B) from the collector buffer, "
           "`.ashift` (A in tensor memory) shifts A's rows down by one"),
    Family(rf"tcgen05\.cp\.{_G}\.(?:128x256b|4x256b|128x128b|64x128b\.warpx2::(?:02_13|01_23)|32x128b\.warpx4)"
           r"(?:\.b8x16\.(?:b6x16_p32|b4x16_p64))?",
           _fixed("@ [$0], $1;", _TADDR, Operand("in", "u64", name="s_desc")), "tcgen05",
           ("tcgen05.cp.cta_group::1.128x256b", "tcgen05.cp.cta_group::1.32x128b.warpx4",
            "tcgen05.cp.cta_group::2.64x128b.warpx2::02_13", "tcgen05.cp.cta_group::1.128x128b.b8x16.b4x16_p64"),
           "shared memory (by descriptor) -> tensor memory"),
    Family(rf"tcgen05\.shift\.{_G}\.down", _fixed("@ [$0];", _TADDR), "tcgen05.specific",
           ("tcgen05.shift.cta_group::1.down",)),
]
