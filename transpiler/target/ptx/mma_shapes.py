"""The mma.sync shapes and types beyond f16 / bf16 m16n8k8 / k16 (PTX ISA 9.7.14.5.14): integer
(s8 / u8, s4 / u4, with `.satfinite`; b1 with `.and` / `.xor` `.popc`), tf32, fp8 (e4m3 / e5m2, sm_89;
m16n8k16 / k32, accumulating in f32 or f16), f64 (m8n8k4, and the sm_90 m16n8k4 / k8 / k16; an optional
rounding), and the f16 m8n8k4 with any layouts."""
from __future__ import annotations

from transpiler.target.ptx.model import Family, Form, regs, vec

# (shape, input class) -> registers of A, B, C / D, and the FEATURES row
_INT = {("m8n8k16", "8"): (1, 1, 2, "mma.sync.int"), ("m16n8k16", "8"): (2, 1, 4, "mma.sync"),
        ("m16n8k32", "8"): (4, 2, 4, "mma.sync"), ("m8n8k32", "4"): (1, 1, 2, "mma.sync.int"),
        ("m16n8k32", "4"): (2, 1, 4, "mma.sync"), ("m16n8k64", "4"): (4, 2, 4, "mma.sync")}
_F64 = {"m8n8k4": (1, 1, 2, "mma.sync"), "m16n8k4": (2, 1, 4, "mma.f64"), "m16n8k8": (4, 2, 4, "mma.f64"),
        "m16n8k16": (8, 4, 4, "mma.f64")}


def _form(m, a_n: int, b_n: int, c_n: int, d_kind: str, c_kind: str, in_kind: str, feature: str) -> Form:
    ops = regs("out", d_kind, c_n) + regs("in", in_kind, a_n) + regs("in", in_kind, b_n) + regs("in", c_kind, c_n)
    groups, i = [], 0
    for count in (c_n, a_n, b_n, c_n):
        groups.append(vec(i, count))
        i += count
    return Form(ops, f"{m[0]} {', '.join(groups)};", feature=feature)


def _int(m):
    a, b = m["a"], m["b"]
    if a[1] != b[1]:
        return "A and B are both 8-bit or both 4-bit"
    key = (m["shape"], a[1])
    if key not in _INT:
        return f"{m['shape']} is not an {a[1]}-bit integer shape"
    a_n, b_n, c_n, feature = _INT[key]
    return _form(m, a_n, b_n, c_n, "s32", "s32", "b32", feature)


_B1 = {"m8n8k128": (1, 1, 2, "mma.sync.int"), "m16n8k128": (2, 1, 4, "mma.sync"), "m16n8k256": (4, 2, 4, "mma.sync")}


def _b1(m):
    a_n, b_n, c_n, feature = _B1[m["shape"]]
    return _form(m, a_n, b_n, c_n, "s32", "s32", "b32", feature)


def _fp8(m):
    """mma.sync.aligned.m16n8k16 / k32.row.col.dtype.f8type.f8type.ctype, dtype = ctype (f32 or f16)."""
    if m["d"] != m["c"]:
        return "the fp8 lines accumulate in one type (.f32.<a>.<b>.f32 or .f16.<a>.<b>.f16)"
    a_n, b_n = (2, 1) if m["shape"] == "m16n8k16" else (4, 2)
    c_n, kind = (4, "f32") if m["d"] == "f32" else (2, "b32")
    return _form(m, a_n, b_n, c_n, kind, kind, "b32", "cvt.fp8")


def _f64(m):
    a_n, b_n, c_n, feature = _F64[m["shape"]]
    return _form(m, a_n, b_n, c_n, "f64", "f64", "f64", feature)


def _tf32(m):
    a_n, b_n = (2, 1) if m["shape"] == "m16n8k4" else (4, 2)
    return _form(m, a_n, b_n, 4, "f32", "f32", "b32", "mma.sync")


