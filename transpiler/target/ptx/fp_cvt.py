"""The narrow floating-point conversions of PTX ISA 9.7.9.21 beyond the packed fp8 forms
(memory.py): fp8 pairs from f16x2 (sm_89) / bf16x2 (sm_100a), fp6 pairs (.e2m3x2 / .e3m2x2)
and fp4 pairs (.e2m1x2) from and to f32 / f16x2, the ue8m0x2 scale pairs, and the stochastic
rounding `.rs` lines to f16x2 / bf16x2 and to the x4 fp8 / fp6 / fp4 types (sm_100a), bf16x2 from
the fp8 / fp6 / fp4 / s2f6 pairs with an optional `.scaled::n2::ue8m0` scale pair, and the s2f6x2
lines. A .e2m1x2 value (a .b8 in PTX) travels in the low byte of a 16-bit register."""
from __future__ import annotations

from transpiler.target.ptx.model import Family, Form, Operand

_F6 = ("e2m3x2", "e3m2x2")


def _to_narrow(m):
    """cvt.rn.satfinite{.relu}.<f8 / f6 / f4 pair>.f32 d, a, b; ... .<pair>.f16x2 / .bf16x2 d, a."""
    d, a = m["d"], m["a"]
    if not m["sat"]:
        return "conversions to fp8 / fp6 / fp4 pairs are `.satfinite`"
    feature = "cvt.fp8" if d in ("e4m3x2", "e5m2x2") and a == "f16x2" else "cvt.sm100"
    srcs = (Operand("in", "f32"), Operand("in", "f32")) if a == "f32" else (Operand("in", "b32"),)
    args = ", ".join(f"${k}" for k in range(1, len(srcs) + 1))
    if d == "e2m1x2":  # a .b8 destination, staged through a .b8 register
        return Form((Operand("out", "b8"),) + srcs, "{\n.reg .b8 tirx_b;\n" + f"{m[0]} tirx_b, {args};\n"
                    "cvt.u16.u8 $0, tirx_b;\n}", feature=feature)
    return Form((Operand("out", "b16"),) + srcs, f"{m[0]} $0, {args};", feature=feature)


def _from_narrow(m):
    """cvt.rn{.relu}.f16x2.<f6 / f4 pair> d, a."""
    if m["a"] == "e2m1x2":
        return Form((Operand("out", "b32"), Operand("in", "b16")), "{\n.reg .b8 tirx_b, tirx_hi;\n"
                    f"mov.b16 {{tirx_b, tirx_hi}}, $1;\n{m[0]} $0, tirx_b;\n}}", feature="cvt.sm100")
    return Form((Operand("out", "b32"), Operand("in", "b16")), f"{m[0]} $0, $1;", feature="cvt.sm100")


def _mods(m, need_sat: bool) -> str | None:
    """`.relu` / `.satfinite` (either order, each at most once)."""
    mods = [t for t in m["mods"].split(".") if t]
    if len(set(mods)) != len(mods):
        return "`.relu` and `.satfinite` are written at most once"
    if need_sat and "satfinite" not in mods:
        return "conversions to s2f6x2 are `.satfinite`"
    return None


def _to_bf16x2(m):
    """cvt.rn{.relu}{.satfinite}{.scaled::n2::ue8m0}.bf16x2.<pair> d, a{, scale_factor}: the scale
    factor is two packed ue8m0 values in a 16-bit register, there exactly when `.scaled` is."""
    if (why := _mods(m, False)) is not None:
        return why
    scale = (Operand("in", "b16", name="scale_factor"),) if m["scaled"] else ()
    tail = ", $2" if scale else ""
    if m["a"] == "e2m1x2":
        return Form((Operand("out", "b32"), Operand("in", "b16")) + scale, "{\n.reg .b8 tirx_b, tirx_hi;\n"
                    f"mov.b16 {{tirx_b, tirx_hi}}, $1;\n{m[0]} $0, tirx_b{tail};\n}}", feature="cvt.sm100")
    return Form((Operand("out", "b32"), Operand("in", "b16")) + scale, f"{m[0]} $0, $1{tail};", feature="cvt.sm100")


def _to_s2f6(m):
    """cvt.rn.satfinite{.relu}{.scaled::n2::ue8m0}.s2f6x2.f32 d, a, b{, scale} / .bf16x2 d, a{, scale}."""
    if (why := _mods(m, True)) is not None:
        return why
    srcs = (Operand("in", "f32"), Operand("in", "f32")) if m["a"] == "f32" else (Operand("in", "b32"),)
    scale = (Operand("in", "b16", name="scale_factor"),) if m["scaled"] else ()
    args = ", ".join(f"${k}" for k in range(1, len(srcs) + len(scale) + 1))
    return Form((Operand("out", "b16"),) + srcs + scale, f"{m[0]} $0, {args};", feature="cvt.sm100")


def _rs_x4(m):
    """cvt.rs{.relu}.satfinite.<x4 type>.f32 d, {a, b, e, f}, rbits (e2m1x4: d a .b16)."""
    if not m["sat"]:
        return "conversions to the x4 fp8 / fp6 / fp4 types are `.satfinite`"
    d = Operand("out", "b16" if m["d"] == "e2m1x4" else "b32")
    return Form((d,) + tuple(Operand("in", "f32") for _ in range(4)) + (Operand("in", "b32", name="rbits"),),
                f"{m[0]} $0, {{$1, $2, $3, $4}}, $5;", feature="cvt.sm100")


