"""The narrow floating-point conversions of PTX ISA 9.7.9.21 beyond the packed fp8 forms
(memory.py): fp8 pairs from f16x2 (sm_89), fp6 pairs (.e2m3x2 / .e3m2x2) from f32 and fp4 pairs
(.e2m1x2) from f32 / f16x2, both to f16x2, the ue8m0x2 scale pairs, and the stochastic rounding
`.rs` lines to f16x2 / bf16x2 and to the x4 fp8 / fp6 / fp4 types (sm_100a). The lines ptxas 13
does not assemble (bf16x2 from the narrow pairs, s2f6x2, narrow pairs from bf16x2) are refused as
not supported yet. A .e2m1x2 value (a .b8 in PTX) travels in the low byte of a 16-bit register."""
from __future__ import annotations

from transpiler.target.ptx.model import Family, Form, Operand

_F6 = ("e2m3x2", "e3m2x2")


def _to_narrow(m):
    """cvt.rn.satfinite{.relu}.<f8 / f6 / f4 pair>.f32 d, a, b; ... .<pair>.f16x2 / .bf16x2 d, a."""
    d, a = m["d"], m["a"]
    if not m["sat"]:
        return "conversions to fp8 / fp6 / fp4 pairs are `.satfinite`"
    if a == "bf16x2" or (a == "f16x2" and d in _F6):
        return f"`.{d}.{a}` (a {d[:-2]} pair from {a}) is not supported yet: ptxas 13 does not assemble it"
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


def _rs_x4(m):
    """cvt.rs{.relu}.satfinite.<x4 type>.f32 d, {a, b, e, f}, rbits (e2m1x4: d a .b16)."""
    if not m["sat"]:
        return "conversions to the x4 fp8 / fp6 / fp4 types are `.satfinite`"
    d = Operand("out", "b16" if m["d"] == "e2m1x4" else "b32")
    return Form((d,) + tuple(Operand("in", "f32") for _ in range(4)) + (Operand("in", "b32", name="rbits"),),
                f"{m[0]} $0, {{$1, $2, $3, $4}}, $5;", feature="cvt.rs")


def _ue8m0(m):
    if m["a"] == "f32":
        return Form((Operand("out", "b16"), Operand("in", "f32"), Operand("in", "f32")), f"{m[0]} $0, $1, $2;",
                    feature="cvt.sm100")
    return Form((Operand("out", "b16"), Operand("in", "b32")), f"{m[0]} $0, $1;", feature="cvt.sm100")


_PAIRS = "e4m3x2|e5m2x2|e2m3x2|e3m2x2|e2m1x2|s2f6x2"
# Lines of the PTX ISA that ptxas 13 does not assemble (it knows neither `.s2f6x2` nor
# `.scaled::n2::ue8m0`, and no bf16x2 from a narrow pair): refused by name until it does.
NOT_YET = [
    (rf"cvt\.rn(?P<mods>(?:\.(?:relu|satfinite))*)(?:\.scaled::n2::ue8m0)?\.bf16x2\.(?:{_PAIRS})",
     lambda m: _mods(m, False)
     or "bf16x2 from an fp8 / fp6 / fp4 / s2f6 pair is not supported yet: ptxas 13 does not assemble it"),
    (r"cvt\.rn(?P<mods>(?:\.(?:relu|satfinite))*)(?:\.scaled::n2::ue8m0)?\.s2f6x2\.(?:f32|bf16x2)",
     lambda m: _mods(m, True) or "the s2f6x2 conversions are not supported yet: ptxas 13 does not assemble them"),
]
FAMILIES = [
    Family(r"cvt\.rs(?P<relu>\.relu)?(?P<sat>\.satfinite)?\.(?P<d>e4m3x4|e5m2x4|e2m3x4|e3m2x4|e2m1x4)\.f32", _rs_x4,
           "cvt.rs", ("cvt.rs.satfinite.e4m3x4.f32", "cvt.rs.relu.satfinite.e5m2x4.f32", "cvt.rs.satfinite.e2m3x4.f32",
                         "cvt.rs.relu.satfinite.e3m2x4.f32", "cvt.rs.satfinite.e2m1x4.f32"),
           "round four f32 to fp8 / fp6 / fp4 with stochastic rounding (rbits: the random bits)"),
    Family(r"cvt\.rn(?P<sat>\.satfinite)?(?:\.relu)?\.(?P<d>e4m3x2|e5m2x2|e2m3x2|e3m2x2|e2m1x2)\.(?P<a>f32|f16x2|bf16x2)",
           _to_narrow, "cvt.sm100",
           ("cvt.rn.satfinite.e4m3x2.f16x2", "cvt.rn.satfinite.e2m3x2.f32",
            "cvt.rn.satfinite.relu.e3m2x2.f32", "cvt.rn.satfinite.e2m1x2.f32", "cvt.rn.satfinite.e2m1x2.f16x2"),
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
                           Operand("in", "b32", name="rbits")), f"{m[0]} $0, $1, $2, $3;", feature="cvt.rs"),
           "cvt.rs", ("cvt.rs.f16x2.f32", "cvt.rs.relu.satfinite.bf16x2.f32"),
           "round a pair with stochastic rounding (rbits: the random bits)"),
]
