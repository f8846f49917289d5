"""The kernels (no tests here) of the copy and permute_layout tests (tests/tile/test_copy.py on the host and
with nvcc, tests/gpu/test_tile_copy.py on the GPU): name -> (.tx text, the variant of each call)."""
from __future__ import annotations

HEAD = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, laneid, tx
'''

KERNELS = {
    # global -> shared -> global, a sub-region with a run-time start, 16-byte vectors, cta scope
    "gs_window": ('''
@T.prim_func
def gs_window(A_ptr: T.handle, B_ptr: T.handle, m0: T.int32):
    A = T.match_buffer(A_ptr, (128, 64), "float32")
    B = T.match_buffer(B_ptr, (64, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([64])
    Sm = T.alloc_buffer((64, 32), "float32", scope="shared")
    Tx.cta.copy(Sm, A[m0:m0 + 64, 8:40])
    T.cuda.cta_sync()
    Tx.cta.copy(B, Sm)
''', ["gmem_smem", "gmem_smem"]),
    # 192 elements over a warp: 48 vectors, the second round only for lanes 0-15
    "gs_partial": ('''
@T.prim_func
def gs_partial(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 6), "float32")
    B = T.match_buffer(B_ptr, (32, 6), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Sm = T.alloc_buffer((32, 6), "float32", scope="shared")
    Tx.warp.copy(Sm, A)
    T.cuda.cta_sync()
    Tx.warp.copy(B, Sm)
''', ["gmem_smem", "gmem_smem"]),
    # 3-D, a 128-byte swizzled shared layout (8-element chunks of float16), warpgroup scope
    "gs_swizzled": ('''
@T.prim_func
def gs_swizzled(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (2, 8, 64), "float16")
    B = T.match_buffer(B_ptr, (2, 8, 64), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    Sm = T.alloc_buffer((2, 8, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, S[(2, 8, 64)]))
    Tx.wg.copy(Sm, A)
    T.cuda.cta_sync()
    Tx.wg.copy(B, Sm)
''', ["gmem_smem", "gmem_smem"]),
    # 1-D, forced 8-byte vectors, and a copy into a column (no vectors possible)
    "gs_forced": ('''
@T.prim_func
def gs_forced(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (256,), "float32")
    B = T.match_buffer(B_ptr, (256,), "float32")
    C = T.match_buffer(C_ptr, (32, 4), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Sm = T.alloc_buffer((256,), "float32", scope="shared")
    Tx.warp.copy(Sm, A, vec_len=2)
    T.cuda.cta_sync()
    Tx.warp.copy(B, Sm)
    Tx.warp.copy(C[:, 1], Sm[32:64])
''', ["gmem_smem", "gmem_smem", "gmem_smem"]),
    # registers spread over lanes <-> global (lane l holds [:, l, :]), and a slice of them
    "reg_lanes": ('''
@T.prim_func
def reg_lanes(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (2, 32, 4), "float32")
    B = T.match_buffer(B_ptr, (2, 32, 4), "float32")
    C = T.match_buffer(C_ptr, (32, 4), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    R = T.alloc_buffer((2, 32, 4), "float32", scope="local", layout=TileLayout(S[(2, 32, 4) : (4, 1 @ laneid, 1)]))
    Tx.warp.copy(R, A)
    for i in range(8):
        R.local()[i] = R.local()[i] * 2.0
    Tx.warp.copy(B, R)
    Tx.warp.copy(C, R[1, :, :])
''', ["reg", "reg", "reg"]),
    # a thread's own registers: global -> local -> local -> global at thread scope
    "reg_thread": ('''
@T.prim_func
def reg_thread(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float32")
    B = T.match_buffer(B_ptr, (32, 8), "float32")
    T.device_entry()
    T.cta_id([1])
    t = T.thread_id([32])
    R = T.alloc_local((8,), "float32")
    Q = T.alloc_local((8,), "float32")
    Tx.copy(R, A[t, 0:8])
    Tx.copy(Q, R)
    Tx.copy(B[t, 0:8], Q)
''', ["reg", "reg", "reg"]),
    # cta scope: thread t holds row t (the `tx` axis); thread scope: each thread its own shared row
    "reg_cta": ('''
@T.prim_func
def reg_cta(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 4), "float32")
    B = T.match_buffer(B_ptr, (128, 4), "float32")
    C = T.match_buffer(C_ptr, (128, 4), "float32")
    T.device_entry()
    T.cta_id([1])
    t = T.thread_id([128])
    R = T.alloc_buffer((128, 4), "float32", scope="local", layout=TileLayout(S[(128, 4) : (1 @ tx, 1)]))
    Sm = T.alloc_buffer((128, 4), "float32", scope="shared")
    Tx.cta.copy(R, A)
    Tx.cta.copy(B, R)
    Tx.copy(Sm[t, 0:4], A[t, 0:4])
    Tx.copy(C[t, 0:4], Sm[t, 0:4])
''', ["reg", "reg", "gmem_smem", "gmem_smem"]),
    # the page's transpose of a 4x32 block per pipeline stage (tile_primitives/permute_layout.rst)
    "permute": ('''
@T.prim_func
def permute(A: T.handle, B: T.handle):
    A_buf = T.match_buffer(A, (2, 1, 4, 32), "float32", layout=TileLayout(S[(2, 1, 4, 32) : (128, 128, 32, 1)]))
    B_buf = T.match_buffer(B, (2, 1, 4, 32), "float32", layout=TileLayout(S[(2, 1, 4, 32) : (128, 128, 1, 4)]))
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    for s in T.serial(0, 2):
        Tx.warp.permute_layout(B_buf[s, 0:1, 0:4, 0:32], A_buf[s, 0:1, 0:4, 0:32])
''', ["warp_xor_swizzle"]),
}

# Kernels with warp-collective instructions or shared memory read by other threads: GPU only.
GPU_KERNELS = {
    # in place: a shared tile transposed under itself (the same bytes read as two layouts)
    "permute_in_place": ('''
@T.prim_func
def permute_in_place(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 32), "float32")
    B = T.match_buffer(B_ptr, (256,), "float32")
    T.device_entry()
    T.cta_id([1])
    t = T.thread_id([32])
    Sm = T.alloc_buffer((256,), "float32", scope="shared")
    pre = T.decl_buffer((8, 32), "float32", data=Sm.data, scope="shared", layout=TileLayout(S[(8, 32) : (32, 1)]))
    post = T.decl_buffer((8, 32), "float32", data=Sm.data, scope="shared", layout=TileLayout(S[(8, 32) : (1, 8)]))
    Tx.warp.copy(pre, A)
    T.cuda.warp_sync()
    Tx.warp.permute_layout(post, pre)
    Tx.warp.copy(B, Sm)
''', ["gmem_smem", "warp_xor_swizzle", "gmem_smem"]),
    # ldmatrix / stmatrix of two m8n8 fp16 matrices, row-major (.x2) and column-major (.x2.trans) shared;
    # the stmatrix targets start zeroed (from D and E)
    "ldst": ('''
@T.prim_func
def ldst(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle, D_ptr: T.handle, E_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 4, 2, 2), "float16")
    B = T.match_buffer(B_ptr, (8, 4, 2, 2), "float16")
    C = T.match_buffer(C_ptr, (8, 4, 2, 2), "float16")
    D = T.match_buffer(D_ptr, (8, 4, 2, 2), "float16")
    E = T.match_buffer(E_ptr, (8, 4, 2, 2), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Sr = T.alloc_buffer((8, 4, 2, 2), "float16", scope="shared", layout=TileLayout(S[(8, 4, 2, 2) : (16, 2, 8, 1)]))
    Sc = T.alloc_buffer((8, 4, 2, 2), "float16", scope="shared", layout=TileLayout(S[(8, 4, 2, 2) : (1, 16, 64, 8)]))
    Sd = T.alloc_buffer((8, 4, 2, 2), "float16", scope="shared", layout=TileLayout(S[(8, 4, 2, 2) : (1, 16, 64, 8)]))
    Se = T.alloc_buffer((8, 4, 2, 2), "float16", scope="shared", layout=TileLayout(S[(8, 4, 2, 2) : (16, 2, 8, 1)]))
    R = T.alloc_buffer((8, 4, 2, 2), "float16", scope="local", layout=TileLayout(S[(8, 4, 2, 2) : (4 @ laneid, 1 @ laneid, 2, 1)]))
    Q = T.alloc_buffer((8, 4, 2, 2), "float16", scope="local", layout=TileLayout(S[(8, 4, 2, 2) : (4 @ laneid, 1 @ laneid, 2, 1)]))
    Tx.warp.copy(Sr, A)
    Tx.warp.copy(Sc, A)
    Tx.warp.copy(Sd, D)
    Tx.warp.copy(Se, E)
    T.cuda.cta_sync()
    Tx.warp.copy(R, Sr)
    Tx.warp.copy(B, R)
    Tx.warp.copy(Q, Sc)
    Tx.warp.copy(C, Q)
    Tx.warp.copy(Sd, R)
    Tx.warp.copy(Se, Q)
    T.cuda.cta_sync()
    Tx.warp.copy(D, Sd)
    Tx.warp.copy(E, Se)
''', ["gmem_smem"] * 4 + ["ldstmatrix", "reg", "ldstmatrix", "reg", "ldstmatrix", "ldstmatrix", "gmem_smem",
                            "gmem_smem"]),
    # ldmatrix .x4 of an mma A fragment (16x16 fp16) from a column window of a 128-byte swizzled tile
    "ldst_x4": ('''
@T.prim_func
def ldst_x4(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 16), "float16")
    B = T.match_buffer(B_ptr, (16, 16), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Sm = T.alloc_buffer((16, 64), "float16", scope="shared", layout=ComposeLayout(3, 3, 3, S[(16, 64)]))
    R = T.alloc_buffer((16, 16), "float16", scope="local", layout=TileLayout(S[(2, 8, 2, 4, 2) : (2, 4 @ laneid, 4, 1 @ laneid, 1)]))
    Tx.warp.copy(Sm[:, 16:32], A)
    T.cuda.cta_sync()
    Tx.warp.copy(R, Sm[:, 16:32])
    Tx.warp.copy(B, R)
''', ["gmem_smem", "ldstmatrix", "reg"]),
}


def source(name: str) -> str:
    text, _ = {**KERNELS, **GPU_KERNELS}[name]
    return HEAD + text
