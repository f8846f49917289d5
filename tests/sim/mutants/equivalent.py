"""Mutants shown equivalent by reading the kernel: the removed synchronisation orders no
conflicting accesses of different threads, so no schedule can change the result and no checker
should report it. Keyed by Mutant.ident (source:line:col:kind); the reason says which accesses
the synchronisation separates and why they do not conflict. A survivor not listed here (and not
found equivalent by mutate.orders_nothing_after) counts against the score."""
from __future__ import annotations

_OWN = "each thread reads back only the shared elements it wrote itself ({}): the barrier orders no accesses of different threads"

EQUIVALENT: dict[str, str] = {
    "samples/smem_demo.tx:22:5:barrier": _OWN.format("sm[tx]"),
    "samples/dyn_smem_views.tx:29:5:barrier": _OWN.format("As[tx], Bs[tx]"),
    "samples/dyn_smem_views_function.tx:28:5:barrier": _OWN.format("As[tx], Bs[tx]"),
    "samples/smem_pool.tx:38:5:barrier":
        "Cs, allocated after move_base_to(0), overlaps As only: thread tx writes Cs[flat] (flat = k * 256 + tx) "
        "where it alone read As[flat]; Bs, which other threads read, lies past As and is not overwritten",
    "samples/smem_pool.tx:45:5:barrier": _OWN.format("Cs[flat], flat = k * 256 + tx, in both loops"),
    "tests/tile/cases/copy/gmem_smem_window_with_run_time_start.tx:17:5:barrier":
        _OWN.format("both copies give thread t the float4s (f * 64 + t) * 4 of Sm"),
    "tests/tile/cases/copy/gmem_smem_partial_last_round_is_guarded.tx:17:5:barrier":
        _OWN.format("both warp copies give lane t the float4s (f * 32 + t) * 4 of Sm, under the same guard"),
    "tests/tile/cases/copy/gmem_smem_swizzled_3d_warpgroup.tx:18:5:barrier":
        _OWN.format("both copies give thread t the 16 bytes at the same swizzled offset of Sm"),
    "tests/tile/cases/copy_forced/vec_64b_32b_16b_through_registers.tx:33:5:barrier":
        _OWN.format("Sh[tid, 0:4], written by thread tid's two stores and read by its own load"),
    "samples/gemm_bf16_blackwell.tx:64:5:fence":
        "the tcgen05.fence::after_thread_sync after the barrier that publishes the alloc: every thread whose "
        "tcgen05 operations follow executes another after_thread_sync after that barrier and before its first "
        "tcgen05 operation (the MMA thread at line 86, after the \"full\" wait; the epilogue at line 97, after "
        "the \"done\" wait), which orders the alloc as well",
    "tests/sim/gpu/test_remote_barrier.py::remote_barrier.tx:23:9:mbarrier_wait":
        "CTA 0's wait on its barrier orders no access: what follows it (O[bx] = rank + 1) reads nothing the remote "
        "arrival publishes, and the cluster barrier after it orders the remote arrive before CTA 0 exits",
    "tests/cuda_helpers/kernels/clusters.tx:16:5:barrier":
        "the first cluster barrier orders no access: the kernel uses no shared memory, and each thread writes only "
        "its own element of A (from the cluster registers, which no thread writes)",
    "tests/conformance/tile_primitives-reduction-shared__2.tx:15:5:barrier":
        "Tx.cta.sum on shared memory ends with its own __syncthreads(): the deleted barrier follows it with no "
        "access between, so it orders nothing that barrier does not",
}
