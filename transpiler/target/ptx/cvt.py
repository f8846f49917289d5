"""General cvt (PTX ISA 9.7.9.21): conversions between the integer and floating-point types,
with the ISA's rounding rules (an integer rounding mode for float -> integer, a floating one
for integer -> float and for narrowing float -> float, none when widening), `.ftz`, `.sat`,
and the f16 / bf16 `.relu` / `.satfinite` and tf32 lines. 8-bit values travel in 32-bit
registers (the ISA lets cvt's operands be wider than its type)."""
from __future__ import annotations

from transpiler.target.ptx.model import Family, Form, Operand

_KIND = {"u8": "u32", "s8": "s32", "u16": "u16", "s16": "b16", "u32": "u32", "s32": "s32", "u64": "u64",
         "s64": "s64", "f16": "b16", "bf16": "b16", "tf32": "b32", "f32": "f32", "f64": "f64"}
_BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}
_IRND, _FRND = ("rni", "rzi", "rmi", "rpi"), ("rn", "rz", "rm", "rp")


def _cvt(m):
    d, a, rnd = m["d"], m["a"], m["rnd"]
    dfloat, afloat = d in _BITS or d == "tf32", a in _BITS
    if m["sf0"] and (m["satfinite"] or d != "tf32"):
        return "`.satfinite` goes after `.relu`" if d != "tf32" else "`.satfinite` is written once"
    if d == "tf32" or a == "tf32":
        why = "the tf32 lines are cvt.rna{.satfinite}.tf32.f32 and cvt.rn / .rz{.satfinite}{.relu}.tf32.f32"
        if (d, a, m["ftz"], m["sat"]) != ("tf32", "f32", None, None) or rnd not in ("rna", "rn", "rz"):
            return why
        if rnd == "rna":
            if m["relu"]:
                return why
            return Form((Operand("out", "b32"), Operand("in", "f32")), f"{m[0]} $0, $1;", feature="half.sm80")
        # .rn / .rz: sm_90; with .satfinite sm_100 (ptxas)
        return Form((Operand("out", "b32"), Operand("in", "f32")), f"{m[0]} $0, $1;",
                    feature="arith.sm100" if m["satfinite"] or m["sf0"] else "arith.sm90")
    if rnd == "rna":
        return "`.rna` is the tf32 line's rounding"
    if m["relu"] or m["satfinite"]:
        if not (d in ("f16", "bf16") and a == "f32" and rnd in _FRND):
            return "`.relu` / `.satfinite` are on cvt.frnd{.relu}{.satfinite}.f16 / .bf16 .f32"
    if afloat and not dfloat:
        if rnd not in _IRND:
            return "a float -> integer cvt needs .rni / .rzi / .rmi / .rpi"
    elif dfloat and not afloat:
        if rnd not in _FRND:
            return "an integer -> float cvt needs .rn / .rz / .rm / .rp"
    elif dfloat:
        narrowing = _BITS[d] < _BITS[a] or (d, a) in (("f16", "bf16"), ("bf16", "f16"))
        if narrowing and rnd not in _FRND:
            return f"narrowing .{a} to .{d} needs .rn / .rz / .rm / .rp"
        if not narrowing and rnd in _FRND:
            return f".{a} -> .{d} is exact: no floating rounding mode (.rni... round to an integer when the types match)"
        if rnd in _IRND and d != a:
            return "an integer rounding mode converts a float to the same type only"
    elif rnd:
        return "an integer -> integer cvt takes no rounding mode"
    if m["ftz"] and "f32" not in (d, a):
        return "`.ftz` goes with an .f32 source or destination"
    if why := _unfit_modifiers(m, d, a, rnd):
        return why
    bf = "bf16" in (d, a)
    feature = None
    if bf:
        sm80 = (d, a) == ("bf16", "f32") or ((d, a) == ("f32", "bf16") and not m["ftz"])  # (ptxas)
        feature = "half.sm80" if sm80 else "bf16.arith"
    elif m["relu"] or m["satfinite"]:
        feature = "half.sm80"
    return Form((Operand("out", _KIND[d]), Operand("in", _KIND[a])), f"{m[0]} $0, $1;", feature=feature)


def _unfit_modifiers(m, d: str, a: str, rnd: str | None) -> str:
    """Why `.ftz` / `.sat` do not go with the line's other modifiers and types ("" when they
    do): neither goes with `.relu` / `.satfinite`, `.sat` not with .bf16, nor on an integer
    conversion whose destination holds every source value; .f16's `.satfinite` with
    .rm / .rp; bf16 has no 8-bit integer line."""
    if (m["ftz"] or m["sat"]) and (m["relu"] or m["satfinite"] or m["sf0"]):
        return "`.relu` / `.satfinite` go without `.ftz` and `.sat`"
    if "bf16" in (d, a) and (d in ("u8", "s8") or a in ("u8", "s8")):
        return "bf16 converts to and from 16-, 32- and 64-bit integers"
    if m["sat"] and "bf16" in (d, a):
        return "`.sat` does not go with .bf16"
    if m["sat"] and d[0] in "us" and a[0] in "us":
        bits, source_bits = int(d[1:]), int(a[1:])
        if (d[0] == a[0] and bits >= source_bits) or (d[0], a[0]) == ("s", "u") and bits > source_bits:
            return f"every .{a} value fits .{d}: nothing to saturate (`.sat`)"
    if d == "f16" and (m["satfinite"] or m["sf0"]) and rnd in ("rm", "rp"):
        return "the .f16 `.satfinite` rounds .rn or .rz"
    return ""


_T = r"u8|u16|u32|u64|s8|s16|s32|s64|f16|bf16|tf32|f32|f64"
FAMILIES = [
    Family(rf"cvt(?:\.(?P<rnd>rni|rzi|rmi|rpi|rna|rn|rz|rm|rp))?(?P<ftz>\.ftz)?(?P<sat>\.sat)?(?P<sf0>\.satfinite(?=\.relu))?"
           rf"(?P<relu>\.relu)?"
           rf"(?P<satfinite>\.satfinite)?\.(?P<d>{_T})\.(?P<a>{_T})", _cvt, "memory",
           ("cvt.rn.f32.s32", "cvt.rzi.s32.f32", "cvt.rni.ftz.sat.u8.f32", "cvt.rn.f16.f32", "cvt.f32.f16",
            "cvt.rz.ftz.sat.f32.f64", "cvt.f64.f32", "cvt.rni.f32.f32", "cvt.s64.s32", "cvt.sat.u16.s32",
            "cvt.rn.bf16.f32", "cvt.rn.relu.satfinite.f16.f32", "cvt.f32.bf16", "cvt.rz.bf16.f64",
            "cvt.rna.satfinite.tf32.f32", "cvt.rn.f64.u64", "cvt.rn.relu.tf32.f32", "cvt.rz.satfinite.relu.tf32.f32"),
           "convert between integer and floating-point types"),
]