def _ue8m0(m):
    if m["a"] == "f32":
        return Form((Operand("out", "b16"), Operand("in", "f32"), Operand("in", "f32")), f"{m[0]} $0, $1, $2;",
                    feature="cvt.sm100")
    return Form((Operand("out", "b16"), Operand("in", "b32")), f"{m[0]} $0, $1;", feature="cvt.sm100")


_PAIRS = "e4m3x2|e5m2x2|e2m3x2|e3m2x2|e2m1x2|s2f6x2"
FAMILIES = [
    Family(rf"cvt\.rn(?P<mods>(?:\.(?:relu|satfinite))*)(?P<scaled>\.scaled::n2::ue8m0)?\.bf16x2\.(?P<a>{_PAIRS})",
           _to_bf16x2, "cvt.sm100",
           ("cvt.rn.bf16x2.e4m3x2", "cvt.rn.relu.satfinite.scaled::n2::ue8m0.bf16x2.e5m2x2",
            "cvt.rn.scaled::n2::ue8m0.bf16x2.e2m3x2", "cvt.rn.relu.bf16x2.e3m2x2", "cvt.rn.bf16x2.e2m1x2",
            "cvt.rn.satfinite.scaled::n2::ue8m0.bf16x2.e2m1x2", "cvt.rn.satfinite.relu.scaled::n2::ue8m0.bf16x2.s2f6x2"),
           "widen an fp8 / fp6 / fp4 / s2f6 pair to bf16x2 (scale_factor: two ue8m0 scales, with `.scaled`)"),
    Family(r"cvt\.rn(?P<mods>(?:\.(?:relu|satfinite))*)(?P<scaled>\.scaled::n2::ue8m0)?\.s2f6x2\.(?P<a>f32|bf16x2)",
           _to_s2f6, "cvt.sm100",
           ("cvt.rn.satfinite.s2f6x2.f32", "cvt.rn.satfinite.relu.scaled::n2::ue8m0.s2f6x2.f32",
            "cvt.rn.satfinite.scaled::n2::ue8m0.s2f6x2.bf16x2"),
           "round a pair to s2f6 (d: the packed pair; a the high value)"),
    Family(r"cvt\.rs(?P<relu>\.relu)?(?P<sat>\.satfinite)?\.(?P<d>e4m3x4|e5m2x4|e2m3x4|e3m2x4|e2m1x4)\.f32", _rs_x4,
           "cvt.sm100", ("cvt.rs.satfinite.e4m3x4.f32", "cvt.rs.relu.satfinite.e5m2x4.f32", "cvt.rs.satfinite.e2m3x4.f32",
                         "cvt.rs.relu.satfinite.e3m2x4.f32", "cvt.rs.satfinite.e2m1x4.f32"),
           "round four f32 to fp8 / fp6 / fp4 with stochastic rounding (rbits: the random bits)"),
    Family(r"cvt\.rn(?P<sat>\.satfinite)?(?:\.relu)?\.(?P<d>e4m3x2|e5m2x2|e2m3x2|e3m2x2|e2m1x2)\.(?P<a>f32|f16x2|bf16x2)",
           _to_narrow, "cvt.sm100",
           ("cvt.rn.satfinite.e4m3x2.f16x2", "cvt.rn.satfinite.relu.e5m2x2.bf16x2", "cvt.rn.satfinite.e2m3x2.f32",
            "cvt.rn.satfinite.relu.e3m2x2.f32", "cvt.rn.satfinite.e2m1x2.f32", "cvt.rn.satfinite.e2m1x2.f16x2",
            "cvt.rn.satfinite.relu.e2m3x2.f16x2", "cvt.rn.satfinite.e3m2x2.bf16x2"),
           "round a pair to fp8 / fp6 / fp4 (d: the packed pair, a the high value)"),
    Family(r"cvt\.rn(?:\.relu)?\.f16x2\.(?P<a>e2m3x2|e3m2x2|e2m1x2)", _from_narrow, "cvt.sm100",
           ("cvt.rn.f16x2.e2m3x2", "cvt.rn.relu.f16x2.e3m2x2", "cvt.rn.f16x2.e2m1x2"),
           "widen an fp6 / fp4 pair to f16x2"),
    Family(r"cvt\.(?:rz|rp)(?:\.satfinite)?\.ue8m0x2\.(?P<a>f32|bf16x2)", _ue8m0, "cvt.sm100",
           ("cvt.rz.satfinite.ue8m0x2.f32", "cvt.rp.ue8m0x2.bf16x2"), "round a pair to ue8m0 scale factors"),
    Family(r"cvt\.rn\.bf16x2\.ue8m0x2", lambda m: Form((Operand("out", "b32"), Operand("in", "b16")),
                                                       f"{m[0]} $0, $1;", feature="cvt.sm100"),
           "cvt.sm100", ("cvt.rn.bf16x2.ue8m0x2",), "widen a ue8m0 pair to bf16x2"),
    Family(r"cvt\.rs(?:\.relu)?(?:\.satfinite)?\.(?:f16x2|bf16x2)\.f32",
           lambda m: Form((Operand("out", "b32"), Operand("in", "f32"), Operand("in", "f32"),
                           Operand("in", "b32", name="rbits")), f"{m[0]} $0, $1, $2, $3;", feature="cvt.sm100"),
           "cvt.sm100", ("cvt.rs.f16x2.f32", "cvt.rs.relu.satfinite.bf16x2.f32"),
           "round a pair with stochastic rounding (rbits: the random bits)"),
]
