"""Asynchronous copies and their synchronisation: cp.async (with commit / wait groups),
cp.async.bulk and its tensor form, mbarrier, and the fences."""
from __future__ import annotations

from dataclasses import replace

from transpiler.target.ptx.model import Family, Form, Operand, refs

_SHARED = r"\.shared(?:::cta)?"
_OPT = r"(?:\.shared(?:::cta)?)?"  # the shared window, or (left out) generic addressing
_CLUSTER = Operand("in", "u32", name="cluster_addr")  # a shared::cluster address, as mapa gives it
_SEM = r"(?:\.(?P<sem>release|relaxed))?(?:\.(?P<scope>cta|cluster))?"


def _fixed(asm: str, *operands: Operand):
    return lambda m: Form(tuple(operands), asm.replace("@", m[0]))


def _ordered(build, sems: tuple[str, ...]):
    """An mbarrier builder whose semantics and scope come together or not at all (ptxas: a scope
    needs an order, an order a scope), the semantics one of `sems`."""
    def checked(m):
        tokens = m[0].split(".")
        sem = next((t for t in tokens if t in ("release", "relaxed", "acquire")), None)
        scope = next((t for t in tokens if t in ("cta", "cluster")), None)
        if sem is not None and sem not in sems:
            return f"`.{sem}` is not an order of `{'.'.join(tokens[:2])}` (" + ", ".join(f".{s}" for s in sems) + ")"
        if (sem is None) != (scope is None):
            return (f"`.{sem}` needs a scope (.cta, .cluster)" if scope is None
                    else f"the scope `.{scope}` needs an order (" + ", ".join(f".{s}" for s in sems) + ")")
        return build(m)
    return checked


def _generic(build):
    """An mbarrier builder whose spelling may leave out the state space: then the ISA's generic
    addressing, so the barrier is a generic pointer (into shared memory) instead of a shared one."""
    def wrapped(m):
        built = build(m)
        if isinstance(built, str) or ".shared" in m[0]:
            return built
        forms = built if isinstance(built, list) else [built]
        return [replace(f, operands=tuple(replace(op, space="generic") if op.role == "addr" and op.space == "shared"
                                          else op for op in f.operands)) for f in forms]
    return wrapped


def _cp_async(m):
    ops = (Operand("addr", space="shared"), Operand("addr", space="global"), Operand("imm", name="bytes", choices=(4, 8, 16)))
    forms = [Form(ops, f"{m[0]} [$0], [$1], $2;")]
    if m["hint"] or m["hint2"]:
        policy = Operand("in", "u64", name="cache_policy")
        forms = [Form(ops + (policy,), f"{m[0]} [$0], [$1], $2, $3;"),
                 Form(ops + (Operand("in", "u32", name="src_size"), policy), f"{m[0]} [$0], [$1], $2, $3, $4;")]
    else:  # the optional src-size: bytes past it are filled with zeros
        forms.append(Form(ops + (Operand("in", "u32", name="src_size"),), f"{m[0]} [$0], [$1], $2, $3;"))
    return forms


def _mbar_arrive(m):
    shared = Operand("addr", space="shared")
    sink = "_" if "cluster" in (m["space"] or "") else None
    if m["expect"]:
        tx = Operand("in", "u32", name="tx_bytes")
        forms = [Form((shared, tx), f"{m[0]} _, [$0], $1;"),
                 Form((Operand("out", "b64", name="state"), shared, tx), f"{m[0]} $0, [$1], $2;")]
    else:
        count = Operand("in", "u32", name="count")
        forms = [Form((shared,), f"{m[0]} _, [$0];"), Form((shared, count), f"{m[0]} _, [$0], $1;"),
                 Form((Operand("out", "b64", name="state"), shared), f"{m[0]} $0, [$1];"),
                 Form((Operand("out", "b64", name="state"), shared, count), f"{m[0]} $0, [$1], $2;")]
    if sink:  # a remote barrier's state cannot be returned; its address may be a shared::cluster one (mapa)
        forms = [f for f in forms if f.operands[0].role != "out"]
        forms += [Form((_CLUSTER,) + f.operands[1:], f.asm) for f in forms]
    return _sm80(m, forms) if not m["expect"] else forms


def _sm80(m, forms: list[Form]) -> list[Form]:
    """The forms ptxas assembles for sm_80 (the mbarrier row) rather than sm_90: those of a
    CTA's own barrier, plainly or with `.release` / `.acquire` `.cta`, without an arrival count."""
    if "cluster" in m[0] or ".relaxed" in m[0]:
        return forms
    return [f if any(op.name == "count" for op in f.operands) else replace(f, feature="mbarrier") for f in forms]


