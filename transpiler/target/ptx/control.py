"""Tensor-map copies and cluster launch control (PTX ISA 9.7.9.28, 9.7.14.18 / 19):
tensormap.cp_fenceproxy (sm_90) and clusterlaunchcontrol's try_cancel / query_cancel (sm_100;
`.multicast::cluster::all` sm_100a). The 16-byte try_cancel response is a `.b128` value:
query_cancel takes it as its (low, high) 64-bit halves, as ld / st `.b128` give them, or (a later
form) as one 128-bit scalar, TIRx's uint128, as its own helpers pass it."""
from __future__ import annotations

from transpiler.target.ptx.model import Family, Form, Operand, regs, vec

_RESPONSE = "{\n.reg .b128 tirx_q;\n"  # the response's halves into one .b128 register


def _try_cancel(m):
    """clusterlaunchcontrol.try_cancel.async{.shared::cta}.mbarrier::complete_tx::bytes
    {.multicast::cluster::all}.b128 [addr], [mbar]: both shared (::cta) or both generic."""
    space = "shared" if m["space"] else "generic"
    return Form((Operand("addr", space=space, name="response_addr"), Operand("addr", space=space, name="mbar")),
                f"{m[0]} [$0], [$1];", feature="clc.multicast" if m["mc"] else None)


def _query(m):
    """clusterlaunchcontrol.query_cancel: is_canceled into a predicate (an integer, 0 / 1), one
    coordinate of the first CTA of the canceled cluster, or all of them (.v4: x, y, z, unspecified)."""
    halves = regs("in", "b64", 2, "response")
    whole = (Operand("in", "b128", name="response"),)
    query = m["query"]
    if query == "is_canceled":
        if m["rest"] != ".pred.b128":
            return "is_canceled is spelled `.is_canceled.pred.b128`"
        canceled = (Operand("out", "pred", name="canceled"),)
        return [Form(canceled + halves, _RESPONSE + ".reg .pred tirx_p;\nmov.b128 tirx_q, {$1, $2};\n"
                     f"{m[0]} tirx_p, tirx_q;\nselp.u32 $0, 1, 0, tirx_p;\n}}"),
                Form(canceled + whole, "{\n.reg .pred tirx_p;\n" f"{m[0]} tirx_p, $1;\nselp.u32 $0, 1, 0, tirx_p;\n}}")]
    if query == "get_first_ctaid":
        if m["rest"] != ".v4.b32.b128":
            return "get_first_ctaid without a dimension is spelled `.get_first_ctaid.v4.b32.b128`"
        return [Form(regs("out", "b32", 4) + halves,
                     _RESPONSE + f"mov.b128 tirx_q, {{$4, $5}};\n{m[0]} {vec(0, 4)}, tirx_q;\n}}", sinkable=(0, 1, 2, 3)),
                Form(regs("out", "b32", 4) + whole, f"{m[0]} {vec(0, 4)}, $4;", sinkable=(0, 1, 2, 3))]
    if m["rest"] != ".b32.b128":
        return f"`{query}` is spelled `.{query}.b32.b128`"
    ctaid = (Operand("out", "b32", name="ctaid"),)
    return [Form(ctaid + halves, _RESPONSE + f"mov.b128 tirx_q, {{$1, $2}};\n{m[0]} $0, tirx_q;\n}}"),
            Form(ctaid + whole, f"{m[0]} $0, $1;")]


FAMILIES = [
    Family(r"tensormap\.cp_fenceproxy\.global\.shared::cta\.tensormap::generic\.release\.(?:cta|cluster|gpu|sys)"
           r"\.sync\.aligned",
           lambda m: Form((Operand("addr", space="global", name="dst"), Operand("addr", space="shared", name="src"),
                           Operand("imm", name="size", choices=(128,))), f"{m[0]} [$0], [$1], $2;"), "bulk",
           ("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned",
            "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.cta.sync.aligned"),
           "copy a 128-byte tensor map from shared to global memory and fence the tensormap proxy over it "
           "(size: 128)"),
    Family(r"clusterlaunchcontrol\.try_cancel\.async(?P<space>\.shared::cta)?\.mbarrier::complete_tx::bytes"
           r"(?P<mc>\.multicast::cluster::all)?\.b128", _try_cancel, "clc",
           ("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128",
            "clusterlaunchcontrol.try_cancel.async.mbarrier::complete_tx::bytes.b128",
            "clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.multicast::cluster::all.b128"),
           "ask to cancel a cluster not yet launched; the 16-byte response lands at the address, the mbarrier "
           "counts its bytes (.multicast::cluster::all: to every CTA of the cluster, sm_100a)"),
    Family(r"clusterlaunchcontrol\.query_cancel\.(?P<query>is_canceled|get_first_ctaid(?:::[xyz])?)"
           r"(?P<rest>(?:\.[a-z0-9]+)*)", _query, "clc",
           ("clusterlaunchcontrol.query_cancel.is_canceled.pred.b128",
            "clusterlaunchcontrol.query_cancel.get_first_ctaid::x.b32.b128",
            "clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128"),
           "decode a try_cancel response (its low and high 64-bit halves, or one uint128): whether a cluster "
           "was canceled, "
           "and the coordinates of its first CTA", clobbers_memory=False),
]
