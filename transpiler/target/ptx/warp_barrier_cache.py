"""Warp, barrier and cache odds and ends (PTX ISA 9.7.9, 9.7.13, 9.7.14): activemask,
match.sync, the f32 redux.sync (sm_100a), bar.red / barrier.red, getctarank, ldu,
prefetchu, applypriority, discard, st.bulk, and mbarrier's `.noComplete` arrives and
pending_count."""
from __future__ import annotations

from transpiler.target.ptx.async_copy import _bulk_tensor_store
from transpiler.target.ptx.model import Family, Form, Operand

_MASK = Operand("in", "u32", name="membermask")
_KIND = {"b8": "b32", "u8": "u32", "s8": "s32", "b32": "b32", "u32": "u32", "s32": "s32", "f32": "f32", "b64": "b64", "u64": "u64", "s64": "s64",
         "f64": "f64", "b16": "b16", "u16": "u16", "s16": "b16"}


def _match(m):
    a = Operand("in", m["type"])
    if m["mode"] == "any":
        return Form((Operand("out", "b32"), a, _MASK), f"{m[0]} $0, $1, $2;")
    return [Form((Operand("out", "b32"), a, _MASK), f"{m[0]} $0, $1, $2;"),
            Form((Operand("out", "b32"), Operand("out", "pred", name="p"), a, _MASK),
                 "{\n.reg .pred tirx_p;\n" + f"{m[0]} $0|tirx_p, $2, $3;\nselp.u32 $1, 1, 0, tirx_p;\n}}")]


def _bar_red(m):
    """bar{.cta}.red.popc.u32 d, a{, b}, c; bar{.cta}.red.and / .or.pred p, a{, b}, c."""
    popc = m["op"] == "popc"
    if popc != (m["type"] == "u32"):
        return ".popc reduces to .u32, .and / .or to .pred"
    if ".aligned" in m[0] and m[0].startswith("bar."):
        return "`.aligned` is written on `barrier` (bar is aligned already)"
    d = Operand("out", "u32") if popc else Operand("out", "pred", name="p")
    a, b, c = Operand("in", "u32", name="barrier"), Operand("in", "u32", name="count"), Operand("in", "pred", name="c")
    head = "{\n.reg .pred tirx_c;\n" + ("" if popc else ".reg .pred tirx_p;\n")
    dst, tail = ("$0", "}") if popc else ("tirx_p", "selp.u32 $0, 1, 0, tirx_p;\n}")
    return [Form((d, a, c), head + f"setp.ne.b32 tirx_c, $2, 0;\n{m[0]} {dst}, $1, tirx_c;\n" + tail),
            Form((d, a, b, c), head + f"setp.ne.b32 tirx_c, $3, 0;\n{m[0]} {dst}, $1, $2, tirx_c;\n" + tail)]


def _getctarank(m):
    out = Operand("out", "u32")
    if m["space"]:  # `.u64`: the address in a 64-bit register
        width = "u64" if m[0].endswith(".u64") else "u32"
        return [Form((out, Operand("addr", width, space="shared")), f"{m[0]} $0, $1;"),
                Form((out, Operand("in", width, name="cluster_addr")), f"{m[0]} $0, $1;")]
    if m[0].endswith(".u32"):
        return "generic addresses are 64-bit: `getctarank.u64` (a 32-bit one is not supported)"
    return Form((out, Operand("addr", space="generic")), f"{m[0]} $0, $1;")


def _ldu(m):
    t, vec = m["type"], m["vec"]
    if t == "b128":  # the value as its (low, high) 64-bit halves, or as one 128-bit scalar (uint128)
        if vec:
            return ".b128 has no vector forms"
        addr = Operand("addr", space="global" if m["g"] else "generic")
        return [Form((Operand("out", "b64"), Operand("out", "b64"), addr),
                     "{\n.reg .b128 tirx_q;\n" + f"{m[0]} tirx_q, [$2];\nmov.b128 {{$0, $1}}, tirx_q;\n}}"),
                Form((Operand("out", "b128"), addr), f"{m[0]} $0, [$1];")]
    if vec == "v4" and t[1:] == "64":
        return ".v4 takes 16- and 32-bit types"
    n = {"": 1, "v2": 2, "v4": 4}[vec or ""]
    ops = tuple(Operand("out", _KIND[t]) for _ in range(n)) + (Operand("addr", space="global" if m["g"] else "generic"),)
    regs = ", ".join(f"${k}" for k in range(n))
    return Form(ops, f"{m[0]} {'{' + regs + '}' if n > 1 else regs}, [${n}];")


def _st_bulk(m):
    space = "shared" if m["space"] else "generic"
    return Form((Operand("addr", space=space), Operand("in", "u64", name="size"),
                 Operand("imm", name="initval", choices=(0,))), f"{m[0]} [$0], $1, $2;")