def _tx(m):
    tx = Operand("in", "u32", name="tx_bytes")
    forms = [Form((Operand("addr", space="shared"), tx), f"{m[0]} [$0], $1;")]
    if m[0].endswith("shared::cluster.b64"):
        forms.append(Form((_CLUSTER, tx), f"{m[0]} [$0], $1;"))
    return forms


def _mbar_wait(m):
    """try_wait / test_wait, .parity or by phase state: the result as a returned value
    (tirxc's spelling) or in a destination register (TIRx's), with try_wait's optional
    suspend-time hint."""
    shared = Operand("addr", space="shared")
    phase = Operand("in", "u32", name="parity") if m["parity"] else Operand("in", "b64", name="state")
    test = m["op"] == "test_wait"
    forms = [Form((shared, phase), "{\n.reg .pred p;\n" + m[0] + " p, [$0], $1;\nselp.u32 $r, 1, 0, p;\n}",
                  returns="u32")]
    dest = Operand("out", "pred", name="done")
    forms.append(Form((dest, shared, phase), "{\n.reg .pred p;\n" + m[0] + " p, [$1], $2;\nselp.u32 $0, 1, 0, p;\n}"))
    if not test:
        forms.append(Form((dest, shared, phase, Operand("in", "u32", name="suspend_hint")),
                          "{\n.reg .pred p;\n" + m[0] + " p, [$1], $2, $3;\nselp.u32 $0, 1, 0, p;\n}"))
        return forms
    return _sm80(m, forms)


def _bulk_tensor(m):
    """TMA load: dst, [tensor_map, {coordinates}], [mbar]{, cta_mask}{, cache_policy}. `.tile::gather4`
    (2d only) names four rows: five coordinates; `.multicast::cluster` writes the tile into the CTAs
    of cta_mask (a 16-bit mask of cluster ranks); `.cta_group` / gather4 need sm_100a (a plain
    gather4 into shared::cta, sm_120a as well)."""
    dims = int(m["dims"])
    gather = (m["mode"] or "").endswith("gather4")
    if gather and dims != 2:
        return ".tile::gather4 is a 2d load mode"
    if m["mc"] and m["dst"] != "shared::cluster":
        return "`.multicast::cluster` writes into .shared::cluster"
    coords = 5 if gather else dims
    ops = ((Operand("addr", space="shared", name="dst"), Operand("in", "u64", name="tensor_map"))
           + tuple(Operand("in", "s32", name=f"c{i}") for i in range(coords)) + (Operand("addr", space="shared", name="mbar"),))
    asm = f"{m[0]} [$0], [$1, {{{refs(2, coords)}}}], [${2 + coords}]"
    if m["mc"]:
        ops += (Operand("in", "u16", name="cta_mask"),)
        asm += f", ${len(ops) - 1}"
    if m["hint"]:
        ops += (Operand("in", "u64", name="cache_policy"),)
        asm += f", ${len(ops) - 1}"
    cta_gather = gather and m["dst"] == "shared::cta" and not m["mc"] and not m["cg"]  # sm_120a has it too
    feature = "bulk.gather4" if cta_gather else "tcgen05" if m["cg"] or gather else "bulk.multicast" if m["mc"] else None
    return Form(ops, asm + ";", feature=feature)


def _bulk_tensor_store(m):
    dims = int(m["dims"])
    scatter = (m.groupdict().get("mode") or "").endswith("scatter4")
    if scatter and dims != 2:
        return ".tile::scatter4 is a 2d store mode"
    coords = 5 if scatter else dims
    ops = ((Operand("in", "u64", name="tensor_map"),) + tuple(Operand("in", "s32", name=f"c{i}") for i in range(coords))
           + (Operand("addr", space="shared", name="src"),))
    asm = f"{m[0]} [$0, {{{refs(1, coords)}}}], [${1 + coords}]"
    if m["hint"]:
        ops += (Operand("in", "u64", name="cache_policy"),)
        asm += f", ${len(ops) - 1}"
    return Form(ops, asm + ";", feature="tcgen05" if scatter else None)


