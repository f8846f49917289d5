"""Scalar integer and floating-point arithmetic, comparison and selection: the most used of
TIRx's arithmetic families (setp, selp, lop3, the bitwise and shift operations, add / sub /
mul / mad, abs / neg, the bit counts, the approximate math functions), cvta and isspacep."""
from __future__ import annotations

from transpiler.target.ptx.model import Family, Form, Operand

# the register kind of each PTX type (16-bit floats travel as their bits)
_KIND = {"b16": "b16", "u16": "u16", "s16": "b16", "f16": "b16", "bf16": "b16", "b32": "b32", "u32": "u32",
         "s32": "s32", "f32": "f32", "f16x2": "b32", "bf16x2": "b32", "b64": "b64", "u64": "u64", "s64": "s64",
         "f64": "f64"}
_INT = r"(?P<type>[usb](?:16|32|64))"
_INT_CMP = ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs")
_FLOAT_CMP = ("eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan")
_UNSIGNED_CMP = ("lo", "ls", "hi", "hs")  # the unsigned comparisons: not of a signed type (ptxas)


def unfit_comparison(cmp: str, t: str) -> str:
    """Why `.cmp` does not compare `.t` values ("" when it does), for setp / set."""
    if cmp in _UNSIGNED_CMP and t[0] == "s":
        return f"`.{cmp}` is an unsigned comparison; the signed .{t} compares with .lt / .le / .gt / .ge"
    return ""


def _ins(t: str, n: int) -> tuple[Operand, ...]:
    return tuple(Operand("in", _KIND[t]) for _ in range(n))


def _op(n_in: int, out: str | None = None, feature=None):
    """d, a {, b {, c}}: the destination and the inputs of the instruction's type."""
    def build(m):
        t = m["type"]
        return Form((Operand("out", _KIND[out or t]),) + _ins(t, n_in),
                    f"{m[0]} " + ", ".join(f"${k}" for k in range(n_in + 1)) + ";", feature=feature(m) if feature else None)
    return build


def _setp(m):
    t, cmp = m["type"], m["cmp"]
    floating = t[0] in "fb" and t not in ("b16", "b32", "b64")
    if t in ("b16", "b32", "b64") and cmp not in ("eq", "ne"):
        return "the .bN types compare with .eq / .ne only"
    if cmp not in (_FLOAT_CMP if floating else _INT_CMP):
        return f"`.{cmp}` is a{' floating' if not floating else 'n integer'}-point comparison"
    if m["ftz"] and t not in ("f32", "f16"):
        return "`.ftz` goes with .f32 and .f16"
    if why := unfit_comparison(cmp, t):
        return why
    ops = (Operand("out", "pred", name="p"),) + _ins(t, 2)
    head = "{\n.reg .pred tirx_p;\n"
    feature = "bf16.arith" if t == "bf16" else None
    if m["bool"]:
        ops += (Operand("in", "pred", name="c"),)
        return Form(ops, head + ".reg .pred tirx_c;\nsetp.ne.b32 tirx_c, $3, 0;\n"
                    f"{m[0]} tirx_p, $1, $2, tirx_c;\nselp.u32 $0, 1, 0, tirx_p;\n}}", feature=feature)
    return Form(ops, head + f"{m[0]} tirx_p, $1, $2;\nselp.u32 $0, 1, 0, tirx_p;\n}}", feature=feature)


def _selp(m):
    t = m["type"]
    return Form((Operand("out", _KIND[t]),) + _ins(t, 2) + (Operand("in", "pred", name="c"),),
                "{\n.reg .pred tirx_c;\nsetp.ne.b32 tirx_c, $3, 0;\n" + f"{m[0]} $0, $1, $2, tirx_c;\n}}")


def _lop3(m):
    return Form((Operand("out", "b32"),) + _ins("b32", 3) + (Operand("imm", name="immLut", choices=tuple(range(256))),),
                f"{m[0]} $0, $1, $2, $3, $4;")


def _lop3_bool(m):
    """lop3.BoolOp.b32 d|p, a, b, c, immLut, q: also p = (d != 0) BoolOp q (p, q: integers as 0 / 1)."""
    return Form((Operand("out", "b32"), Operand("out", "pred", name="p")) + _ins("b32", 3)
                + (Operand("imm", name="immLut", choices=tuple(range(256))), Operand("in", "pred", name="q")),
                "{\n.reg .pred tirx_p, tirx_q;\nsetp.ne.b32 tirx_q, $6, 0;\n"
                f"{m[0]} $0|tirx_p, $2, $3, $4, $5, tirx_q;\nselp.u32 $1, 1, 0, tirx_p;\n}}")