def _arrive_nc(m):
    """mbarrier.arrive{_drop}.noComplete{.release.cta}{.shared{::cta}}.b64 state, [addr], count."""
    feature = "mbarrier"  # (ptxas assembles `.release.cta` for sm_80 too)
    space = "shared" if ".shared" in m[0] else "generic"  # no state space: a generic address
    return Form((Operand("out", "b64", name="state"), Operand("addr", space=space), Operand("in", "u32", name="count")),
                f"{m[0]} $0, [$1], $2;", feature=feature)


_SIZE = Operand("imm", name="size", choices=(128,))
FAMILIES = [
    Family(r"activemask\.b32", lambda m: Form((Operand("out", "b32"),), f"{m[0]} $0;"), "memory", ("activemask.b32",),
           "the mask of the warp's active lanes"),
    Family(r"match\.(?P<mode>any|all)\.sync\.(?P<type>b32|b64)", _match, "memory",
           ("match.any.sync.b32", "match.all.sync.b64"),
           "the lanes holding the same value (.all: d, and p = whether all do, or d only)"),
    Family(r"redux\.sync\.(?:min|max)(?:\.abs)?(?:\.NaN)?\.f32",
           lambda m: Form((Operand("out", "f32"), Operand("in", "f32"), _MASK), f"{m[0]} $0, $1, $2;"), "redux.f32",
           ("redux.sync.min.f32", "redux.sync.max.abs.NaN.f32"), "the warp's minimum / maximum of an f32"),
    Family(r"(?:bar|barrier)(?:\.cta)?\.red\.(?P<op>popc|and|or)(?:\.aligned)?\.(?P<type>u32|pred)", _bar_red, "memory",
           ("bar.red.popc.u32", "barrier.red.and.pred", "bar.cta.red.or.pred"),
           "a barrier that also reduces c over the CTA's threads (a: barrier, b: thread count)"),
    Family(r"getctarank(?P<space>\.shared::cluster)?\.(?:u32|u64)", _getctarank, "cluster",
           ("getctarank.u64", "getctarank.shared::cluster.u32"), "the rank of the CTA whose memory an address is in"),
    Family(r"ldu(?P<g>\.global)?(?:\.(?P<vec>v2|v4))?\.(?P<type>b8|u8|s8|b16|u16|s16|b32|u32|s32|f32|b64|u64|s64|f64|b128)", _ldu,
           "memory", ("ldu.global.b32", "ldu.global.v2.f32", "ldu.global.v4.u32", "ldu.f64", "ldu.global.u8", "ldu.global.v4.s8", "ldu.global.b128"),
           "load a read-only value uniform across the warp"),
    Family(r"prefetchu\.L1", lambda m: Form((Operand("addr", space="generic"),), f"{m[0]} [$0];"), "memory",
           ("prefetchu.L1",), "prefetch a line into the uniform cache"),
    Family(r"applypriority(?P<g>\.global)?\.L2::evict_normal",
           lambda m: Form((Operand("addr", space="global" if m["g"] else "generic"), _SIZE), f"{m[0]} [$0], $1;"),
           "cache.hint", ("applypriority.global.L2::evict_normal",), "set the L2 eviction priority of 128 bytes"),
    Family(r"discard(?P<g>\.global)?\.L2",
           lambda m: Form((Operand("addr", space="global" if m["g"] else "generic"), _SIZE), f"{m[0]} [$0], $1;"),
           "cache.hint", ("discard.global.L2", "discard.L2"), "drop 128 bytes of L2 lines without writing them back"),
    Family(r"st\.bulk(?:\.weak)?(?P<space>\.shared::cta)?", _st_bulk, "st.bulk",
           ("st.bulk.weak.shared::cta", "st.bulk"), "zero size bytes of memory (initval: 0)"),
    Family(r"mbarrier\.arrive(?:_drop)?\.noComplete(?P<sem>\.release\.cta)?(?:\.shared(?:::cta)?)?\.b64", _arrive_nc,
           "mbarrier", ("mbarrier.arrive.noComplete.shared::cta.b64", "mbarrier.arrive_drop.noComplete.shared.b64",
                        "mbarrier.arrive.noComplete.release.cta.shared::cta.b64"),
           "arrive count times without completing the phase (state: the phase token)"),
    Family(r"mbarrier\.pending_count\.b64",
           lambda m: Form((Operand("out", "u32"), Operand("in", "b64", name="state")), f"{m[0]} $0, $1;"), "mbarrier",
           ("mbarrier.pending_count.b64",), "the pending arrivals of a phase token"),
    Family(r"cp\.reduce\.async\.bulk\.tensor\.(?P<dims>[1-5])d\.global\.shared::cta\.(?:add|min|max|inc|dec|and|or|xor)"
           r"(?:\.tile)?\.bulk_group(?P<hint>\.L2::cache_hint)?", _bulk_tensor_store, "bulk",
           ("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group",
            "cp.reduce.async.bulk.tensor.1d.global.shared::cta.max.bulk_group.L2::cache_hint"),
           "TMA reduction of a shared tile into the global tensor a tensor map names"),
]