def _tensor_prefetch(m):
    dims = int(m["dims"])
    gather = (m["mode"] or "").endswith("gather4")
    if gather and dims != 2:
        return ".tile::gather4 is a 2d load mode"
    coords = 5 if gather else dims
    ops = (Operand("in", "u64", name="tensor_map"),) + tuple(Operand("in", "s32", name=f"c{i}") for i in range(coords))
    asm = f"{m[0]} [$0, {{{refs(1, coords)}}}]"
    if m["hint"]:
        ops += (Operand("in", "u64", name="cache_policy"),)
        asm += f", ${len(ops) - 1}"
    return Form(ops, asm + ";", feature="tcgen05" if gather else None)


def _bulk(m):
    """The directions global -> shared (::cta or ::cluster), shared::cta -> shared::cluster
    (both completing on an mbarrier) and shared::cta -> global (in a bulk group)."""
    dst = Operand("addr", space="shared", name="dst")
    if m["dst"] == "global":
        ops = (Operand("addr", space="global", name="dst"), Operand("addr", space="shared", name="src"),
               Operand("in", "u32", name="bytes"))
        asm = f"{m[0]} [$0], [$1], $2"
    elif m["src"] == "shared::cta":  # shared::cta -> a cluster peer's shared memory
        ops = (dst, Operand("addr", space="shared", name="src"), Operand("in", "u32", name="bytes"),
               Operand("addr", space="shared", name="mbar"))
        asm = f"{m[0]} [$0], [$1], $2, [$3]"
    else:
        ops = (dst, Operand("addr", space="global", name="src"), Operand("in", "u32", name="bytes"),
               Operand("addr", space="shared", name="mbar"))
        asm = f"{m[0]} [$0], [$1], $2, [$3]"
    if m["mc"]:
        if m["dst"] != "shared::cluster" or m["src"] != "global":
            return "`.multicast::cluster` copies global -> .shared::cluster"
        ops += (Operand("in", "u16", name="cta_mask"),)
        asm += f", ${len(ops) - 1}"
    if m["hint"]:
        ops += (Operand("in", "u64", name="cache_policy"),)
        asm += f", ${len(ops) - 1}"
    if m["mask"]:
        if m["dst"] != "global":
            return "`.cp_mask` goes with the shared::cta -> global copy"
        ops += (Operand("in", "u16", name="byte_mask"),)
        asm += f", ${len(ops) - 1}"
    if (m["dst"], m["src"]) in (("global", "global"), ("shared::cta", "shared::cta")):
        return f"no bulk copy goes .{m['src']} -> .{m['dst']}"
    mbarrier, group = ".mbarrier::complete_tx::bytes" in m[0], ".bulk_group" in m[0]
    if m["dst"] == "global" and (mbarrier or not group):
        return "a bulk copy into global memory completes in a bulk group (`.bulk_group`)"
    if m["dst"] != "global" and (group or not mbarrier):
        return "a bulk copy into shared memory completes on an mbarrier (`.mbarrier::complete_tx::bytes`)"
    if m["hint"] and m["src"] == "shared::cta" and m["dst"] != "global":
        return "the shared::cta -> shared::cluster copy takes no `.L2::cache_hint`"
    return Form(ops, asm + ";", feature="bulk.sm100" if m["mask"] else "bulk.multicast" if m["mc"] else None)


