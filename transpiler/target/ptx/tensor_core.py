"""Tensor-core families: ldmatrix / stmatrix, mma.sync, wgmma (fence, mma_async, commit,
wait) and setmaxnreg."""
from __future__ import annotations

from transpiler.target.ptx.model import Family, Form, Operand, regs, vec

_SHARED = r"(?P<ss>\.shared(?:::cta)?)?"


def _space(m) -> Operand:
    """The shared-window address with `.shared{::cta}`, a generic one (into shared memory) without."""
    return Operand("addr", space="shared" if m["ss"] else "generic")


def _ldmatrix(m):
    n = int(m["n"])
    return Form(regs("out", "u32", n) + (_space(m),), f"{m[0]} {vec(0, n)}, [${n}];")


def _stmatrix(m):
    n = int(m["n"])
    return Form((_space(m),) + regs("in", "b32", n), f"{m[0]} [$0], {vec(1, n)};")


def _ldmatrix_b8(m):
    """ldmatrix .m16n16 (.trans, .x1 / .x2: two registers a matrix) on .b8 or, unpacked to bytes, on
    6- / 4-bit data (.b8x16.b6x16_p32 / .b4x16_p64); .m8n16 (no .trans) on the packed formats only."""
    shape, n = m["shape"], int(m["n"])
    if shape == "m16n16":
        if not m["trans"]:
            return "the .m16n16 loads are `.trans`"
        if n == 4:
            return ".m16n16 loads .x1 or .x2"
        n *= 2
    else:
        if m["trans"]:
            return "the .m8n16 loads take no `.trans`"
        if m["type"] == ".b8":
            return ".m8n16 loads the packed formats (.b8x16.b6x16_p32 / .b4x16_p64)"
    return Form(regs("out", "u32", n) + (_space(m),), f"{m[0]} {vec(0, n)}, [${n}];")


def _stmatrix_b8(m):
    n = int(m["n"])
    return Form((_space(m),) + regs("in", "b32", n), f"{m[0]} [$0], {vec(1, n)};")


def _mma(m):
    d, a, b, c = m["d"], m["a"], m["b"], m["c"]
    if a != b:
        return "A and B have one type"
    if a == "bf16" and (d != "f32" or c != "f32"):
        return "bf16 inputs accumulate in f32"
    if d != c:
        return f"D and C have one type (.{d}.{a}.{b}.{d})"
    k = int(m["shape"].split("k")[1])
    a_regs, b_regs = (4, 2) if k == 16 else (2, 1)
    d_kind, d_regs = ("f32", 4) if d == "f32" else ("u32", 2)
    c_kind, c_regs = ("f32", 4) if c == "f32" else ("b32", 2)
    ops = regs("out", d_kind, d_regs) + regs("in", "b32", a_regs) + regs("in", "b32", b_regs) + regs("in", c_kind, c_regs)
    groups, i = [], 0
    for count in (d_regs, a_regs, b_regs, c_regs):
        groups.append(vec(i, count))
        i += count
    return Form(ops, f"{m[0]} {', '.join(groups)};")


# -- wgmma.mma_async (PTX ISA 9.7.15.5.2, sm_90a) --------------------------------------------------
# Per thread of the warpgroup, the accumulator holds N/2 registers (f32, s32) or N/4 (f16 pairs);
# an A fragment in registers (the .rs form) is always four 32-bit registers.
_N_ALL = tuple(range(8, 257, 8))
_N_INT = (8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256)


