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


FAMILIES = [
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
