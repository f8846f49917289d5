"""Half-precision arithmetic (PTX ISA 9.7.4 and 9.7.7): add / sub / mul / fma / neg / abs on
.f16, .f16x2, .bf16 and .bf16x2 (a 16-bit value travels as its bits in a 16-bit register, a
packed pair in a 32-bit one), and setp on the packed pairs (`p|q`: one predicate per half)."""
from __future__ import annotations

from transpiler.target.ptx.arith import _FLOAT_CMP
from transpiler.target.ptx.model import Family, Form, Operand

_HALF = r"(?P<type>f16|f16x2|bf16|bf16x2)"


def _kind(t: str) -> str:
    return "b32" if t.endswith("x2") else "b16"


def _form(m, n_in: int, feature: str | None) -> Form:
    k = _kind(m["type"])
    return Form((Operand("out", k),) + tuple(Operand("in", k) for _ in range(n_in)),
                f"{m[0]} " + ", ".join(f"${i}" for i in range(n_in + 1)) + ";", feature=feature)


def _arith(m):
    """add / sub / mul{.rn}{.ftz}{.sat}.f16{x2}, {.rn}.bf16{x2} (sm_90)."""
    bf = m["type"].startswith("bf")
    if bf and (m["ftz"] or m["sat"]):
        return f".{m['type']} takes no .ftz / .sat"
    return _form(m, 2, "bf16.arith" if bf else None)


def _fma(m):
    """fma.rn{.ftz}{.sat}.f16{x2}; fma.rn{.ftz}.relu.f16{x2}; fma.rn{.relu}.bf16{x2};
    fma.rn.oob{.relu}.f16{x2} / .bf16{x2} (sm_90)."""
    bf = m["type"].startswith("bf")
    if m["sat"] and (m["relu"] or bf or m["oob"]):
        return "`.sat` is an .f16 / .f16x2 qualifier, not with .relu / .oob"
    if m["ftz"] and (bf or m["oob"]):
        return "`.ftz` goes with .f16 / .f16x2 (not .oob)"
    feature = "bf16.arith" if m["oob"] else ("half.sm80" if bf or m["relu"] else None)
    return _form(m, 3, feature)


def _unary(m):
    """neg / abs{.ftz}.f16{x2}; neg / abs.bf16{x2} (sm_80)."""
    bf = m["type"].startswith("bf")
    if bf and m["ftz"]:
        return f".{m['type']} takes no .ftz"
    return _form(m, 1, "half.sm80" if bf else None)


def _special(m):
    """ex2.approx.f16{x2}, ex2.approx.ftz.bf16{x2}; tanh.approx.<half type>."""
    bf = m["type"].startswith("bf")
    if m["fn"] == "ex2" and bool(m["ftz"]) != bf:
        return "ex2.approx is `.ftz` exactly on .bf16 / .bf16x2"
    if m["fn"] == "tanh" and m["ftz"]:
        return "tanh.approx takes no .ftz"
    return _form(m, 1, "bf16.arith" if bf else None)


def _setp_x2(m):
    """setp.cmp{.bool}{.ftz}.f16x2 / .bf16x2 p|q, a, b {, c}: p from the low halves, q the high."""
    if m["cmp"] not in _FLOAT_CMP:
        return f"`.{m['cmp']}` is an integer comparison"
    if m["ftz"] and m["type"] == "bf16x2":
        return ".bf16x2 takes no .ftz"
    ops = (Operand("out", "pred", name="p"), Operand("out", "pred", name="q"), Operand("in", "b32"),
           Operand("in", "b32"))
    head = "{\n.reg .pred tirx_p, tirx_q;\n"
    tail = "selp.u32 $0, 1, 0, tirx_p;\nselp.u32 $1, 1, 0, tirx_q;\n}"
    feature = "bf16.arith" if m["type"] == "bf16x2" else None
    if m["bool"]:
        return Form(ops + (Operand("in", "pred", name="c"),), head + ".reg .pred tirx_c;\nsetp.ne.b32 tirx_c, $4, 0;\n"
                    f"{m[0]} tirx_p|tirx_q, $2, $3, tirx_c;\n" + tail, feature=feature)
    return Form(ops, head + f"{m[0]} tirx_p|tirx_q, $2, $3;\n" + tail, feature=feature)


_SET_KIND = {"f16": "b16", "bf16": "b16", "b16": "b16", "u16": "u16", "s16": "b16", "b32": "b32", "u32": "u32",
             "s32": "s32", "f32": "f32", "b64": "b64", "u64": "u64", "s64": "s64", "f64": "f64", "f16x2": "b32",
             "bf16x2": "b32"}
_SET_SOURCES = ("b16", "b32", "b64", "u16", "u32", "u64", "s16", "s32", "s64", "f16", "f32", "f64")