def _pred_op(m):
    """and / or / xor / not .pred on predicates given and returned as integers (0 / 1)."""
    n = 1 if m["op"] == "not" else 2
    ins = "".join(f"setp.ne.b32 tirx_a{k}, ${k + 1}, 0;\n" for k in range(n))
    args = ", ".join(f"tirx_a{k}" for k in range(n))
    return Form((Operand("out", "pred"),) + tuple(Operand("in", "pred") for _ in range(n)),
                "{\n.reg .pred tirx_d, tirx_a0, tirx_a1;\n" + ins + f"{m[0]} tirx_d, {args};\nselp.u32 $0, 1, 0, tirx_d;\n}}")


def _shift(m):
    t = m["type"]
    if m["op"] == "shl" and t[0] != "b":
        return "shl takes .b16 / .b32 / .b64"
    return Form((Operand("out", _KIND[t]), Operand("in", _KIND[t]), Operand("in", "u32")), f"{m[0]} $0, $1, $2;")


def _int_arith(m):
    """add / sub (with .sat for s32), mul / mad (.lo / .hi / .wide)."""
    op, t, mode = m["op"], m["type"], m["mode"]
    if op in ("mul", "mad") and not mode:
        return f"{op} needs .lo, .hi or .wide"
    if op in ("add", "sub") and mode:
        return f"{op} takes no .{mode}"
    if mode == "wide" and t.endswith("64"):
        return ".wide doubles a 16- or 32-bit type"
    if t.endswith("x2"):  # the packed 16-bit add (sm_90)
        if op != "add" or m["sat"]:
            return f"`.{t}` is a plain add (no .sat)"
        return Form((Operand("out", "b32"),) + _ins("b32", 2), f"{m[0]} $0, $1, $2;", feature="arith.sm90")
    if m["sat"] and (t != "s32" or op not in ("add", "sub")) and (op, mode, t) != ("mad", "hi", "s32"):
        return "`.sat` is an s32 add / sub (or mad.hi.sat.s32)"
    if t[0] == "b":
        return f"{op} takes the .u / .s types"
    wide = {"u16": "u32", "s16": "s32", "u32": "u64", "s32": "s64"}.get(t) if mode == "wide" else None
    d, n = wide or t, 3 if op == "mad" else 2
    ops = (Operand("out", _KIND[d]),) + _ins(t, 2) + ((Operand("in", _KIND[d]),) if op == "mad" else ())
    return Form(ops, f"{m[0]} " + ", ".join(f"${k}" for k in range(n + 1)) + ";")


def _float_arith(m):
    op, t = m["op"], m["type"]
    if m["ftz"] and t != "f32":
        return "`.ftz` goes with .f32"
    if op == "fma" and not m["rnd"]:
        return "fma needs a rounding mode (.rn, .rz, .rm, .rp)"
    if t == "f64" and ".sat." in m[0]:
        return "`.sat` goes with .f32"
    n = 3 if op == "fma" else 2
    return Form((Operand("out", _KIND[t]),) + _ins(t, n), f"{m[0]} " + ", ".join(f"${k}" for k in range(n + 1)) + ";")


def _approx(m):
    """The special functions: .approx (ex2, tanh, sin, cos, lg2, rcp, sqrt, rsqrt) or a rounding
    mode (rcp / sqrt); .f32, and .f64 where the ISA has it."""
    fn, t, mode = m["fn"], m["type"], m["mode"]
    if t == "f64" and not ((fn in ("rcp", "sqrt") and mode != "approx") or (fn == "rsqrt" and mode == "approx")
                           or (fn == "rcp" and mode == "approx" and m["ftz"])):
        return f"{fn}.{mode}.f64 is not an instruction (f64 takes rcp / sqrt with a rounding mode, rsqrt.approx, "\
               "rcp.approx.ftz)"
    if mode != "approx" and fn not in ("rcp", "sqrt"):
        return f"{fn} is .approx only"
    if fn == "tanh" and (m["ftz"] or t != "f32"):
        return "tanh.approx is .f32 (no .ftz)"
    if t == "f64" and m["ftz"] and fn == "sqrt":
        return "sqrt.f64 takes no `.ftz`"
    return Form((Operand("out", _KIND[t]), Operand("in", _KIND[t])), f"{m[0]} $0, $1;")


