"""`T.cuda.tcgen05.encode_instr_descriptor(desc, d_dtype=..., a_dtype=..., b_dtype=..., M=..., N=...,
K=..., trans_a=..., trans_b=..., n_cta_groups=1, neg_a=False, neg_b=False, sat_d=False,
is_sparse=False)`: the 32-bit instruction descriptor of a dense tcgen05.mma, folded at compile time
(every argument is a constant) and stored through `desc` (a uint32 pointer); likewise
`encode_instr_descriptor_block_scaled(desc, ..., sfa_dtype=..., sfb_dtype=..., sfa_tmem_addr=...,
sfb_tmem_addr=..., ...)`, whose bit 23 holds the scale factors' format (e4m3 0, ue8m0 1). The validity rules
(which dtype combination makes which MMA kind, which shapes a kind allows) and the field layout
are target/tcgen05.py's.
"""
from __future__ import annotations

from transpiler import ir
from transpiler.target.dtypes import INT32, UINT32
from transpiler.sema.expressions import expr
from transpiler.evaluator.values import POISON, DTypeVal, PyConst, Void
from transpiler.sema.registry import handler, is_default
from transpiler.sema.calls.cuda_helpers import pointer
from transpiler.target import tcgen05


def _const(st, node, what: str):
    """A compile-time int, bool or string argument; None on error."""
    if is_default(node):
        return node.value()
    val = expr.elab(st, node)
    if val is POISON:
        return None
    if isinstance(val, DTypeVal):
        return str(val.dtype)
    if isinstance(val, PyConst) and isinstance(val.value, (int, str, bool)):
        return val.value
    if isinstance(val, ir.IntImm):
        return bool(val.value) if val.dtype.name == "bool" else val.value
    st.diags.error("E0722", f"{what} is a compile-time constant", node.span)
    return None


