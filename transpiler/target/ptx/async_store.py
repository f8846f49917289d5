"""st.async and red.async: a store or reduction into a (possibly remote) CTA's shared memory
whose completion is counted on that CTA's mbarrier (sm_90), and their release forms into
global memory (sm_100). The ISA's `.b128` st.async is not here: ptxas 13 refuses it ("Unexpected
instruction types")."""
from __future__ import annotations

from transpiler.target.ptx.model import Family, Form, Operand, regs, vec

# the register kind that carries each type
_KIND = {"b16": "b16", "u16": "u16", "s16": "b16", "b32": "b32", "u32": "u32", "s32": "s32", "f32": "f32",
         "b64": "b64", "u64": "u64", "s64": "s64", "f64": "f64"}
_V2 = ("b32", "b64", "u32", "u64", "s32", "s64", "f32", "f64")
_V4 = ("b32", "u32", "s32", "f32")
_RED_OPS = {"inc": ("u32",), "dec": ("u32",), "min": ("u32", "s32"), "max": ("u32", "s32"), "and": ("b32",),
            "or": ("b32",), "xor": ("b32",), "add": ("u32", "s32", "u64")}


def _remote(values: tuple[Operand, ...], text_values: str, mnemonic: str) -> list[Form]:
    """[a], b, [mbar]: both addresses shared-memory pointers (this CTA's), or both 32-bit
    shared::cluster addresses (another CTA's, as mapa gives them)."""
    n = len(values)
    forms = []
    for addr, mbar in ((Operand("addr", space="shared", name="dst"), Operand("addr", space="shared", name="mbar")),
                       (Operand("in", "u32", name="dst_addr"), Operand("in", "u32", name="mbar_addr"))):
        forms.append(Form((addr,) + values + (mbar,), f"{mnemonic} [$0], {text_values}, [${n + 1}];"))
    return forms


def _st_async(m):
    t, v = m["type"], m["vec"]
    if v and t not in (_V2 if v == "v2" else _V4):
        return f".{v} takes " + " / ".join("." + x for x in (_V2 if v == "v2" else _V4))
    lanes = int(v[1:]) if v else 1
    values = regs("in", _KIND[t], lanes)
    return _remote(values, vec(1, lanes) if lanes > 1 else "$1", m[0])


def _red_async(m):
    op, t = m["op"], m["type"]
    if t not in _RED_OPS[op]:
        return f".{op} takes " + " / ".join("." + x for x in _RED_OPS[op])
    return _remote((Operand("in", _KIND[t]),), "$1", m[0])


def _release(m):
    if m["mmio"] and m["scope"] != "sys":
        return "`.mmio` needs the .sys scope"
    t = m["type"]
    return Form((Operand("addr", space="global"), Operand("in", _KIND[t])), f"{m[0]} [$0], $1;")


_MB = r"(?:\.shared::cluster)?\.mbarrier::complete_tx::bytes"
FAMILIES = [
    Family(rf"st\.async(?:\.weak)?{_MB}(?:\.(?P<vec>v2|v4))?\.(?P<type>b32|b64|u32|u64|s32|s64|f32|f64)",
           _st_async, "cluster",
           ("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32",
            "st.async.weak.shared::cluster.mbarrier::complete_tx::bytes.v2.f64",
            "st.async.mbarrier::complete_tx::bytes.v4.s32"),
           "store into a CTA's shared memory (this CTA's pointer, or a shared::cluster address from mapa), "
           "counting the bytes on that CTA's mbarrier"),
    Family(rf"red\.async\.relaxed\.cluster{_MB}\.(?P<op>inc|dec|min|max|and|or|xor|add)\.(?P<type>u32|s32|u64|b32)",
           _red_async, "cluster",
           ("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32",
            "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.min.s32",
            "red.async.relaxed.cluster.mbarrier::complete_tx::bytes.xor.b32",
            "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u64"),
           "reduce into a CTA's shared memory, counting the bytes on that CTA's mbarrier"),
    Family(r"st\.async(?P<mmio>\.mmio)?\.release\.(?P<scope>gpu|sys)(?:\.global)?"
           r"\.(?P<type>b16|b32|b64|u16|u32|u64|s16|s32|s64|f32|f64)", _release, "async.release",
           ("st.async.release.gpu.global.b32", "st.async.mmio.release.sys.global.u64", "st.async.release.sys.s16"),
           "an asynchronous release store to global memory"),
    Family(r"red\.async(?P<mmio>\.mmio)?\.release\.(?P<scope>gpu|sys)(?:\.global)?\.add\.(?P<type>u32|s32|u64|s64)",
           _release, "async.release",
           ("red.async.release.gpu.global.add.u32", "red.async.mmio.release.sys.global.add.s64"),
           "an asynchronous release reduction (add) into global memory"),
]