def _m8n8k4(m):
    """mma.sync.aligned.m8n8k4.alayout.blayout.dtype.f16.f16.ctype: 8 f32 or 4 f16x2 registers."""
    d, c = m["d"], m["c"]
    if (d, c) == ("f16", "f32"):
        return "an f32 C accumulates into an f32 D"
    d_kind, d_n = ("f32", 8) if d == "f32" else ("b32", 4)
    c_kind, c_n = ("f32", 8) if c == "f32" else ("b32", 4)
    ops = regs("out", d_kind, d_n) + regs("in", "b32", 2) + regs("in", "b32", 2) + regs("in", c_kind, c_n)
    return Form(ops, f"{m[0]} {vec(0, d_n)}, {vec(d_n, 2)}, {vec(d_n + 2, 2)}, {vec(d_n + 4, c_n)};",
                feature="mma.sync.int")


FAMILIES = [
    Family(r"mma\.sync\.aligned\.(?P<shape>m8n8k16|m16n8k16|m16n8k32|m8n8k32|m16n8k64)\.row\.col(?:\.satfinite)?"
           r"\.s32\.(?P<a>s8|u8|s4|u4)\.(?P<b>s8|u8|s4|u4)\.s32", _int, "mma.sync",
           ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "mma.sync.aligned.m16n8k16.row.col.satfinite.s32.u8.s8.s32",
            "mma.sync.aligned.m8n8k16.row.col.s32.s8.u8.s32", "mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32",
            "mma.sync.aligned.m8n8k32.row.col.satfinite.s32.u4.u4.s32"),
           "integer warp-level matrix multiply-accumulate (D: s32)"),
    Family(r"mma\.sync\.aligned\.(?P<shape>m8n8k128|m16n8k128|m16n8k256)\.row\.col\.s32\.b1\.b1\.s32\.(?:and|xor)\.popc",
           _b1, "mma.sync", ("mma.sync.aligned.m8n8k128.row.col.s32.b1.b1.s32.xor.popc",
                             "mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc",
                             "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc"),
           "single-bit matrix multiply-accumulate: D = popc(A .and / .xor B) + C"),
    Family(r"mma\.sync\.aligned\.(?P<shape>m8n8k4|m16n8k4|m16n8k8|m16n8k16)\.row\.col\.f64\.f64\.f64\.f64"
           r"(?:\.rn|\.rz|\.rm|\.rp)?", _f64,
           "mma.sync", ("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64",
                        "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64", "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64.rz"),
           "f64 matrix multiply-accumulate (an optional rounding, .rn by default)"),
    Family(r"mma\.sync\.aligned\.(?P<shape>m16n8k4|m16n8k8)\.row\.col\.f32\.tf32\.tf32\.f32", _tf32, "mma.sync",
           ("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32"),
           "tf32 matrix multiply-accumulate"),
    Family(r"mma\.sync\.aligned\.(?P<shape>m16n8k16|m16n8k32)\.row\.col\.(?P<d>f32|f16)\.(?:e4m3|e5m2)\.(?:e4m3|e5m2)"
           r"\.(?P<c>f32|f16)", _fp8, "mma.sync",
           ("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32", "mma.sync.aligned.m16n8k16.row.col.f32.e5m2.e5m2.f32",
            "mma.sync.aligned.m16n8k16.row.col.f16.e4m3.e4m3.f16", "mma.sync.aligned.m16n8k32.row.col.f16.e5m2.e4m3.f16"),
           "fp8 matrix multiply-accumulate (sm_89), in f32 or f16 (packed pairs)"),
    Family(r"mma\.sync\.aligned\.m8n8k4\.(?:row|col)\.(?:row|col)\.(?P<d>f32|f16)\.f16\.f16\.(?P<c>f32|f16)", _m8n8k4,
           "mma.sync", ("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32", "mma.sync.aligned.m8n8k4.col.row.f16.f16.f16.f16"),
           "the quad-pair f16 shape (8 f32 or 4 packed f16x2 accumulators)"),
]
