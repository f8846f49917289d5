"""More scalar arithmetic (PTX ISA 9.7.1 / 9.7.3 / 9.7.4): min / max (integer, packed 16-bit,
f32 / f64, half precision, the three-input f32 line), integer and floating div / rem,
mul24 / mad24, sad, the bit-field operations (bfe, bfi, bfind, fns), dp4a / dp2a, testp and
copysign. Operand order and spelling as the ISA (and TIRx's table)."""
from __future__ import annotations

from transpiler.target.ptx.arith import _FLOAT_CMP, _INT_CMP, unfit_comparison
from transpiler.target.ptx.model import Family, Form, Operand

_KIND = {"u16": "u16", "s16": "b16", "b16": "b16", "f16": "b16", "bf16": "b16", "u32": "u32", "s32": "s32",
         "b32": "b32", "f32": "f32", "u16x2": "b32", "s16x2": "b32", "f16x2": "b32", "bf16x2": "b32",
         "u64": "u64", "s64": "s64", "b64": "b64", "f64": "f64"}


def _plain(m, kinds: tuple[str, ...], feature: str | None = None) -> Form:
    """d, a, b, ...: kinds[0] the destination, the rest the inputs, in call order."""
    ops = (Operand("out", kinds[0]),) + tuple(Operand("in", k) for k in kinds[1:])
    return Form(ops, f"{m[0]} " + ", ".join(f"${k}" for k in range(len(kinds))) + ";", feature=feature)


def _minmax(m):
    """op.type d, a, b (and, on .f32, the three-input line d, a, b, c: sm_100)."""
    t = m["type"]
    ftz, nan, xs, relu = m["ftz"], m["nan"], m["xorsign"], m["relu"]
    if xs and not m["abs"]:
        return "`.xorsign` is spelled `.xorsign.abs`"
    integer = t[0] in "us"
    if integer:
        if ftz or nan or xs or m["abs"]:
            return f".{t} is an integer type: no .ftz / .NaN / .xorsign.abs"
        if relu and t not in ("s16x2", "s32"):
            return "`.relu` is on .s16x2 and .s32 only"
        feature = "arith.sm90" if relu or t.endswith("x2") else None
        return _plain(m, (_KIND[t],) * 3, feature)
    if relu:
        return "`.relu` is an integer qualifier"
    if t == "f64" and (ftz or nan or xs):
        return ".f64 min / max takes no .ftz / .NaN / .xorsign.abs"
    if t.startswith("bf16") and ftz:
        return f".{t} takes no .ftz"
    three = _plain(m, ("f32",) * 4, "arith.sm100")
    if m["abs"] and not xs:  # `.abs` alone: only the three-input .f32 line
        return [three] if t == "f32" else "`.abs` goes with `.xorsign` except on the three-input .f32 line"
    feature = "arith.sm86" if xs else ("arith.sm80" if nan or t not in ("f32", "f64") else None)
    two = _plain(m, (_KIND[t],) * 3, feature)
    return [two, three] if t == "f32" and not xs else two


def _div_f(m):
    t, mode = m["type"], m["mode"]
    if mode in ("approx", "full") and t != "f32":
        return f"div.{mode} is .f32 only (.f64 takes .rn / .rz / .rm / .rp)"
    if m["ftz"] and t != "f32":
        return "`.ftz` goes with .f32"
    return _plain(m, (t,) * 3)


def _mad24(m):
    if m["sat"] and (m["mode"] != "hi" or m["type"] != "s32"):
        return "`.sat` is mad24.hi.sat.s32 only"
    return _plain(m, (m["type"],) * 4)


def _dp(m):
    acc = "u32" if m["atype"] == m["btype"] == "u32" else "s32"
    return _plain(m, (acc, m["atype"], m["btype"], acc))


def _cvt_pack(m):
    """cvt.pack.sat.{u16,s16}.s32 d, a, b; cvt.pack.sat.{u8,s8,u4,s4,u2,s2}.s32.b32 d, a, b, c."""
    if (m["d"] in ("u16", "s16")) == bool(m["c"]):
        return "the 16-bit types pack two values (d, a, b); the 8 / 4 / 2-bit ones take c (`.s32.b32`)"
    return _plain(m, ("u32", "s32", "s32") + (("b32",) if m["c"] else ()))


def _testp(m):
    return Form((Operand("out", "pred", name="p"), Operand("in", m["type"])),
                "{\n.reg .pred tirx_p;\n" + f"{m[0]} tirx_p, $1;\nselp.u32 $0, 1, 0, tirx_p;\n}}")


