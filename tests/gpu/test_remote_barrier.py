"""`MBarrier.remote_view(rank).arrive(...)` (tirxc's pipeline library) on the GPU: in each 2-CTA
cluster, CTA 1 arrives on CTA 0's barrier, which also waits for its own arrival; CTA 0 passes its
wait only when the remote arrival landed (the barrier expects two)."""
from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

KERNEL = """\
from tvm.script import tirx as T
from tvm.tirx.lang.pipeline import MBarrier


@T.prim_func
def remote(O: T.Buffer((4,), "int32")):
    T.device_entry()
    bx = T.cta_id([4])
    rank = T.cta_id_in_cluster([2])
    tx = T.thread_id([32])
    pool = T.SMEMPool()
    bar = MBarrier(pool, 1)
    pool.commit()
    bar.init(2)
    T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cluster_sync()
    if tx == 0:
        if rank == 1:
            bar.remote_view(0).arrive(0)
        else:
            bar.arrive(0)
    if rank == 0:
        bar.wait(0, 0)
    O[bx] = rank + 1
    T.cuda.cluster_sync()
"""


def test_a_remote_arrival_completes_the_leader_ctas_barrier(launcher_for):
    import cupy

    module = launcher_for("remote_barrier", KERNEL)
    out = cupy.zeros(4, cupy.int32)
    module.remote(out)
    cupy.cuda.Device().synchronize()
    assert np.array_equal(out.get(), [1, 2, 1, 2])
