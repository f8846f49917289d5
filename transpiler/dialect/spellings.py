"""What each older spelling of TIRx wrote, and what today's spelling writes for it: the facts the
scanner (scan.py) applies, read from apache/tvm's history (the May 2026 bring-up, the June renames
that replaced `with T.kernel()` by `T.device_entry()` and the scope blocks by `Tx.<scope>.<op>`, the
August PTX table that retired the keyword PTX wrappers) and from the fork's wheel a public course
pins. docs/older-spellings.md is the same table in words.

An older form belongs to the last spelling that still wrote it: a file is read as the earliest of
its forms' spellings (a file with `parent=` ids is the fork's even if the rest would pass for May's).
"""
from __future__ import annotations

# The spellings, oldest first: key -> how the note names it.
SPELLINGS = {
    "fork": "the pre-upstream fork's spelling (the mlc-ai-tirx 0.0.1 wheel, before May 2026)",
    "may": "apache/tvm's May 2026 spelling (the TIRx bring-up)",
    "june": "apache/tvm's June-July 2026 spelling (before August's PTX table)",
}
ORDER = tuple(SPELLINGS)

# `T.<id>(extents, parent="<scope>")` of the fork -> today's id function. The fork named every id
# by its parent scope; May named the pairs by function (`warp_id_in_wg`, `lane_id`, ...).
THREAD_IDS = {
    ("cta_id", "kernel"): "cta_id",
    ("cta_id", "cluster"): "cta_id_in_cluster",
    ("cluster_id", "kernel"): "cluster_id",
    ("warpgroup_id", "cta"): "warpgroup_id",
    ("warp_id", "cta"): "warp_id",
    ("warp_id", "warpgroup"): "warp_id_in_wg",
    ("thread_id", "cta"): "thread_id",
    ("thread_id", "warpgroup"): "thread_id_in_wg",
    ("thread_id", "warp"): "lane_id",
}

# Which id each id function declares, as (scope, the scope it counts within): the fork's by its
# `parent=`, the later spellings' by their names. `with T.warp()[lo:hi]:` (the fork's selection of
# the warps lo to hi - 1 of their parent) becomes an `if` on the id declared for (warp, parent).
IDS = {
    ("warpgroup_id", "cta"): ("warpgroup", "cta"), ("warpgroup_id", None): ("warpgroup", "cta"),
    ("warp_id", "cta"): ("warp", "cta"), ("warp_id", None): ("warp", "cta"),
    ("warp_id", "warpgroup"): ("warp", "warpgroup"), ("warp_id_in_wg", None): ("warp", "warpgroup"),
    ("thread_id", "cta"): ("thread", "cta"), ("thread_id", None): ("thread", "cta"),
    ("thread_id", "warpgroup"): ("thread", "warpgroup"), ("thread_id_in_wg", None): ("thread", "warpgroup"),
    ("thread_id", "warp"): ("thread", "warp"), ("lane_id", None): ("thread", "warp"),
}

# `with T.<scope>():` blocks (fork and May): their tile calls become `Tx.<scope>.<op>`; thread scope
# is `Tx.<op>`, today's default.
SCOPES = {"cta": "cta", "warpgroup": "warpgroup", "warp": "warp", "thread": None, "cluster": "cluster"}

# Modules that moved: older module -> (today's module, era, {older name -> today's name}).
MODULES = {
    "tvm.tir.layout": ("tvm.tirx.layout", "fork", {}),
    "tvm.tirx.pipeline": ("tvm.tirx.lang.pipeline", "fork", {}),
    "tvm.tirx.tile_scheduler": ("tvm.tirx.lang.tile_scheduler", "fork", {}),
    "tvm.tirx.warp_role": ("tvm.tirx.lang.warp_role", "fork", {}),
    "tvm.tirx.op_schedule.cuda.common": ("tvm.backend.cuda.tile_primitive.tma_utils", "fork",
                                         {"tma_shared_layout": "mma_shared_layout"}),
    "tvm.tirx.operator.tile_primitive.cuda.tma_utils": ("tvm.backend.cuda.tile_primitive.tma_utils", "may",
                                                        {"tma_shared_layout": "mma_shared_layout"}),
}

# The keyword PTX wrappers retired in August: `T.ptx.<path>(...)` -> today's call, for the operand
# counts the wrapper took (its other forms, a remote arrive through a CTA id and a predicate, are
# refused as not supported yet). Each wrapper was one fixed instruction (or, for try_wait, the
# parity-wait loop that `T.cuda.mbarrier_wait` is today).
PTX_WRAPPERS = {
    "mbarrier.init": ((2,), "ptx.mbarrier.init.shared.b64"),
    "mbarrier.try_wait": ((2,), "cuda.mbarrier_wait"),
    "mbarrier.arrive": ((1,), "ptx.mbarrier.arrive.shared.b64"),
    "mbarrier.arrive.expect_tx": ((2,), "ptx.mbarrier.arrive.expect_tx.shared.b64"),
    "fence.mbarrier_init": ((0,), "ptx.fence.mbarrier_init.release.cluster"),
    "tcgen05.fence.before_thread_sync": ((0,), "ptx.tcgen05.fence__before_thread_sync"),
    "tcgen05.fence.after_thread_sync": ((0,), "ptx.tcgen05.fence__after_thread_sync"),
    "tcgen05.wait.ld": ((0,), "ptx.tcgen05.wait__ld.sync.aligned"),
    "tcgen05.wait.st": ((0,), "ptx.tcgen05.wait__st.sync.aligned"),
    "elect_sync": ((0,), "cuda.elect_sync"),
    "cp_async.bulk.commit_group": ((0,), "ptx.cp.async_.bulk.commit_group"),
}
# Wrappers whose instruction depends on their operands (scan.py spells them out):
# `fence.proxy_async(space)` -> `T.ptx["fence.proxy.async.<space>"]()`,
# `tcgen05.commit(bar, cta_group=1, cta_mask=0)` -> the commit of that CTA group, multicast when a
# mask is given, and `cp_async.bulk.wait_group(n=0, read=True)` -> `T.ptx.cp.async_.bulk.wait_group.read(n)`
# (without `.read` for read=False).
PTX_SPELLED = ("fence.proxy_async", "tcgen05.commit", "cp_async.bulk.wait_group")
COMMIT = "tcgen05.commit.cta_group::{group}.mbarrier::arrive::one.shared::cluster{multicast}.b64"
