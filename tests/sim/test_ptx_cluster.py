"""Clusters under `tirxc sim` (docs/sim.md, "Clusters"): the blocks of a cluster run together, a
store through `mapa` and `st.shared::cluster` lands in the other CTA's shared memory, the cluster
barrier orders it before that CTA reads, and the cluster registers name each block's place."""
from __future__ import annotations

import numpy as np
import pytest

from transpiler import sim
from transpiler.syntax.source import SourceFile

SOURCE = '''
from tvm.script import tirx as T


@T.prim_func
def push_left(A_ptr: T.handle, R_ptr: T.handle):
    A = T.match_buffer(A_ptr, (6, 32), "uint32")
    R = T.match_buffer(R_ptr, (6, 2), "uint32")
    T.device_entry()
    bx = T.cta_id([6])
    rank = T.cta_id_in_cluster([3])
    tx = T.thread_id([32])
    mine = T.alloc_shared((32,), "uint32")
    remote = T.alloc_local((1,), "uint32")
    T.cuda.cluster_sync()
    T.ptx["mapa.shared::cluster.u32"](remote[0], mine.ptr_to([tx]), T.uint32((rank + 2) % 3))
    T.ptx["st.shared::cluster.u32"](remote[0], T.uint32(bx * 100 + tx))
    T.cuda.cluster_sync()
    A[bx, tx] = mine[tx]
    if tx == 0:
        R[bx, 0] = T.cuda.mov_sreg(32, "cluster_ctarank")
        R[bx, 1] = T.cuda.mov_sreg(32, "clusterid.x")
'''


@pytest.fixture(scope="module")
def module():
    return sim.load_source(SourceFile("cluster_push.tx", SOURCE), arch="sm_90a")


def test_a_store_to_a_neighbours_shared_memory_is_there_after_the_cluster_barrier(module):
    a, r = np.zeros((6, 32), np.uint32), np.zeros((6, 2), np.uint32)
    module.push_left(a, r)
    for bx in range(6):  # block bx (rank bx % 3) received from the CTA whose left neighbour it is
        sender = bx // 3 * 3 + (bx % 3 + 1) % 3
        assert (a[bx] == sender * 100 + np.arange(32)).all(), bx
    assert (r[:, 0] == np.arange(6) % 3).all() and (r[:, 1] == np.arange(6) // 3).all()
