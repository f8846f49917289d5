"""mma.sp / mma.sp::ordered_metadata (PTX ISA 9.7.15.6): the warp-level multiply-accumulate with a
2:4 structured-sparse A (its fragment holds half of K), a metadata register e and the sparsity
selector f, an immediate naming the threads that give the metadata: one thread of each group of
four (0..3), a thread pair (0 or 1) or all of them (0), per shape and type as the ISA lists."""
from __future__ import annotations

from transpiler.target.ptx.model import Family, Form, Operand, regs, vec

# (type class, shape) -> registers of A, B, and the selector's values
_LINES = {
    ("16", "m16n8k16"): (2, 2, (0, 1, 2, 3)), ("16", "m16n8k32"): (4, 4, (0, 1)),
    ("tf32", "m16n8k8"): (2, 2, (0, 1, 2, 3)), ("tf32", "m16n8k16"): (4, 4, (0, 1)),
    ("8", "m16n8k32"): (2, 2, (0, 1)), ("8", "m16n8k64"): (4, 4, (0,)),
    ("4", "m16n8k64"): (2, 2, (0, 1)), ("4", "m16n8k128"): (4, 4, (0,)),
    ("fp8", "m16n8k64"): (4, 4, (0,)),
}
_CLASS = {"f16": "16", "bf16": "16", "tf32": "tf32", "s8": "8", "u8": "8", "s4": "4", "u4": "4",
          "e4m3": "fp8", "e5m2": "fp8"}


def _mma_sp(m):
    d, a, b, c, shape = m["d"], m["a"], m["b"], m["c"], m["shape"]
    cls = _CLASS[a]
    if cls != _CLASS[b] or (cls in ("16", "tf32") and a != b):
        return f"no sparse line pairs .{a} with .{b}"
    if (cls, shape) not in _LINES:
        return f"{shape} is not a sparse .{a} shape"
    integer = cls in ("8", "4")
    if integer != (d == "s32") or integer != (c == "s32"):
        return "the integer lines accumulate in .s32, the floating-point ones in .f32 (or .f16)"
    if m["sat"] and not integer:
        return "`.satfinite` goes with the integer lines"
    if d != c:
        return "D and C have one type"
    if d == "f16" and a != "f16":
        return "only the .f16 lines accumulate in .f16"
    a_n, b_n, selectors = _LINES[(cls, shape)]
    c_n, kind = {"f32": (4, "f32"), "f16": (2, "b32"), "s32": (4, "s32")}[d]
    ops = (regs("out", kind, c_n) + regs("in", "b32", a_n) + regs("in", "b32", b_n) + regs("in", kind, c_n)
           + (Operand("in", "b32", name="metadata"), Operand("imm", name="selector", choices=selectors)))
    groups, i = [], 0
    for count in (c_n, a_n, b_n, c_n):
        groups.append(vec(i, count))
        i += count
    return Form(ops, f"{m[0]} {', '.join(groups)}, ${i}, ${i + 1};", feature="cvt.fp8" if cls == "fp8" else None)


_T = "f16|bf16|tf32|e4m3|e5m2|s8|u8|s4|u4"
FAMILIES = [
    Family(rf"mma\.sp(?:::ordered_metadata)?\.sync\.aligned\.(?P<shape>m16n8k\d+)\.row\.col(?P<sat>\.satfinite)?"
           rf"\.(?P<d>f32|f16|s32)\.(?P<a>{_T})\.(?P<b>{_T})\.(?P<c>f32|f16|s32)", _mma_sp, "mma.sync",
           ("mma.sp.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
            "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32",
            "mma.sp.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16",
            "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f16.f16.f16.f16",
            "mma.sp.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
            "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.tf32.tf32.f32",
            "mma.sp.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32",
            "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.s32.u8.u8.s32",
            "mma.sp.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32",
            "mma.sp::ordered_metadata.sync.aligned.m16n8k128.row.col.satfinite.s32.u4.s4.s32",
            "mma.sp::ordered_metadata.sync.aligned.m16n8k64.row.col.f32.e4m3.e5m2.f32"),
           "sparse warp-level matrix multiply-accumulate: A holds half of K (2:4 sparsity), metadata says which "
           "half, selector which threads give it", clobbers_memory=False),
]