def _cvta(m):
    t = m["type"]
    if t == "u32":  # a generic address is 64 bits wide in the code nvcc compiles (.address_size 64)
        return "generic addresses are 64-bit: `.u64` (a 32-bit one is not supported)"
    return Form((Operand("out", _KIND[t]), Operand("in", _KIND[t])), f"{m[0]} $0, $1;",
                feature="cluster" if m["space"] == "shared::cluster" else None)


def _isspacep(m):
    return Form((Operand("out", "pred", name="p"), Operand("addr", space="global", name="a")),
                "{\n.reg .pred tirx_p;\n" + f"{m[0]} tirx_p, $1;\nselp.u32 $0, 1, 0, tirx_p;\n}}",
                feature="cluster" if m["space"] == "shared::cluster" else None)


def _shfl(m):
    return Form((Operand("out", "b32"), Operand("in", "b32"), Operand("in", "u32", name="b"),
                 Operand("in", "u32", name="c"), Operand("in", "u32", name="membermask")), f"{m[0]} $0, $1, $2, $3, $4;")


def _redux(m):
    op, t = m["op"], m["type"]
    if (op in ("and", "or", "xor")) != (t == "b32"):
        return "the bitwise redux.sync is .b32, add / min / max .u32 / .s32"
    return Form((Operand("out", _KIND[t]), Operand("in", _KIND[t]), Operand("in", "u32", name="membermask")),
                f"{m[0]} $0, $1, $2;")


def _vote(m):
    mask = Operand("in", "u32", name="membermask")
    head = "{\n.reg .pred tirx_a;\nsetp.ne.b32 tirx_a, $1, 0;\n"
    if m["mode"] == "ballot":
        return Form((Operand("out", "b32"), Operand("in", "pred", name="a"), mask), head + f"{m[0]} $0, tirx_a, $2;\n}}")
    return Form((Operand("out", "pred", name="d"), Operand("in", "pred", name="a"), mask),
                head + f".reg .pred tirx_d;\n{m[0]} tirx_d, tirx_a, $2;\nselp.u32 $0, 1, 0, tirx_d;\n}}")


