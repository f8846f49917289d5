"""The kernels (no tests here) of the forced-width copy tests (tests/tile/test_copy_forced.py with nvcc,
tests/gpu/test_tile_copy_forced.py on the GPU): name -> (.tx text, the variant of each call, the arch)."""
from __future__ import annotations

HEAD = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, laneid
'''

KERNELS = {
    # 128-bit: global -> registers with the read-only path and L1 / prefetch hints, registers -> shared,
    # shared -> registers, registers -> global; each of 32 threads its own 16 bytes (run-time starts)
    "fw_128": ('''
@T.prim_func
def fw_128(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "float32")
    B = T.match_buffer(B_ptr, (128,), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    Sm = T.alloc_buffer((128,), "float32", scope="shared")
    r = T.alloc_local((4,), "float32")
    q = T.alloc_local((4,), "float32")
    Tx.copy(r[:], A[tid * 4:tid * 4 + 4], dispatch="vec_128b", cache="nc", l1_evict="L1::no_allocate",
            prefetch_size="L2::256B")
    Tx.copy(Sm[tid * 4:tid * 4 + 4], r[:], dispatch="vec_128b")
    T.cuda.cta_sync()
    Tx.copy(q[:], Sm[124 - tid * 4:128 - tid * 4], dispatch="vec_128b")
    Tx.copy(B[tid * 4:tid * 4 + 4], q[:], dispatch="vec_128b")
''', ["vec_128b"] * 4, "sm_90a"),
    # 64-bit global -> shared -> global (through the lowering's registers), a cache operator;
    # 32-bit into part of a register array (2 halves), 16-bit single halves
    "fw_narrow": ('''
@T.prim_func
def fw_narrow(A_ptr: T.handle, B_ptr: T.handle, H_ptr: T.handle, G_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64,), "float32")
    B = T.match_buffer(B_ptr, (64,), "float32")
    H = T.match_buffer(H_ptr, (32, 4), "float16")
    G = T.match_buffer(G_ptr, (32, 4), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    Sm = T.alloc_buffer((64,), "float32", scope="shared")
    Sh = T.alloc_buffer((32, 4), "float16", scope="shared")
    h = T.alloc_local((4,), "float16")
    Tx.copy(Sm[tid * 2:tid * 2 + 2], A[tid * 2:tid * 2 + 2], dispatch="vec_64b", cache="cs")
    T.cuda.cta_sync()
    Tx.copy(B[tid * 2:tid * 2 + 2], Sm[62 - tid * 2:64 - tid * 2], dispatch="vec_64b")
    Tx.copy(h[2:4], H[tid, 0:2], dispatch="vec_32b", l1_evict="evict_last")
    Tx.copy(h[0:2], H[tid, 2:4], dispatch="vec_32b")
    Tx.copy(Sh[tid, 0:4], h[:], dispatch="vec_64b")
    Tx.copy(Sh[tid, 1:2], H[31 - tid, 3:4], dispatch="vec_16b")
    T.cuda.cta_sync()
    Tx.copy(G[tid, 0:4], Sh[tid, 0:4], dispatch="vec_64b")
''', ["vec_64b", "vec_64b", "vec_32b", "vec_32b", "vec_64b", "vec_16b", "vec_64b"], "sm_90a"),
    # 256-bit (sm_100): global -> registers with every hint, registers -> global
    "fw_256": ('''
@T.prim_func
def fw_256(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (256,), "int32")
    B = T.match_buffer(B_ptr, (256,), "int32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    r = T.alloc_local((8,), "int32")
    Tx.copy(r[:], A[tid * 8:tid * 8 + 8], dispatch="vec_256b", cache="nc", l1_evict="L1::no_allocate",
            l2_evict="L2::evict_first", prefetch_size="L2::256B")
    Tx.copy(B[248 - tid * 8:256 - tid * 8], r[:], dispatch="vec_256b")
''', ["vec_256b"] * 2, "sm_100a"),
    # TIRx's vec_auto: registers spread over lanes at gapped registers (0, 4, 2, 6), and a thread's
    # own registers through shared memory
    "fw_auto": ('''
@T.prim_func
def fw_auto(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 2, 2), "float32")
    B = T.match_buffer(B_ptr, (32, 2, 2), "float32")
    C = T.match_buffer(C_ptr, (4,), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    reg = T.alloc_buffer((32, 2, 2), "float32", scope="local", layout=TileLayout(S[(32, 2, 2) : (1 @ laneid, 2, 4)]))
    Tx.warp.copy(reg, A, dispatch="vec_auto")
    Tx.warp.copy(B, reg, dispatch="vec_auto")
    Sm = T.alloc_buffer((4,), "float32", scope="shared")
    r = T.alloc_buffer((4,), "float32", scope="local", layout=TileLayout(S[4]))
    for i in range(4):
        r[i] = T.cast(i + 1, "float32")
    Tx.copy(Sm[:], r[:], dispatch="vec_auto")
    T.cuda.cta_sync()
    Tx.copy(C[:], Sm[:], dispatch="vec_auto")
''', ["vec_auto"] * 4, "sm_90a"),
    # the auto-vectorizing copies honour the load hints: a thread's own registers from a strided
    # global view (`reg`, 16-byte rows), and registers spread over lanes (`vec_auto`)
    "fw_hinted_auto": ('''
@T.prim_func
def fw_hinted_auto(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 4, 16), "int32")
    B = T.match_buffer(B_ptr, (32, 4), "float32")
    C = T.match_buffer(C_ptr, (32, 4), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    d = T.alloc_local((4, 4), "int32")
    Tx.copy(d, A[0, :, 4:8], cache="nc")
    R = T.alloc_buffer((32, 4), "float32", scope="local", layout=TileLayout(S[(32, 4) : (1 @ laneid, 1)]))
    Tx.warp.copy(R, B, dispatch="vec_auto", cache="nc", l1_evict="L1::evict_last")
    Tx.warp.copy(C, R)
    C[tid, 0] = T.cast(d[tid % 4, 1], "float32")
''', ["reg", "vec_auto", "reg"], "sm_90a"),
}


def source(name: str) -> str:
    return HEAD + KERNELS[name][0]
