"""Kernel generators of the reduction property tests that sweep dtypes and operations (the GPU
runs them against NumPy: tests/gpu/test_tile_reduction_lanes.py). The behaviours of single
instances are case files: tests/tile/cases/reduction/lanes_*.tx."""
from __future__ import annotations

HEAD = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import R, S, TileLayout, laneid
'''


def lanes_kernel(dtype: str = "float32", op: str = "sum", accum: bool = False) -> str:
    """src: 32 lanes x 4 elements (a 1-D view of 128, lane l holds 4l .. 4l + 3) reduced into a (4,)
    replicated over the lanes; then (32, 2, 2) at the gapped registers 0, 4, 2, 6 into a (2, 2)."""
    return HEAD + f'''
@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle, D_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "{dtype}")
    B = T.match_buffer(B_ptr, (32, 4), "{dtype}")
    C = T.match_buffer(C_ptr, (32, 2, 2), "{dtype}")
    D = T.match_buffer(D_ptr, (32, 2, 2), "{dtype}")
    T.device_entry()
    T.cta_id([1])
    lane = T.lane_id([32])
    s = T.alloc_buffer([4], "{dtype}", scope="local")
    d = T.alloc_buffer([4], "{dtype}", scope="local")
    for i in T.serial(4):
        s[i] = A[lane * 4 + i]
        d[i] = T.cast(i, "{dtype}")
    sv = s.view(128, layout=TileLayout(S[(32, 4) : (1 @ laneid, 1)]))
    dv = d.view(4, layout=TileLayout(S[4:1] + R[32 : 1 @ laneid]))
    Tx.warp.{op}(dv, sv, accum={accum})
    for i in T.serial(4):
        B[lane, i] = d[i]
    g = T.alloc_buffer([7], "{dtype}", scope="local")
    h = T.alloc_buffer([7], "{dtype}", scope="local")
    gv = g.view(32, 2, 2, layout=TileLayout(S[(32, 2, 2) : (1 @ laneid, 2, 4)]))
    hv = h.view(2, 2, layout=TileLayout(S[(2, 2) : (2, 4)] + R[32 : 1 @ laneid]))
    for i, j in T.grid(2, 2):
        g[i * 2 + j * 4] = C[lane, i, j]
    Tx.warp.{op}(hv, gv)
    for i, j in T.grid(2, 2):
        D[lane, i, j] = h[i * 2 + j * 4]
'''