def _slct(m):
    if m["ftz"] and m["ctype"] != "f32":
        return "`.ftz` goes with an .f32 selector"
    return _plain(m, (_KIND[m["dtype"]],) * 3 + (m["ctype"],))


def _set(m):
    """set.cmp{.bool}{.ftz}.dtype.stype d, a, b {, c}: d all ones (1.0f for .f32) where true."""
    t, cmp = m["stype"], m["cmp"]
    floating = t in ("f32", "f64")
    if t[0] == "b" and cmp not in ("eq", "ne"):
        return "the .bN types compare with .eq / .ne only"
    if cmp not in (_FLOAT_CMP if floating else _INT_CMP):
        return f"`.{cmp}` is a{' floating' if not floating else 'n integer'}-point comparison"
    if m["ftz"] and t != "f32":
        return "`.ftz` goes with .f32"
    if why := unfit_comparison(cmp, t):
        return why
    d, ab = m["dtype"], _KIND[t]
    if not m["bool"]:
        return _plain(m, (d, ab, ab))
    return Form((Operand("out", d), Operand("in", ab), Operand("in", ab), Operand("in", "pred", name="c")),
                "{\n.reg .pred tirx_c;\nsetp.ne.b32 tirx_c, $3, 0;\n" + f"{m[0]} $0, $1, $2, tirx_c;\n}}")