def instr_descriptor(st, a, scaled: bool = False) -> int | None:
    """The descriptor's value (dense, or block-scaled with `scaled`); None after an error."""
    names = ("d_dtype", "a_dtype", "b_dtype") + (("sfa_dtype", "sfb_dtype") if scaled else ())
    flags = ("trans_a", "trans_b", "neg_a", "neg_b", "is_sparse") + (() if scaled else ("sat_d",))
    values = {}
    for name in names + ("M", "N", "K", "n_cta_groups") + flags:
        values[name] = _const(st, a[name], f"`{name}`")
        if values[name] is None:
            return None
    types = {}
    for name in names:
        ptx = tcgen05.PTX_TYPE.get(str(values[name]))
        if ptx is None:
            st.diags.error("E0722", f"`{name}={values[name]!r}` is not a tcgen05.mma data type", a[name].span,
                           help="one of " + ", ".join(names[0] for names in tcgen05.TYPE_NAMES.values()))
            return None
        types[name] = ptx
    d, at, bt = types["d_dtype"], types["a_dtype"], types["b_dtype"]
    if scaled:
        sfa, sfb = types["sfa_dtype"], types["sfb_dtype"]
        kind = next((k for k, abs_, sfs in tcgen05.SCALED_KINDS
                     if d == "f32" and at in abs_ and bt in abs_ and sfa in sfs and sfb in sfs), None)
    else:
        kind = next((k for k, ds, abs_ in tcgen05.KINDS if d in ds and at in abs_ and bt in abs_), None)
    if kind is None:
        scales = f", scales {values['sfa_dtype']} / {values['sfb_dtype']}" if scaled else ""
        st.diags.error("E0722", f"no {'block-scaled' if scaled else 'dense'} tcgen05.mma takes A {values['a_dtype']}, "
                                f"B {values['b_dtype']} and D {values['d_dtype']}{scales}", a["d_dtype"].span)
        return None
    m, n, k, groups, sparse = values["M"], values["N"], values["K"], values["n_cta_groups"], bool(values["is_sparse"])
    if groups not in (1, 2):
        st.diags.error("E0722", f"`n_cta_groups={groups}`; expected 1 or 2", a["n_cta_groups"].span)
        return None
    rule = next(r for r in tcgen05.SHAPES if kind in r[0] and r[1] == groups)
    steps, extra = rule[2], rule[3]
    shape_ok = m in steps and (n in extra or (steps[m] <= n <= 256 and n % steps[m] == 0))
    if scaled and groups == 2 and sparse and m != 256:
        shape_ok = False
    if not shape_ok or k != tcgen05.K[kind][1 if sparse else 0]:
        st.diags.error("E0722", f"M={m}, N={n}, K={k} is not a {'sparse ' if sparse else ''}tcgen05.mma shape of "
                                f"kind {kind} with {groups} CTA group{'s' if groups == 2 else ''}", a["M"].span,
                       help=f"M is {' or '.join(map(str, steps))}, N a multiple of the step up to 256, "
                            f"K {tcgen05.K[kind][1 if sparse else 0]}")
        return None
    transposable = tcgen05.SCALED_TRANSPOSABLE if scaled else tcgen05.TRANSPOSABLE
    for side, t in (("a", at), ("b", bt)):
        if values[f"trans_{side}"] and t not in transposable:
            st.diags.error("E0722", f"`trans_{side}`: {t} operands are read K-major only", a[f"trans_{side}"].span)
            return None
    if not scaled and (values["neg_a"] or values["neg_b"]) and kind not in ("f16", "tf32", "f8f6f4"):
        st.diags.error("E0722", f"kind {kind} cannot negate its operands", a["neg_a"].span)
        return None
    if not scaled and values["sat_d"] and kind != "i8":
        st.diags.error("E0722", "only the integer kind saturates", a["sat_d"].span)
        return None
    a_format, b_format = (tcgen05.FORMAT[at], tcgen05.FORMAT[bt]) if kind in ("mxf8f6f4",) or not scaled else (1, 1)
    flags = {name: bool(values[name]) for name in ("neg_a", "neg_b", "trans_a", "trans_b")}
    if scaled:
        scale = tcgen05.SCALE_FORMAT[types["sfa_dtype"]]
        return tcgen05.instr_descriptor(a_format, b_format, m, n, scale_format=scale, sparse=sparse, **flags)
    return tcgen05.instr_descriptor(a_format, b_format, m, n, d_format=tcgen05.FORMAT[d], sparse=sparse,
                                    saturate=bool(values["sat_d"]), **flags)


def _store(st, node, a, scaled: bool):
    desc = pointer(st, a["desc"], "the descriptor", None, UINT32)
    extra = [expr.value(st, a[name]) for name in ("sfa_tmem_addr", "sfb_tmem_addr")] if scaled else []
    value = instr_descriptor(st, a, scaled)
    if desc is POISON or value is None or POISON in extra:
        return POISON
    buf = desc.buffer
    indices = desc.indices if desc.indices is not None else tuple(ir.IntImm(INT32, 0) for _ in buf.shape)
    return Void(ir.BufferStore(buf, indices, ir.IntImm(UINT32, value, node.span), node.span))


@handler("cuda.tcgen05.encode_instr_descriptor", "desc", "d_dtype", "a_dtype", "b_dtype", "M", "N", "K", "trans_a",
         "trans_b", "n_cta_groups=1", "neg_a=0", "neg_b=0", "sat_d=0", "is_sparse=0")
def _encode_instr_descriptor(st, node, a):
    return _store(st, node, a, False)


@handler("cuda.tcgen05.encode_instr_descriptor_block_scaled", "desc", "d_dtype", "a_dtype", "b_dtype", "sfa_dtype",
         "sfb_dtype", "sfa_tmem_addr", "sfb_tmem_addr", "M", "N", "K", "trans_a", "trans_b", "n_cta_groups=1",
         "neg_a=0", "neg_b=0", "is_sparse=0")
def _encode_instr_descriptor_block_scaled(st, node, a):
    """The scale factors' tensor-memory addresses are not part of the descriptor (TIRx ignores them too)."""
    return _store(st, node, a, True)
