"""`T.cuda.tcgen05.encode_instr_descriptor(desc, d_dtype=..., a_dtype=..., b_dtype=..., M=..., N=...,
K=..., trans_a=..., trans_b=..., n_cta_groups=1, neg_a=False, neg_b=False, sat_d=False,
is_sparse=False)`: the 32-bit instruction descriptor of a dense tcgen05.mma, folded at compile time
(every argument is a constant) and stored through `desc` (a uint32 pointer); likewise
`encode_instr_descriptor_block_scaled(desc, ..., sfa_dtype=..., sfb_dtype=..., sfa_tmem_addr=...,
sfb_tmem_addr=..., ...)`, whose bit 23 holds the scale factors' format (e4m3 0, ue8m0 1). The validity rules
(which dtype combination makes which MMA kind, which shapes a kind allows) are TIRx's, from the PTX
ISA's "Instruction descriptor" tables; the field layout:

    bit 2 sparse, 3 saturate, 4-5 D format (f16 0, f32 1, s32 2), 7-9 A format, 10-12 B format,
    13 / 14 negate A / B, 15 / 16 A / B MN-major (transposed), 17-22 N >> 3, 24-28 M >> 4.
"""
from __future__ import annotations

from transpiler import ir
from transpiler.target.dtypes import INT32, UINT32
from transpiler.sema.expressions import expr
from transpiler.evaluator.values import POISON, DTypeVal, PyConst, Void
from transpiler.sema.registry import handler, is_default
from transpiler.sema.calls.cuda_helpers import pointer

# names TIRx accepts for each PTX type (its dtype names and PTX's)
_TYPES = {
    "f16": ("float16", "f16"), "bf16": ("bfloat16", "bf16"), "tf32": ("tf32", "tensorfloat32"),
    "f32": ("float32", "f32"), "s32": ("int32", "s32"), "s8": ("int8", "s8"), "u8": ("uint8", "u8"),
    "e4m3": ("float8_e4m3fn", "float8_e4m3", "e4m3", "float8_e4m3fnuz"), "e5m2": ("float8_e5m2", "e5m2"),
    "e2m3": ("float6_e2m3fn", "e2m3"), "e3m2": ("float6_e3m2fn", "e3m2"), "e2m1": ("float4_e2m1fn", "e2m1"),
    "ue8m0": ("float8_e8m0fnu", "ue8m0", "e8m0"),
}
_BY_NAME = {name: ptx for ptx, names in _TYPES.items() for name in names}
_FP8_FAMILY = {"e4m3", "e5m2", "e2m3", "e3m2", "e2m1"}

# kind: (D types, A/B types)
_KINDS = (
    ("f16", {"f16"}, {"f16"}),
    ("f16", {"f32"}, {"f16", "bf16"}),
    ("tf32", {"f32"}, {"tf32"}),
    ("i8", {"s32"}, {"s8", "u8"}),
    ("f8f6f4", {"f32", "f16"}, _FP8_FAMILY),
)
# the block-scaled kinds: (kind, A/B types, scale-factor types), first match wins (as in TIRx)
_SCALED_KINDS = (
    ("mxf4", {"e2m1"}, {"ue8m0"}),
    ("mxf4nvf4", {"e2m1"}, {"e4m3"}),
    ("mxf8f6f4", _FP8_FAMILY, {"ue8m0"}),
)
# (kinds, CTA groups) -> {M: N step}, and the extra N values allowed
_SHAPES = (
    ({"f16", "tf32", "f8f6f4"}, 1, {64: 8, 128: 16}, set()),
    ({"f16", "tf32", "f8f6f4"}, 2, {128: 32, 256: 32}, set()),
    ({"i8"}, 1, {64: 16, 128: 16}, {8, 24}),
    ({"i8"}, 2, {128: 32, 256: 32}, set()),
    ({"mxf8f6f4", "mxf4", "mxf4nvf4"}, 1, {128: 8}, set()),
    ({"mxf8f6f4", "mxf4", "mxf4nvf4"}, 2, {128: 16, 256: 16}, set()),
)
_K = {"f16": (16, 32), "tf32": (8, 16), "f8f6f4": (32, 64), "i8": (32, 64), "mxf8f6f4": (32, 64),
      "mxf4": (64, 128), "mxf4nvf4": (64, 128)}  # dense, sparse