_CMP_TYPES = r"b16|b32|b64|u16|u32|u64|s16|s32|s64|f32|f64"
_INT = r"(?P<type>[us](?:16|32|64))"
FAMILIES = [
    Family(r"(?P<op>min|max)(?P<ftz>\.ftz)?(?P<nan>\.NaN)?(?P<xorsign>\.xorsign)?(?P<abs>\.abs)?(?P<relu>\.relu)?"
           r"\.(?P<type>[us](?:16|32|64)|u16x2|s16x2|f32|f64|f16|f16x2|bf16|bf16x2)", _minmax, "memory",
           ("min.s32", "max.u64", "max.relu.s32", "min.u16x2", "max.relu.s16x2", "min.f32", "max.ftz.NaN.f32",
            "min.xorsign.abs.f32", "max.f64", "min.f16", "max.NaN.f16x2", "min.bf16x2", "max.xorsign.abs.bf16",
            "max.abs.f32"),
           "minimum / maximum (.relu: clamp at 0; .NaN: a NaN input gives NaN; .f32 also of three inputs, sm_100)"),
    Family(r"(?P<op>div|rem)\." + _INT, lambda m: _plain(m, (_KIND[m["type"]],) * 3), "memory",
           ("div.s32", "div.u64", "rem.u32", "rem.s64"), "integer quotient / remainder"),
    Family(r"div\.(?P<mode>approx|full|rn|rz|rm|rp)(?P<ftz>\.ftz)?\.(?P<type>f32|f64)", _div_f, "memory",
           ("div.approx.f32", "div.full.ftz.f32", "div.rn.f32", "div.rz.f64"), "floating-point division"),
    Family(r"mul24\.(?P<mode>hi|lo)\.(?P<type>u32|s32)", lambda m: _plain(m, (m["type"],) * 3), "memory",
           ("mul24.lo.s32", "mul24.hi.u32"), "24-bit multiply (.lo / .hi 32 bits of the 48-bit product)"),
    Family(r"mad24\.(?P<mode>hi|lo)(?P<sat>\.sat)?\.(?P<type>u32|s32)", _mad24, "memory",
           ("mad24.lo.u32", "mad24.hi.sat.s32"), "24-bit multiply-add"),
    Family(r"sad\." + _INT, lambda m: _plain(m, (_KIND[m["type"]],) * 4), "memory", ("sad.u32", "sad.s64"),
           "d = c + |a - b|"),
    Family(r"bfe\.(?P<type>u32|u64|s32|s64)", lambda m: _plain(m, (m["type"], m["type"], "u32", "u32")), "memory",
           ("bfe.u32", "bfe.s64"), "extract a bit field (b: start, c: length)"),
    Family(r"bfi\.(?P<type>b32|b64)", lambda m: _plain(m, (m["type"], m["type"], m["type"], "u32", "u32")), "memory",
           ("bfi.b32", "bfi.b64"), "insert a bit field of a into b (c: start, d: length)"),
    Family(r"bfind(?:\.shiftamt)?\.(?P<type>u32|u64|s32|s64)", lambda m: _plain(m, ("u32", m["type"])), "memory",
           ("bfind.u32", "bfind.shiftamt.s64"), "position of the most significant non-sign bit (a u32)"),
    Family(r"fns\.b32", lambda m: _plain(m, ("b32", "b32", "b32", "s32")), "memory", ("fns.b32",),
           "the n-th set bit of mask from base (d = mask, base, offset)"),
    Family(r"dp4a\.(?P<atype>u32|s32)\.(?P<btype>u32|s32)", _dp, "memory", ("dp4a.u32.u32", "dp4a.s32.u32"),
           "four-way byte dot product plus c"),
    Family(r"dp2a\.(?:lo|hi)\.(?P<atype>u32|s32)\.(?P<btype>u32|s32)", _dp, "memory",
           ("dp2a.lo.s32.s32", "dp2a.hi.u32.s32"), "two-way 16-bit x byte dot product plus c"),
    Family(r"testp\.(?:finite|infinite|number|notanumber|normal|subnormal)\.(?P<type>f32|f64)", _testp, "memory",
           ("testp.finite.f32", "testp.notanumber.f64"), "test a floating-point class (a predicate, 0 / 1)"),
    Family(r"copysign\.(?P<type>f32|f64)", lambda m: _plain(m, (m["type"],) * 3), "memory",
           ("copysign.f32", "copysign.f64"), "the value of b with the sign of a"),
    Family(r"shf\.(?:l|r)\.(?:clamp|wrap)\.b32", lambda m: _plain(m, ("b32", "b32", "b32", "u32")), "memory",
           ("shf.l.clamp.b32", "shf.r.wrap.b32"), "funnel shift of the 64 bits b:a by c (d: 32 of them)"),
    Family(rf"slct(?P<ftz>\.ftz)?\.(?P<dtype>{_CMP_TYPES})\.(?P<ctype>s32|f32)", _slct, "memory",
           ("slct.b32.s32", "slct.ftz.f32.f32", "slct.u64.s32"), "d = c >= 0 ? a : b"),
    Family(rf"set\.(?P<cmp>[a-z]+)(?:\.(?P<bool>and|or|xor))?(?P<ftz>\.ftz)?\.(?P<dtype>u32|s32|f32)"
           rf"\.(?P<stype>{_CMP_TYPES})", _set, "memory",
           ("set.lt.u32.s32", "set.eq.f32.f32", "set.gtu.ftz.s32.f32", "set.ne.and.u32.b64"),
           "compare: d all ones (.f32: 1.0) where true, else 0 {combined with c by .and / .or / .xor}"),
    Family(r"cnot\.(?P<type>b16|b32|b64)", lambda m: _plain(m, (m["type"],) * 2), "memory", ("cnot.b32", "cnot.b64"),
           "C's logical not: d = a == 0 ? 1 : 0"),
    Family(r"bmsk\.(?:clamp|wrap)\.b32", lambda m: _plain(m, ("u32", "u32", "u32")), "memory",
           ("bmsk.clamp.b32", "bmsk.wrap.b32"), "a mask of b ones starting at bit a"),
    Family(r"szext\.(?:clamp|wrap)\.(?P<type>u32|s32)", lambda m: _plain(m, (m["type"], m["type"], "u32")), "memory",
           ("szext.clamp.s32", "szext.wrap.u32"), "sign- or zero-extend the low b bits of a"),
    Family(r"cvt\.pack\.sat\.(?P<d>u16|s16|u8|s8|u4|s4|u2|s2)\.s32(?P<c>\.b32)?", _cvt_pack, "memory",
           ("cvt.pack.sat.u16.s32", "cvt.pack.sat.s8.s32.b32", "cvt.pack.sat.u4.s32.b32"),
           "saturate a and b to the narrow type and pack them (with c: into the low bits of c shifted up)"),
    Family(r"mad\.(?:rn|rz|rm|rp)(?P<ftz>\.ftz)?(?P<sat>\.sat)?\.(?P<type>f32|f64)",
           lambda m: "`.ftz` / `.sat` go with .f32" if m["type"] == "f64" and (m["ftz"] or m["sat"])
           else _plain(m, (m["type"],) * 4), "memory", ("mad.rn.f32", "mad.rz.ftz.sat.f32", "mad.rn.f64"),
           "floating multiply-add (the same fused operation as fma)"),
]
