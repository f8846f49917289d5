"""The diagnostic codes of `tirxc sim --racecheck` (races, E0820-E0829; tensor memory, E0846-E0849)
and `--synccheck` (barrier protocols, E0830-E0845): docs/sim.md. Part of the one code table, transpiler/diag/codes.py,
which places them in its order."""

SIM_CHECK_CODES: dict[str, tuple[str, str]] = {
    "E0820": ("data race", "Two threads of a block access overlapping bytes of shared or global memory, one a write, "
              "and nothing orders them (__syncthreads, a named barrier, an mbarrier phase, a warp collective, an atomic): "
              "the value read depends on timing. Add the barrier between the two places the notes name."),
    "E0821": ("data race between blocks", "Two blocks access overlapping bytes of global memory, one a write; "
              "blocks run in no order and only atomics (with fences) order them. Give each block its own bytes."),
    "E0822": ("read before an async copy's wait", "An async copy (cp.async, TMA) writes these bytes when it "
              "completes: at the wait_group / wait_all, or the mbarrier phase, that retires it. Wait, then sync."),
    "E0823": ("memory reused while an async operation uses it", "An async operation still reads or writes these "
              "bytes: wait for its completion (wait_group, the mbarrier phase) before writing or reading them."),
    "E0824": ("wgmma accumulators used before their wait_group", "A wgmma.mma_async writes its accumulator registers "
              "asynchronously, until the wgmma.wait_group that retires its group (commit_group closes a group; "
              "wait_group N leaves the newest N in flight). Reading or writing them before that wait sees or is "
              "overwritten by the unfinished MMA: commit the group and wait for it first."),
    "E0825": ("wgmma without wgmma.fence", "The PTX ISA asks for wgmma.fence before a warpgroup's first "
              "wgmma.mma_async and between any access of registers by other code and a wgmma that uses them "
              "(accumulators, A fragments): without it the wgmma may read the registers before that access. Add "
              "T.ptx.wgmma.fence.sync.aligned() before the wgmma."),
    "E0826": ("generic write read by the async proxy without fence.proxy.async", "TMA stores, bulk copies and "
              "wgmma read shared memory through the async proxy, which sees a generic-proxy write (an ordinary store) "
              "only across a fence.proxy.async: by the writing thread after its writes and before the barrier that "
              "orders them before the operation, or by the issuing thread. Add T.ptx.fence.proxy.async_.shared__cta() "
              "after the writes."),
    "E0827": ("data race between the CTAs of a cluster", "Threads of two CTAs of one cluster access overlapping "
              "bytes (distributed shared memory through mapa, a multicast copy, global memory), one a write, and "
              "nothing orders them: a cluster barrier (barrier.cluster.arrive.release / wait.acquire, "
              "T.cuda.cluster_sync), a remote mbarrier arrive and its wait. A .relaxed arrive orders no memory "
              "unless a fence of cluster scope comes before it. Add the cluster barrier between the two places."),
    "E0828": ("tcgen05 operations ordered without the tcgen05 fences", "A thread sync (__syncthreads, a named "
              "barrier, an mbarrier phase) orders a tcgen05 operation (alloc, ld, st, mma, cp, dealloc) of one thread "
              "before one of another thread only with tcgen05.fence::before_thread_sync after the first, in its "
              "thread, and tcgen05.fence::after_thread_sync before the second, in its thread (an MMA's commit stands "
              "for the first; a dealloc needs no second). Add T.ptx.tcgen05.fence__before_thread_sync() before the "
              "sync and T.ptx.tcgen05.fence__after_thread_sync() after it."),
    "E0830": ("__syncthreads not reached by every thread", "A thread ended, or took a branch without the barrier, "
              "while others wait at it: the barrier then counts fewer threads than the kernel means."),
    "E0831": ("one barrier reached from different places", "Threads meet at __syncthreads called from different "
              "places of the kernel (divergent branches): undefined on the GPU. Call it where every thread passes."),
    "E0832": ("named barrier counts disagree", "Threads arrive at one named barrier (bar.sync / bar.arrive) with "
              "different thread counts; every arrival at a barrier id must name the same count."),
    "E0833": ("mbarrier used before its init is ordered", "An mbarrier is used by a thread that its `init` does not "
              "happen before: initialise it in one thread, then fence and __syncthreads before any use."),
    "E0834": ("mbarrier arrivals beyond the expected count", "A phase got more arrivals than the count its init (or "
              "arrive_drop) expects: an extra arrive, or a count that is too small."),
    "E0835": ("mbarrier transaction bytes do not match", "More bytes completed on the mbarrier (complete_tx, async "
              "copies) than expect_tx announced for the phase; the phase can never complete as intended."),
    "E0836": ("mbarrier phase skipped", "A parity wait observed a phase two after the one its thread last observed: "
              "the parity bit is not kept in step with the phases, so a wait can see a phase two phases old."),
    "E0837": ("deadlock", "No thread of the block can go on: each waits (at a barrier, a collective, an mbarrier "
              "poll) for something no thread will do. The message names the waiting threads and what they wait at."),
    "E0838": ("mbarrier init not fenced for the async proxy", "A TMA completes its bytes on an mbarrier through "
              "the async proxy, which sees the barrier's init only across fence.mbarrier_init (or fence.proxy.async) "
              "by the initialising thread, ordered before the copy's issue: T.ptx.fence.mbarrier_init.release.cluster() "
              "after the inits, then the barrier that publishes them."),
    "E0839": ("cluster barrier not reached by every thread of the cluster", "A barrier.cluster phase completed "
              "while threads of the cluster had ended without arriving (they count as arrived, so the barrier waits "
              "for fewer threads than the kernel means): a CTA that exits while the others wait takes its shared "
              "memory away from them. Reach the cluster barrier on every path, before any thread ends."),
    "E0840": ("CTA exits while the cluster may still access its shared memory", "A CTA's shared memory ends with "
              "the CTA. An access of it by another CTA of the cluster (a DSMEM load or store through mapa, a remote "
              "mbarrier arrive, a multicast copy) that is not ordered before the CTA's exit may find it gone: end "
              "the kernel with a cluster barrier (T.cuda.cluster_sync) that every CTA reaches after its last "
              "remote access."),
    "E0841": ("remote mbarrier used without fence.mbarrier_init", "Another CTA of the cluster arrives on this "
              "mbarrier, and the cluster sees its init only across fence.mbarrier_init.release.cluster (or "
              "fence.proxy.async) by the initialising thread, ordered before the use: "
              "T.ptx.fence.mbarrier_init.release.cluster() after the inits, then the cluster barrier."),
    "E0842": ("shared memory of a CTA accessed before it is known to run", "The CTAs of a cluster start in no "
              "order: another CTA's shared memory may be accessed (mapa and ld / st.shared::cluster, a remote "
              "arrive, a multicast copy) only after a cluster barrier that CTA also passed since its start "
              "(T.cuda.cluster_sync before the first remote access)."),
    "E0846": ("tcgen05.ld without tcgen05.wait::ld", "tcgen05.ld is asynchronous: its destination registers hold "
              "the tensor-memory values only after the thread's tcgen05.wait::ld. A thread ended with a load no wait "
              "followed, so its uses of the registers may read them early: add the wait before the first use."),
    "E0847": ("tensor memory accessed outside what the warp may reach", "A tcgen05.ld / st reaches lanes outside "
              "its warp's quarter (warp % 4), or an access (ld, st, mma, cp) reaches columns that are not allocated: "
              "often an address read from the shared slot before the tcgen05.alloc that writes it is ordered."),
    "E0848": ("tensor-memory allocation misused", "A tcgen05.dealloc of columns not allocated (a double free), an "
              "alloc after relinquish_alloc_permit or one no dealloc could satisfy, or a block that ends with "
              "columns allocated (a leak): allocate once per CTA, free exactly what was allocated, before the end."),
    "E0901": ("unknown tile primitive",
              "`Tx.<op>(...)` runs a tile primitive at thread scope and `Tx.<scope>.<op>(...)` at a "
              "wider one (`warp`, `wg` / `warpgroup`, `cta`, `cluster`, `thread`). The name is not one "
              "of the primitives docs/tile-primitives.md lists, or the prefix is not a scope."),
    "E0902": ("tile primitive used where it cannot run",
              "A tile primitive is device code: it goes after `T.device_entry()`, and its scope comes "
              "from its namespace (`Tx.warp.copy`), not from a `scope=` argument."),
    "E0903": ("bad tile-primitive operand",
              "Operands are buffers or buffer regions (`A[0:64, k:k + 32]`, or a whole buffer), "
              "numbers or run-time scalars where the primitive takes a value, and strings where it "
              "takes an op name; `workspace=` is a dict of buffers. Any other keyword argument is a "
              "config option that the chosen lowering may read."),
    "E0904": ("no lowering accepts this tile-primitive call",
              "Dispatch tries the lowerings (variants) registered for the primitive, highest priority "
              "first, and takes the first whose conditions hold for this call: the operands' memory "
              "scopes, dtypes, shapes and layouts, the cooperation scope and the threads that reach "
              "the call, the target architecture, and `dispatch=` when given. The message lists each "
              "variant with the condition that ruled it out, naming the operand or layout it refused; "
              "its `help:` names the variant that came closest (met the most of its conditions) and "
              "the condition it still needs, the likely fix. `tirxc info` shows which variant each "
              "accepted call got and why."),
    "E0905": ("unknown dispatch variant",
              "`dispatch=\"name\"` forces one lowering of a tile primitive; the name must be one of the "
              "primitive's variants (the message lists them)."),
    "E0723": ("inconsistent cluster shape",
              "A thread-block cluster is a box of CTAs (`T.cta_id_in_cluster([x, y, z])`, or "
              "`cluster=` of the launch configuration) that tiles the grid: each grid extent is a "
              "whole number of clusters, and `T.cluster_id` counts those clusters. Without "
              "`T.cta_id_in_cluster` the shape is the grid divided by `T.cluster_id`'s extents. "
              "`T.cta_id_in_pair` (the CTA's half of a CTA pair) needs an even cluster declared by "
              "`T.cta_id_in_cluster`."),
    "E0724": ("tensor-memory data that does not pack into columns",
              "Tensor memory is lanes of 32-bit columns. A buffer of 4-, 8- or 16-bit elements packs "
              "32 / bits of them into each column along TCol (two float16, four uint8), so a tcgen05 "
              "address into it starts at a column boundary: a region starting at element 1 of a "
              "float16 row would point inside a column. 64-bit dtypes do not fit."),
}