_SP = r"(?P<space>const|global|local|shared(?:::cta|::cluster)?|param(?:::entry)?)"
FAMILIES = [
    Family(r"setp\.(?P<cmp>[a-z]+)(?:\.(?P<bool>and|or|xor))?(?P<ftz>\.ftz)?"
           r"\.(?P<type>b16|b32|b64|u16|u32|u64|s16|s32|s64|f32|f64|f16|bf16)", _setp, "memory",
           ("setp.lt.s32", "setp.eq.b32", "setp.lo.u64", "setp.gt.or.s32", "setp.ltu.ftz.f32", "setp.eq.and.f64",
            "setp.ge.f16", "setp.nan.bf16", "setp.eq.ftz.f16", "setp.lt.and.ftz.f16"),
           "compare: the predicate (any integer register, 0 / 1) {combined with c by .and / .or / .xor}"),
    Family(r"selp\.(?P<type>b16|b32|b64|u16|u32|u64|s16|s32|s64|f32|f64)", _selp, "memory",
           ("selp.b32", "selp.f32", "selp.u64"), "d = c ? a : b"),
    Family(r"lop3\.b32", _lop3, "memory", ("lop3.b32",), "any three-input bitwise function (immLut: its truth table)"),
    Family(r"lop3\.(?:or|and)\.b32", _lop3_bool, "memory", ("lop3.or.b32", "lop3.and.b32"),
           "lop3 that also combines (d != 0) with the predicate q by .or / .and into p"),
    Family(r"(?P<op>and|or|xor|not)\.pred", _pred_op, "memory", ("and.pred", "xor.pred", "not.pred"),
           "logic on predicates (integers, non-zero is true; the result 0 / 1)"),
    Family(r"(?P<op>and|or|xor)\.(?P<type>b16|b32|b64)", _op(2), "memory", ("and.b32", "or.b64", "xor.b16")),
    Family(r"not\.(?P<type>b16|b32|b64)", _op(1), "memory", ("not.b32",)),
    Family(r"(?P<op>shl|shr)\.(?P<type>b16|b32|b64|u16|u32|u64|s16|s32|s64)", _shift, "memory",
           ("shl.b32", "shr.u32", "shr.s64"), "shift by a u32 amount"),
    Family(r"(?P<op>add|sub|mul|mad)(?:\.(?P<mode>lo|hi|wide))?(?P<sat>\.sat)?\.(?P<type>[usb](?:16|32|64)|[us]16x2)",
           _int_arith, "memory", ("add.s32", "sub.sat.s32", "mul.lo.s32", "mul.wide.s32", "mul.hi.u64", "mad.lo.s32",
                                  "mad.wide.u32", "add.u16x2", "mad.hi.sat.s32"),
           "integer add / sub / mul / mad (.lo, .hi, .wide); add on packed 16-bit pairs (sm_90)"),
    Family(r"(?P<op>add|sub|mul|fma)(?:\.(?P<rnd>rn|rz|rm|rp))?(?P<ftz>\.ftz)?(?:\.sat)?\.(?P<type>f32|f64)",
           _float_arith, "memory", ("add.rn.f32", "sub.f32", "mul.rn.ftz.f32", "fma.rn.f32", "add.rz.f64",
                                    "fma.rn.f64"), "floating-point add / sub / mul / fma"),
    Family(r"(?P<op>abs|neg)\.(?P<type>s16|s32|s64)", _op(1), "memory", ("abs.s32", "neg.s64")),
    Family(r"(?P<op>abs|neg)(?P<ftz>\.ftz)?\.(?P<type>f32|f64)", lambda m: "`.ftz` goes with .f32"
           if m["ftz"] and m["type"] == "f64" else _op(1)(m), "memory", ("abs.ftz.f32", "neg.f32", "abs.f64")),
    Family(r"(?P<op>popc|clz|brev)\.(?P<type>b32|b64)",
           lambda m: _op(1, "u32" if m["op"] != "brev" else None)(m), "memory", ("popc.b32", "clz.b64", "brev.b32"),
           "population count, leading zeros (a u32), bit reverse"),
    Family(r"(?P<fn>ex2|tanh|sin|cos|lg2|rcp|sqrt|rsqrt)\.(?P<mode>approx|rn|rz|rm|rp)(?P<ftz>\.ftz)?"
           r"\.(?P<type>f32|f64)", _approx, "memory",
           ("ex2.approx.ftz.f32", "tanh.approx.f32", "sin.approx.f32", "lg2.approx.f32", "rcp.approx.f32",
            "rcp.rn.f64", "sqrt.rn.f32", "rsqrt.approx.f64", "rcp.approx.ftz.f64"),
           "the special functions (approximate, or correctly rounded rcp / sqrt)"),
    Family(rf"cvta(?:\.to)?\.{_SP}\.(?P<type>u32|u64)", _cvta, "memory",
           ("cvta.to.shared.u64", "cvta.global.u64", "cvta.to.global.u64"),
           "convert an address between the generic window and a state space's"),
    Family(r"shfl\.sync\.(?:up|down|bfly|idx)\.b32", _shfl, "memory", ("shfl.sync.idx.b32", "shfl.sync.bfly.b32"),
           "exchange a register within the warp (b: lane or offset, c: clamp / segment mask)"),
    Family(r"redux\.sync\.(?P<op>add|min|max|and|or|xor)\.(?P<type>u32|s32|b32)", _redux, "redux",
           ("redux.sync.add.u32", "redux.sync.min.s32", "redux.sync.and.b32"), "reduce a register across the warp"),
    Family(r"vote\.sync\.(?P<mode>all|any|uni)\.pred|vote\.sync\.(?P<mode2>ballot)\.b32",
           lambda m: _vote({0: m[0], "mode": m["mode"] or m["mode2"]}), "memory",
           ("vote.sync.all.pred", "vote.sync.any.pred", "vote.sync.ballot.b32"),
           "vote across the warp (the predicate given and returned as 0 / 1; ballot: the mask of lanes)"),
    Family(r"prmt\.b32(?:\.(?:f4e|b4e|rc8|ecl|ecr|rc16))?", lambda m: Form((Operand("out", "b32"),) + _ins("b32", 3),
                                                                          f"{m[0]} $0, $1, $2, $3;"),
           "memory", ("prmt.b32", "prmt.b32.f4e"), "pick bytes of two 32-bit values"),
    Family(rf"isspacep\.{_SP}", _isspacep, "memory", ("isspacep.global", "isspacep.shared::cta"),
           "whether a generic address falls in a state space's window (0 / 1)"),
]