_HINT = r"(?P<hint>\.L2::cache_hint)?"
# Lines of the ISA that ptxas 13 does not assemble (PTX ISA 9.3): refused by name until it does.
NOT_YET = [
    (r"mbarrier\.(?:try_wait|test_wait)(?:\.[a-z_:0-9]+)*\.phase_type::[a-z_:0-9]+(?:\.[a-z_:0-9]+)*",
     lambda m: "the `.phase_type` qualifiers of mbarrier.try_wait / test_wait are not supported yet: PTX ISA "
               "9.3, which ptxas 13 does not assemble"),
]
FAMILIES = [
    Family(rf"cp\.async\.(?P<kind>ca|cg){_SHARED}\.global(?:{_HINT}(?:\.L2::(?:64B|128B|256B))?"
           rf"|(?:\.L2::(?:64B|128B|256B))?(?P<hint2>\.L2::cache_hint)?)", _cp_async, "cp.async",
           ("cp.async.cg.shared.global", "cp.async.ca.shared.global", "cp.async.cg.shared.global.L2::128B",
            "cp.async.ca.shared::cta.global.L2::cache_hint", "cp.async.cg.shared.global.L2::cache_hint.L2::256B",
            "cp.async.ca.shared.global.L2::64B.L2::cache_hint"),
           "copy 4, 8 or 16 bytes global -> shared asynchronously (src_size: bytes read, the rest zero)"),
    Family(r"cp\.async\.commit_group", _fixed("@;"), "cp.async", ("cp.async.commit_group",)),
    Family(r"cp\.async\.wait_group", _fixed("@ $0;", Operand("imm", name="groups")), "cp.async", ("cp.async.wait_group",)),
    Family(r"cp\.async\.wait_all", _fixed("@;"), "cp.async", ("cp.async.wait_all",)),
    Family(r"cp\.async\.mbarrier\.arrive(?:\.noinc)?" + _OPT + r"\.b64",
           _generic(_fixed("@ [$0];", Operand("addr", space="shared"))), "mbarrier",
           ("cp.async.mbarrier.arrive.shared.b64", "cp.async.mbarrier.arrive.noinc.shared::cta.b64",
            "cp.async.mbarrier.arrive.noinc.b64")),
    Family(rf"mbarrier\.init{_OPT}\.b64", _generic(_fixed("@ [$0], $1;", Operand("addr", space="shared"),
                                                           Operand("in", "u32", name="count"))), "mbarrier",
           ("mbarrier.init.shared::cta.b64", "mbarrier.init.shared.b64", "mbarrier.init.b64")),
    Family(rf"mbarrier\.inval{_OPT}\.b64", _generic(_fixed("@ [$0];", Operand("addr", space="shared"))), "mbarrier",
           ("mbarrier.inval.shared::cta.b64", "mbarrier.inval.b64")),
    Family(r"mbarrier\.arrive(?:_drop)?(?P<expect>\.expect_tx)?" + _SEM + r"(?P<space>\.shared(?:::cta|::cluster)?)?\.b64",
           _generic(_ordered(_mbar_arrive, ("release", "relaxed"))), "mbarrier.tx",
           ("mbarrier.arrive.shared::cta.b64", "mbarrier.arrive.shared.b64", "mbarrier.arrive.expect_tx.shared::cta.b64",
            "mbarrier.arrive.relaxed.cta.shared::cta.b64", "mbarrier.arrive.release.cluster.shared::cluster.b64",
            "mbarrier.arrive.expect_tx.release.cta.shared::cta.b64", "mbarrier.arrive_drop.shared::cta.b64",
            "mbarrier.arrive_drop.expect_tx.release.cluster.shared::cluster.b64", "mbarrier.arrive.release.cta.b64",
            "mbarrier.arrive.expect_tx.b64"),
           "arrive on a barrier (optional count; expect_tx adds expected transaction bytes; arrive_drop also "
           "lowers the expected arrivals of later phases)"),
    Family(r"mbarrier\.(?:expect_tx|complete_tx)" + _SEM + r"(?:\.shared(?:::cta|::cluster)?)?\.b64", _generic(_ordered(_tx, ("relaxed",))),
           "mbarrier.tx", ("mbarrier.expect_tx.relaxed.cta.shared::cta.b64",
                           "mbarrier.complete_tx.relaxed.cluster.shared::cluster.b64",
                           "mbarrier.expect_tx.relaxed.cluster.shared::cluster.b64", "mbarrier.expect_tx.relaxed.cta.b64")),
    Family(r"mbarrier\.(?P<op>try_wait|test_wait)(?P<parity>\.parity)?(?:\.(?:acquire|relaxed))?(?:\.(?:cta|cluster))?"
           + _OPT + r"\.b64", _generic(_ordered(_mbar_wait, ("acquire", "relaxed"))), "mbarrier.tx",
           ("mbarrier.try_wait.parity.shared::cta.b64", "mbarrier.test_wait.parity.shared::cta.b64",
            "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64", "mbarrier.try_wait.shared::cta.b64",
            "mbarrier.test_wait.shared::cta.b64", "mbarrier.try_wait.parity.acquire.cluster.b64"),
           "has the phase completed? (returned, or written to a destination register)"),
    Family(r"fence\.proxy\.async(?:\.shared::cta|\.shared::cluster|\.global)?", _fixed("@;"), "bulk",
           ("fence.proxy.async.shared::cta", "fence.proxy.async", "fence.proxy.async.global")),
    Family(r"fence\.mbarrier_init\.release\.cluster", _fixed("@;"), "bulk", ("fence.mbarrier_init.release.cluster",)),
    Family(r"fence(?:\.(?:acq_rel|sc|acquire|release))?\.(?:cta|gpu|sys)", _fixed("@;"), "fence",
           ("fence.acq_rel.gpu", "fence.sc.cta", "fence.acquire.gpu", "fence.release.cta", "fence.sys")),
    Family(r"fence(?:\.(?:acq_rel|sc|acquire|release))?\.cluster", _fixed("@;"), "cluster",
           ("fence.acq_rel.cluster", "fence.release.cluster")),
    Family(r"fence\.proxy\.(?:alias|tensormap::generic\.release\.(?:cta|cluster|gpu|sys))",
           lambda m: Form((), f"{m[0]};", feature="fence" if m[0].endswith("alias") else None), "bulk",
           ("fence.proxy.alias", "fence.proxy.tensormap::generic.release.gpu")),
    Family(r"cp\.async\.bulk\.(?P<dst>shared::cluster|shared::cta|global)\.(?P<src>global|shared::cta)"
           r"(?:\.mbarrier::complete_tx::bytes)?(?:\.bulk_group)?(?P<mc>\.multicast::cluster)?" + _HINT
           + r"(?P<mask>\.cp_mask)?", _bulk, "bulk",
           ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes",
            "cp.async.bulk.shared::cta.global.mbarrier::complete_tx::bytes",
            "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes",
            "cp.async.bulk.global.shared::cta.bulk_group",
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.L2::cache_hint",
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint",
            "cp.async.bulk.global.shared::cta.bulk_group.L2::cache_hint.cp_mask"),
           "bulk copy of `bytes` (a multiple of 16) completing on an mbarrier or a bulk group (cta_mask: the "
           "cluster ranks a multicast writes to; byte_mask: the bytes of each 16 `.cp_mask` writes, sm_100)"),
    Family(r"cp\.async\.bulk\.tensor\.(?P<dims>[1-5])d\.(?P<dst>shared::cluster|shared::cta)\.global"
           r"(?P<mode>\.tile(?:::gather4)?)?\.mbarrier::complete_tx::bytes(?P<mc>\.multicast::cluster)?"
           r"(?P<cg>\.cta_group::[12])?" + _HINT, _bulk_tensor, "bulk",
           ("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes",
            "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.L2::cache_hint",
            "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes",
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster",
            "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster.L2::cache_hint",
            "cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes.cta_group::1",
            "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes",
            "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
            ".cta_group::2.L2::cache_hint"),
           "TMA load of a tile named by a tensor map (cta_mask: the cluster ranks a multicast writes to; "
           "`.tile::gather4`: four rows of a 2d tensor, five coordinates; `.cta_group`, gather4: sm_100a)"),
    Family(r"cp\.async\.bulk\.tensor\.(?P<dims>[1-5])d\.global\.shared::cta(?P<mode>\.tile(?:::scatter4)?)?\.bulk_group"
           + _HINT, _bulk_tensor_store, "bulk",
           ("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group", "cp.async.bulk.tensor.1d.global.shared::cta.tile.bulk_group",
            "cp.async.bulk.tensor.2d.global.shared::cta.tile::scatter4.bulk_group.L2::cache_hint"),
           "TMA store of a tile"),
    Family(r"cp\.async\.bulk\.commit_group", _fixed("@;"), "bulk", ("cp.async.bulk.commit_group",)),
    Family(r"cp\.async\.bulk\.wait_group(?:\.read)?", _fixed("@ $0;", Operand("imm", name="groups")), "bulk",
           ("cp.async.bulk.wait_group", "cp.async.bulk.wait_group.read")),
    Family(r"cp\.async\.bulk\.prefetch\.L2\.global" + _HINT,
           lambda m: Form((Operand("addr", space="global"), Operand("in", "u32", name="bytes"))
                          + ((Operand("in", "u64", name="cache_policy"),) if m["hint"] else ()),
                          f"{m[0]} [$0], $1" + (", $2;" if m["hint"] else ";")), "bulk",
           ("cp.async.bulk.prefetch.L2.global",)),
    Family(r"cp\.async\.bulk\.prefetch\.tensor\.(?P<dims>[1-5])d\.L2\.global(?P<mode>\.tile(?:::gather4)?)?" + _HINT,
           _tensor_prefetch, "bulk",
           ("cp.async.bulk.prefetch.tensor.2d.L2.global", "cp.async.bulk.prefetch.tensor.1d.L2.global.tile.L2::cache_hint",
            "cp.async.bulk.prefetch.tensor.2d.L2.global.tile::gather4")),
]