def _wgmma(m):
    n, k, sparse = int(m["n"]), int(m["k"]), bool(m["sp"])
    d, a, b = m["d"], m["a"], m["b"]
    group = {"f16": "half", "bf16": "half", "tf32": "tf32", "e4m3": "fp8", "e5m2": "fp8",
             "s8": "int", "u8": "int", "b1": "bit"}[a]
    allowed = {
        "half": (16, ("f32", "f16") if a == "f16" else ("f32",), ("f16", "bf16")),
        "tf32": (8, ("f32",), ("tf32",)),
        "fp8": (32, ("f32", "f16"), ("e4m3", "e5m2")),
        "int": (32, ("s32",), ("s8", "u8")),
        "bit": (256, ("s32",), ("b1",)),
    }[group]
    if sparse and group == "bit":
        return "the single-bit form has no sparse variant"
    want_k = allowed[0] * (2 if sparse else 1)  # a sparse A holds half of K
    if k != want_k:
        return f"{a} inputs take k{want_k}" + (" in the sparse form" if sparse else "")
    if d not in allowed[1]:
        return f"{a} inputs accumulate in {' or '.join(allowed[1])}"
    if b not in allowed[2] or (group == "half" and a != b):
        return "B's type does not go with A's"
    if n not in (_N_INT if group in ("int", "bit") else _N_ALL):
        return f"no m64n{n} shape for {a}"
    if group == "bit" and not m["popc"]:
        return "the single-bit form is spelled `.and.popc`"
    if group != "bit" and m["popc"]:
        return "only the single-bit form takes `.and.popc`"
    if m["sat"] and group != "int":
        return "only the integer forms take `.satfinite`"
    acc_kind = {"f32": "f32", "f16": "b32", "s32": "s32"}[d]
    acc = n // 4 if d == "f16" else n // 2
    forms = []
    for form in ("ss", "rs"):
        a_ops = (Operand("in", "u64", name="a_desc"),) if form == "ss" else regs("in", "b32", 4, "a")
        ops = regs("inout", acc_kind, acc, "d") + a_ops + (Operand("in", "u64", name="b_desc"),)
        if sparse:  # the metadata register and the sparsity selector: which thread pair of each
            # quad holds it (16- and 32-bit inputs: either pair; 8-bit inputs: all four threads)
            ops += (Operand("in", "b32", name="sp_meta"),
                    Operand("imm", name="sp_sel", choices=(0, 1) if group in ("half", "tf32") else (0,)))
        scale_d = len(ops)
        ops += (Operand("in", "pred", name="scale_d"),)
        if group in ("half", "tf32", "fp8"):
            ops += (Operand("imm", name="scale_a", choices=(-1, 1)), Operand("imm", name="scale_b", choices=(-1, 1)))
        if group == "half":
            if form == "ss":
                ops += (Operand("imm", name="trans_a", choices=(0, 1)),)
            ops += (Operand("imm", name="trans_b", choices=(0, 1)),)
        a_text = f"${acc}" if form == "ss" else vec(acc, 4)
        first = acc + (1 if form == "ss" else 4)  # b_desc
        rest = [f"${i}" if i != scale_d else "p" for i in range(first, len(ops))]
        asm = ("{\n.reg .pred p;\n" + f"setp.ne.b32 p, ${scale_d}, 0;\n"
               + f"{m[0]} {vec(0, acc)}, {a_text}, {', '.join(rest)};\n" + "}")
        forms.append(Form(ops, asm))
    return forms


def _wgmma_pattern() -> str:
    return (r"wgmma\.mma_async(?P<sp>\.sp)?\.sync\.aligned\.m64n(?P<n>\d+)k(?P<k>\d+)(?P<sat>\.satfinite)?"
            r"\.(?P<d>f32|f16|s32)\.(?P<a>f16|bf16|tf32|e4m3|e5m2|s8|u8|b1)\.(?P<b>f16|bf16|tf32|e4m3|e5m2|s8|u8|b1)"
            r"(?P<popc>\.and\.popc)?")


def _fixed(asm: str, *operands: Operand):
    return lambda m: Form(tuple(operands), asm.replace("@", m[0]))