_FORMAT = {"f16": 0, "bf16": 1, "tf32": 2, "e4m3": 0, "e5m2": 1, "e2m3": 3, "e3m2": 4, "e2m1": 5, "u8": 0,
           "s8": 1, "f32": 1, "s32": 2}
_TRANSPOSABLE = {"e4m3", "e5m2", "s8", "u8", "f16", "bf16", "tf32"}
_SCALED_TRANSPOSABLE = {"e4m3", "e5m2"}
_SCALE_FORMAT = {"e4m3": 0, "ue8m0": 1}


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
        ptx = _BY_NAME.get(str(values[name]))
        if ptx is None:
            st.diags.error("E0722", f"`{name}={values[name]!r}` is not a tcgen05.mma data type", a[name].span,
                           help="one of " + ", ".join(names[0] for names in _TYPES.values()))
            return None
        types[name] = ptx
    d, at, bt = types["d_dtype"], types["a_dtype"], types["b_dtype"]
    if scaled:
        sfa, sfb = types["sfa_dtype"], types["sfb_dtype"]
        kind = next((k for k, abs_, sfs in _SCALED_KINDS
                     if d == "f32" and at in abs_ and bt in abs_ and sfa in sfs and sfb in sfs), None)
    else:
        kind = next((k for k, ds, abs_ in _KINDS if d in ds and at in abs_ and bt in abs_), None)
    if kind is None:
        scales = f", scales {values['sfa_dtype']} / {values['sfb_dtype']}" if scaled else ""
        st.diags.error("E0722", f"no {'block-scaled' if scaled else 'dense'} tcgen05.mma takes A {values['a_dtype']}, "
                                f"B {values['b_dtype']} and D {values['d_dtype']}{scales}", a["d_dtype"].span)
        return None
    m, n, k, groups, sparse = values["M"], values["N"], values["K"], values["n_cta_groups"], bool(values["is_sparse"])
    if groups not in (1, 2):
        st.diags.error("E0722", f"`n_cta_groups={groups}`; expected 1 or 2", a["n_cta_groups"].span)
        return None
    rule = next(r for r in _SHAPES if kind in r[0] and r[1] == groups)
    steps, extra = rule[2], rule[3]
    shape_ok = m in steps and (n in extra or (steps[m] <= n <= 256 and n % steps[m] == 0))
    if scaled and groups == 2 and sparse and m != 256:
        shape_ok = False
    if not shape_ok or k != _K[kind][1 if sparse else 0]:
        st.diags.error("E0722", f"M={m}, N={n}, K={k} is not a {'sparse ' if sparse else ''}tcgen05.mma shape of "
                                f"kind {kind} with {groups} CTA group{'s' if groups == 2 else ''}", a["M"].span,
                       help=f"M is {' or '.join(map(str, steps))}, N a multiple of the step up to 256, "
                            f"K {_K[kind][1 if sparse else 0]}")
        return None
    transposable = _SCALED_TRANSPOSABLE if scaled else _TRANSPOSABLE
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
    a_format, b_format = (_FORMAT[at], _FORMAT[bt]) if kind in ("mxf8f6f4",) or not scaled else (1, 1)
    value = (int(sparse) << 2 | a_format << 7 | b_format << 10 | int(bool(values["neg_a"])) << 13
             | int(bool(values["neg_b"])) << 14 | int(bool(values["trans_a"])) << 15
             | int(bool(values["trans_b"])) << 16 | (n >> 3) << 17 | (m >> 4) << 24)
    if scaled:  # the scale factors' format in bit 23; their ids (bits 4-5, 29-30) start at 0
        return value | _SCALE_FORMAT[types["sfa_dtype"]] << 23
    return value | int(bool(values["sat_d"])) << 3 | _FORMAT[d] << 4


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