def _set_half(m):
    """set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, c} with a half type on one side (ISA 9.7.7.1):
    a .f16 / .bf16 result (1.0 or 0.0) from any source, an integer (all ones or 0) from a .f16 / .bf16
    / packed source, or a packed result from its own packed source."""
    d, st, cmp = m["d"], m["s"], m["cmp"]
    paired = ((d in ("f16", "bf16") and st in _SET_SOURCES) or (d in ("u16", "s16", "u32", "s32") and st in ("f16", "bf16"))
              or (d in ("u32", "s32") and st in ("f16x2", "bf16x2")) or (d in ("f16x2", "bf16x2") and st == d))
    if not paired:
        return f"no half-precision `set` line pairs .{d} with .{st}"
    if m["ftz"] and (d.startswith("bf16") or st not in ("f16", "f32", "f16x2")):
        return "`.ftz` goes with an .f16 / .f32 / .f16x2 source and no .bf16 result"
    if st[0] == "b" and st[:2] != "bf" and cmp not in ("eq", "ne"):
        return "the .bN types compare with .eq / .ne only"
    if st[0] in "us" and cmp not in ("eq", "ne", "lt", "le", "gt", "ge"):
        return f"the integer source .{st} compares with eq / ne / lt / le / gt / ge"
    if cmp not in _FLOAT_CMP:
        return f"`.{cmp}` is not a half-precision comparison"
    ops = (Operand("out", _SET_KIND[d]), Operand("in", _SET_KIND[st]), Operand("in", _SET_KIND[st]))
    feature = "bf16.arith" if "bf16" in (d, st) or d == "bf16x2" or st == "bf16x2" else None
    if not m["bool"]:
        return Form(ops, f"{m[0]} $0, $1, $2;", feature=feature)
    return Form(ops + (Operand("in", "pred", name="c"),),
                "{\n.reg .pred tirx_c;\nsetp.ne.b32 tirx_c, $3, 0;\n" + f"{m[0]} $0, $1, $2, tirx_c;\n}}", feature=feature)


def _mixed(m):
    """add / sub{.rnd}{.sat}.f32.<f16 | bf16> d, a, c; fma.rnd{.sat}.f32.<f16 | bf16> d, a, b, c: a half-precision
    a (and b) with an f32 c and result (sm_100)."""
    if m["op"] == "fma" and not m["rnd"]:
        return "fma needs a rounding mode (.rn, .rz, .rm, .rp)"
    halves = 2 if m["op"] == "fma" else 1
    ops = (Operand("out", "f32"),) + tuple(Operand("in", "b16") for _ in range(halves)) + (Operand("in", "f32"),)
    return Form(ops, f"{m[0]} " + ", ".join(f"${k}" for k in range(len(ops))) + ";", feature="arith.sm100")


FAMILIES = [
    Family(r"(?P<op>add|sub|fma)(?:\.(?P<rnd>rn|rz|rm|rp))?(?:\.sat)?\.f32\.(?:f16|bf16)", _mixed, "arith.sm100",
           ("add.rn.sat.f32.f16", "sub.f32.bf16", "fma.rn.f32.f16", "fma.rz.sat.f32.bf16"),
           "mixed precision: half-precision a (b) with an f32 c, the result f32 (sm_100)", clobbers_memory=False),
    Family(r"set\.(?P<cmp>[a-z]+)(?:\.(?P<bool>and|or|xor))?(?P<ftz>\.ftz)?"
           r"\.(?P<d>f16x2|bf16x2|f16|bf16|u16|s16|u32|s32)\.(?P<s>f16x2|bf16x2|bf16|[bfus](?:16|32|64))", _set_half,
           "memory", ("set.lt.f16.f32", "set.eq.ftz.f16.f16", "set.gt.and.bf16.s32", "set.gtu.bf16.f64", "set.ne.u32.f16",
                      "set.ge.s16.bf16", "set.lt.ftz.f16x2.f16x2", "set.eq.or.u32.bf16x2"),
           "compare with a half-precision result (1.0 / 0.0; packed: per half) or source (integer result: all ones / 0)"),
    Family(r"(?P<op>add|sub|mul)(?:\.rn)?(?P<ftz>\.ftz)?(?P<sat>\.sat)?\." + _HALF, _arith, "memory",
           ("add.f16", "sub.rn.ftz.sat.f16x2", "mul.rn.f16x2", "add.rn.bf16", "mul.bf16x2"),
           "half-precision add / sub / mul (bf16: sm_90)"),
    Family(r"fma\.rn(?P<oob>\.oob)?(?P<ftz>\.ftz)?(?P<sat>\.sat)?(?P<relu>\.relu)?\." + _HALF, _fma, "memory",
           ("fma.rn.f16", "fma.rn.ftz.sat.f16x2", "fma.rn.relu.f16", "fma.rn.bf16x2", "fma.rn.relu.bf16",
            "fma.rn.oob.relu.f16x2", "fma.rn.oob.bf16"), "half-precision fused multiply-add"),
    Family(r"(?P<op>neg|abs)(?P<ftz>\.ftz)?\." + _HALF, _unary, "memory",
           ("neg.f16", "abs.ftz.f16x2", "neg.bf16x2", "abs.bf16"), "half-precision negate / absolute value"),
    Family(r"setp\.(?P<cmp>[a-z]+)(?:\.(?P<bool>and|or|xor))?(?P<ftz>\.ftz)?\.(?P<type>f16x2|bf16x2)", _setp_x2,
           "memory", ("setp.lt.f16x2", "setp.geu.and.ftz.f16x2", "setp.eq.bf16x2"),
           "compare both halves: p (low) and q (high), each any integer register set to 0 / 1"),
    Family(r"(?P<fn>ex2|tanh)\.approx(?P<ftz>\.ftz)?\." + _HALF, _special, "memory",
           ("ex2.approx.f16", "ex2.approx.ftz.bf16x2", "tanh.approx.f16x2", "tanh.approx.bf16"),
           "half-precision 2^x and tanh (bf16: sm_90)"),
]