FAMILIES = [
    Family(rf"ldmatrix\.sync\.aligned\.m8n8\.x(?P<n>1|2|4)(?:\.trans)?{_SHARED}\.b16", _ldmatrix, "ldmatrix",
           ("ldmatrix.sync.aligned.m8n8.x4.shared.b16", "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
            "ldmatrix.sync.aligned.m8n8.x1.shared::cta.b16", "ldmatrix.sync.aligned.m8n8.x2.b16"),
           "load 8x8 b16 matrices from shared memory into registers"),
    Family(rf"stmatrix\.sync\.aligned\.m8n8\.x(?P<n>1|2|4)(?:\.trans)?{_SHARED}\.b16", _stmatrix, "stmatrix",
           ("stmatrix.sync.aligned.m8n8.x4.shared.b16", "stmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16",
            "stmatrix.sync.aligned.m8n8.x1.trans.b16"),
           "store 8x8 b16 matrices from registers to shared memory"),
    Family(rf"ldmatrix\.sync\.aligned\.(?P<shape>m16n16|m8n16)\.x(?P<n>1|2|4)(?P<trans>\.trans)?{_SHARED}"
           r"(?P<type>\.b8|\.b8x16\.b6x16_p32|\.b8x16\.b4x16_p64)", _ldmatrix_b8, "ldmatrix.b8",
           ("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8", "ldmatrix.sync.aligned.m16n16.x2.trans.shared::cta.b8",
            "ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b6x16_p32", "ldmatrix.sync.aligned.m8n16.x2.b8x16.b4x16_p64",
            "ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8x16.b4x16_p64"),
           "load 16x16 8-bit matrices (transposed), or 6- / 4-bit ones unpacked to bytes (sm_100a)"),
    Family(rf"stmatrix\.sync\.aligned\.m16n8\.x(?P<n>1|2|4)\.trans{_SHARED}\.b8", _stmatrix_b8, "ldmatrix.b8",
           ("stmatrix.sync.aligned.m16n8.x1.trans.shared.b8", "stmatrix.sync.aligned.m16n8.x4.trans.shared::cta.b8"),
           "store 16x8 8-bit matrices, transposed (sm_100a)"),
    Family(r"mma\.sync\.aligned\.(?P<shape>m16n8k16|m16n8k8)\.row\.col\.(?P<d>f32|f16)\.(?P<a>f16|bf16)\.(?P<b>f16|bf16)"
           r"\.(?P<c>f32|f16)", _mma, "mma.sync",
           ("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
            "mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16"),
           "warp-level matrix multiply-accumulate", clobbers_memory=False),
    Family(_wgmma_pattern(), _wgmma, "wgmma",
           ("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", "wgmma.mma_async.sync.aligned.m64n64k16.f16.f16.f16",
            "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", "wgmma.mma_async.sync.aligned.m64n8k8.f32.tf32.tf32",
            "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e5m2", "wgmma.mma_async.sync.aligned.m64n64k32.f16.e5m2.e5m2",
            "wgmma.mma_async.sync.aligned.m64n96k32.s32.s8.u8",
            "wgmma.mma_async.sync.aligned.m64n32k32.satfinite.s32.u8.u8",
            "wgmma.mma_async.sync.aligned.m64n16k256.s32.b1.b1.and.popc",
            "wgmma.mma_async.sp.sync.aligned.m64n128k32.f32.bf16.bf16", "wgmma.mma_async.sp.sync.aligned.m64n64k32.f16.f16.f16",
            "wgmma.mma_async.sp.sync.aligned.m64n32k16.f32.tf32.tf32",
            "wgmma.mma_async.sp.sync.aligned.m64n64k64.f32.e4m3.e5m2",
            "wgmma.mma_async.sp.sync.aligned.m64n48k64.satfinite.s32.s8.u8"),
           "warpgroup matrix multiply-accumulate: D (registers, read and written) = A * B + scale_d * D; "
           "A by descriptor (ss) or in four registers (rs); `.sp`: A structured-sparse (half of K), with a metadata "
           "register and a sparsity selector", clobbers_memory=True),
    Family(r"wgmma\.fence\.sync\.aligned", _fixed("@;"), "wgmma", ("wgmma.fence.sync.aligned",)),
    Family(r"wgmma\.commit_group\.sync\.aligned", _fixed("@;"), "wgmma", ("wgmma.commit_group.sync.aligned",)),
    Family(r"wgmma\.wait_group\.sync\.aligned", _fixed("@ $0;", Operand("imm", name="groups")), "wgmma",
           ("wgmma.wait_group.sync.aligned",)),
    Family(r"setmaxnreg\.(?:inc|dec)\.sync\.aligned\.u32",
           _fixed("@ $0;", Operand("imm", name="registers", choices=tuple(range(24, 257, 8)))), "setmaxnreg",
           ("setmaxnreg.inc.sync.aligned.u32", "setmaxnreg.dec.sync.aligned.u32"),
           "raise or lower the warp's register budget (24 to 256, a multiple of 8)"),
]
