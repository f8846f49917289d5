"""The kernels of the copy_async tests (tests/tile/test_copy_async.py on the host and with nvcc,
tests/gpu/test_tile_copy_async.py on the GPU): name -> (.tx text, the variant of each call, the
architecture nvcc compiles it for). No tests here."""
from __future__ import annotations

HEAD = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import R, S, TCol, TileLayout, TLane, ComposeLayout
from tvm.tirx.layout import tid_in_wg as axis_tid_in_wg
'''

# A TMA load into a shared tile and the tile written back by the CTA's threads (through the
# layout): one mbarrier, armed with the bytes the copy moves.
_TMA_LOAD = '''
@T.prim_func
def {name}(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, {gshape}, "{dtype}")
    B = T.match_buffer(B_ptr, {sshape}, "{dtype}")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    Sm = T.alloc_buffer({sshape}, "{dtype}", scope="shared.dyn", align=1024, layout={layout})
    bar = T.alloc_shared((1,), "uint64")
    if tid == 0:
        T.ptx.mbarrier.init.shared.b64(bar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cta_sync()
    if tid == 0:
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(bar.ptr_to([0]), T.uint32({nbytes}))
        Tx.copy_async(Sm, A[{region}], mbar=bar.ptr_to([0]))
    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
    Tx.cta.copy(B, Sm)
'''

KERNELS = {
    # the ldgsts page's demonstration program: 128 threads, 16-byte cp.async, outer = 4
    "ldgsts_cta": ('''
@T.prim_func
def ldgsts_cta(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 32), "float32")
    B = T.match_buffer(B_ptr, (128, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    Sm = T.alloc_buffer((128, 32), "float32", scope="shared")
    Tx.cta.copy_async(Sm, A)
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    T.cuda.cta_sync()
    Tx.cta.copy(B, Sm)
''', ["ldgsts", "gmem_smem"], "sm_80"),
    # a window with a run-time start, rows of 6 floats: 8-byte copies; a warp
    "ldgsts_window": ('''
@T.prim_func
def ldgsts_window(A_ptr: T.handle, B_ptr: T.handle, m0: T.int32):
    A = T.match_buffer(A_ptr, (64, 8), "float32")
    B = T.match_buffer(B_ptr, (32, 6), "float32")
    T.device_entry()
    T.cta_id([1])
    lane = T.thread_id([32])
    Sm = T.alloc_buffer((32, 6), "float32", scope="shared")
    Tx.warp.copy_async(Sm, A[m0 * 2:m0 * 2 + 32, 2:8])
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    for o in range(3):  # each thread reads back its own 8-byte copies (a host run keeps threads apart)
        for v in range(2):
            f = (o * 32 + lane) * 2 + v
            B[f // 6, f % 6] = Sm[f // 6, f % 6]
''', ["ldgsts"], "sm_80"),
    # predicated zero-fill: each thread one 16-byte row, rows at or past n are zeros
    "ldgsts_zero_fill": ('''
@T.prim_func
def ldgsts_zero_fill(A_ptr: T.handle, B_ptr: T.handle, n: T.int32):
    A = T.match_buffer(A_ptr, (32, 4), "float32")
    B = T.match_buffer(B_ptr, (32, 4), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    Sm = T.alloc_buffer((32, 4), "float32", scope="shared")
    Tx.copy_async(Sm[tid, 0:4], A[tid, 0:4], direct=True, predicate=tid < n, fill_mode="zero")
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    for j in range(4):
        B[tid, j] = Sm[tid, j]
''', ["ldgsts"], "sm_80"),
    # a predicate without fill: where it is 0 the shared row keeps what was there
    "ldgsts_predicated": ('''
@T.prim_func
def ldgsts_predicated(A_ptr: T.handle, B_ptr: T.handle, n: T.int32):
    A = T.match_buffer(A_ptr, (32, 4), "float32")
    B = T.match_buffer(B_ptr, (32, 4), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    Sm = T.alloc_buffer((32, 4), "float32", scope="shared")
    for j in range(4):
        Sm[tid, j] = T.float32(-1)
    Tx.copy_async(Sm[tid, 0:4], A[tid, 0:4], direct=True, predicate=tid < n, prefetch_size=128)
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    for j in range(4):
        B[tid, j] = Sm[tid, j]
''', ["ldgsts"], "sm_80"),
    # a swizzled shared tile (16-byte chunks kept together) at warpgroup scope
    "ldgsts_swizzled": ('''
@T.prim_func
def ldgsts_swizzled(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 32), "float32")
    B = T.match_buffer(B_ptr, (16, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([128])
    Sm = T.alloc_buffer((16, 32), "float32", scope="shared", layout=ComposeLayout(2, 3, 3, TileLayout(S[8, 32])))
    Tx.wg.copy_async(Sm, A)
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    Tx.wg.copy(B, Sm)
''', ["ldgsts", "gmem_smem"], "sm_80"),
    # TMA: a 64 x 64 bfloat16 tile out of a larger matrix, 128-byte swizzle
    "tma_load_swizzled": (_TMA_LOAD.format(
        name="tma_load_swizzled", gshape="(256, 128)", sshape="(64, 64)", dtype="bfloat16",
        layout="ComposeLayout(3, 3, 3, TileLayout(S[8, 64]))", nbytes=64 * 64 * 2, region="64:128, 64:128"),
        ["tma", "gmem_smem"], "sm_90a"),
    # TMA: float32 rows of 32 (128 bytes) with a 64-byte swizzle: two boxes of 16 columns, the
    # shared tile laid out as two column halves
    "tma_load_halves": (_TMA_LOAD.format(
        name="tma_load_halves", gshape="(32, 64)", sshape="(32, 32)", dtype="float32",
        layout="ComposeLayout(2, 2, 3, TileLayout(S[(32, 2, 16) : (16, 512, 1)]))", nbytes=32 * 32 * 4,
        region="0:32, 16:48"), ["tma", "gmem_smem"], "sm_90a"),
    # TMA: no swizzle, 3-D, a unit dimension squeezed out on the shared side
    "tma_load_3d": (_TMA_LOAD.format(
        name="tma_load_3d", gshape="(4, 16, 32)", sshape="(16, 32)", dtype="float16",
        layout="TileLayout(S[16, 32])", nbytes=16 * 32 * 2, region="2, :, :"), ["tma", "gmem_smem"], "sm_90a"),
    # TMA store: the CTA fills a swizzled tile, one thread stores it (two boxes), bulk-group waits
    "tma_store": ('''
@T.prim_func
def tma_store(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 128), "float16")
    B = T.match_buffer(B_ptr, (128, 128), "float16")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    Sm = T.alloc_buffer((64, 128), "float16", scope="shared.dyn", align=1024,
                        layout=ComposeLayout(3, 3, 3, TileLayout(S[(64, 2, 64) : (64, 4096, 1)])))
    Tx.cta.copy(Sm, A)
    T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    if tid == 0:
        Tx.copy_async(B[64:128, :], Sm)
        T.ptx.cp.async_.bulk.commit_group()
        T.ptx.cp.async_.bulk.wait_group(0)
''', ["gmem_smem", "tma"], "sm_90a"),
    # TMA options: a load past the global rows (oob="nan" fills them), a prefetched map, L2
    # promotion; a reducing store (B += the tile)
    "tma_options": ('''
@T.prim_func
def tma_options(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (48, 32), "float32")
    B = T.match_buffer(B_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    Sm = T.alloc_buffer((32, 32), "float32", scope="shared.dyn", align=1024)
    bar = T.alloc_shared((1,), "uint64")
    if tid == 0:
        T.ptx.mbarrier.init.shared.b64(bar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cta_sync()
    if tid == 0:
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(bar.ptr_to([0]), T.uint32(32 * 32 * 4))
        Tx.copy_async(Sm, A[32:64, :], mbar=bar.ptr_to([0]), oob="nan", prefetch_tensormap=True,
                      tensormap_l2_promotion="L2::256B")
    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
    if tid == 0:
        Tx.copy_async(B, Sm, use_tma_reduce="add")
        T.ptx.cp.async_.bulk.commit_group()
        T.ptx.cp.async_.bulk.wait_group(0)
''', ["tma", "tma"], "sm_90a"),
    # TMA through a 4-stage ring: a run-time stage index, one tensor map for both calls
    "tma_stages": ('''
@T.prim_func
def tma_stages(A_ptr: T.handle, B_ptr: T.handle):
    M = T.int32()
    K = T.int32()
    A = T.match_buffer(A_ptr, (M, K), "bfloat16", align=16)
    B = T.match_buffer(B_ptr, (M, K), "bfloat16")
    T.device_entry()
    bx = T.cta_id([M // 128])
    tid = T.thread_id([128])
    As = T.alloc_buffer((4, 128, 64), "bfloat16", scope="shared.dyn", align=1024,
                        layout=ComposeLayout(3, 3, 3, TileLayout(S[8, 64])))
    bar = T.alloc_shared((4,), "uint64")
    if tid == 0:
        for s in T.unroll(4):
            T.ptx.mbarrier.init.shared.b64(bar.ptr_to([s]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cta_sync()
    for kt in range(K // 64):
        s = kt % 4
        if tid == 0:
            T.ptx.mbarrier.arrive.expect_tx.shared.b64(bar.ptr_to([s]), T.uint32(128 * 64 * 2))
            if kt % 2 == 0:
                Tx.copy_async(As[s, :, :], A[bx * 128:bx * 128 + 128, kt * 64:kt * 64 + 64], mbar=bar.ptr_to([s]))
            else:
                Tx.copy_async(As[s, :, :], A[bx * 128:bx * 128 + 128, kt * 64:kt * 64 + 64], mbar=bar.ptr_to([s]),
                              cache_hint="evict_first")
        T.cuda.mbarrier_wait(bar.ptr_to([s]), (kt // 4) % 2)
        for i in range(64):
            B[bx * 128 + tid, kt * 64 + i] = As[s, tid, i]
        T.cuda.cta_sync()
''', ["tma", "tma"], "sm_90a"),
    # distributed shared memory: CTA 0 of a 2-CTA cluster bulk-copies its tile into CTA 1's
    "dsmem_pair": ('''
@T.prim_func
def dsmem_pair(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 64), "float16")
    B = T.match_buffer(B_ptr, (128, 64), "float16")
    T.device_entry()
    cbx = T.cta_id_in_cluster([2])
    T.cta_id([2])
    tid = T.thread_id([1])
    src_smem = T.alloc_shared((128, 64), "float16", align=128)
    dst_smem = T.alloc_shared((128, 64), "float16", align=128)
    bar = T.alloc_shared((1,), "uint64")
    T.ptx.mbarrier.init.shared.b64(bar.ptr_to([0]), T.uint32(1))
    T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cluster_sync()
    if cbx == 0:
        Tx.copy(src_smem, A)
        T.ptx.fence.proxy.async_.shared__cta()
        Tx.copy_async(dst_smem, src_smem, mbar=bar.ptr_to([0]), remote_cta_id=1)
    else:
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(bar.ptr_to([0]), T.uint32(128 * 64 * 2))
        T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
        Tx.copy(B, dst_smem)
    T.cuda.cluster_sync()
''', ["gmem_smem", "dsmem", "gmem_smem"], "sm_90a"),
    # distributed shared memory, strided: 48 of 64 columns, one bulk copy per row
    "dsmem_rows": ('''
@T.prim_func
def dsmem_rows(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 64), "float32")
    B = T.match_buffer(B_ptr, (16, 48), "float32")
    T.device_entry()
    cbx = T.cta_id_in_cluster([2])
    T.cta_id([2])
    tid = T.thread_id([1])
    src_smem = T.alloc_shared((16, 64), "float32", align=128)
    dst_smem = T.alloc_shared((16, 48), "float32", align=128)
    bar = T.alloc_shared((1,), "uint64")
    T.ptx.mbarrier.init.shared.b64(bar.ptr_to([0]), T.uint32(1))
    T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cluster_sync()
    if cbx == 0:
        Tx.copy(src_smem, A)
        T.ptx.fence.proxy.async_.shared__cta()
        Tx.copy_async(dst_smem, src_smem[:, 8:56], mbar=bar.ptr_to([0]), remote_cta_id=cbx + 1)
    else:
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(bar.ptr_to([0]), T.uint32(16 * 48 * 4))
        T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
        Tx.copy(B, dst_smem)
    T.cuda.cluster_sync()
''', ["gmem_smem", "dsmem", "gmem_smem"], "sm_90a"),
    # tensor memory round trip through registers (the tcgen05_ldst page's program, float32, x8)
    "tcgen05_ldst_f32": ('''
@T.prim_func
def tcgen05_ldst_f32(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 8), "float32")
    B = T.match_buffer(B_ptr, (128, 8), "float32")
    T.device_entry()
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    tmem_addr = T.alloc_shared([1], "uint32")
    if warp_id == 0:
        T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"](T.address_of(tmem_addr), T.uint32(32))
    T.tvm_storage_sync("shared")
    tmem = T.decl_buffer((128, 8), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 8) : (1 @ TLane, 1 @ TCol)]))
    A_reg = T.alloc_local((8,), "float32")
    B_reg = T.alloc_local((8,), "float32")
    A_local = A_reg.view(128, 8, layout=TileLayout(S[(128, 8) : (1 @ axis_tid_in_wg, 1)]))
    B_local = B_reg.view(128, 8, layout=TileLayout(S[(128, 8) : (1 @ axis_tid_in_wg, 1)]))
    for j in range(8):
        A_reg[j] = A[tid, j]
    Tx.wg.copy_async(tmem[:, :], A_local[:, :])
    T.ptx.tcgen05.wait__st.sync.aligned()
    T.cuda.cta_sync()
    Tx.wg.copy_async(B_local[:, 0:6], tmem[:, 2:8])
    T.ptx.tcgen05.wait__ld.sync.aligned()
    for j in range(6):
        B[tid, j] = B_reg[j]
    T.cuda.cta_sync()
    if warp_id == 0:
        T.ptx["tcgen05.dealloc.cta_group::1.sync.aligned.b32"](tmem_addr[0], T.uint32(32))
''', ["tcgen05_ldst", "tcgen05_ldst"], "sm_100a"),
    # shared -> tensor memory, the tcgen05_cp page's program (32 x 16 bytes, warpx4)
    "tcgen05_cp_warpx4": ('''
@T.prim_func
def tcgen05_cp_warpx4(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 16), "uint8")
    T.device_entry()
    warp_id = T.warp_id([4])
    tid_in_wg = T.thread_id([128])
    A_smem = T.alloc_buffer([32, 16], "uint8", scope="shared", layout=TileLayout(S[(32, 16) : (16, 1)]), align=1024)
    tmem_addr = T.alloc_shared([1], "uint32")
    cp_mbar = T.alloc_shared([1], "uint64")
    if warp_id == 0:
        T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"](T.address_of(tmem_addr), T.uint32(32))
    T.cuda.cta_sync()
    tmem = T.decl_buffer([32, 16], "uint8", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(32, 16) : (1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane]))
    if tid_in_wg == 0:
        Tx.copy_async(tmem[0:32, 0:16], A_smem[0:32, 0:16], cta_group=1)
        T.ptx.tcgen05.commit.cta_group__1.mbarrier__arrive__one.shared__cluster.b64(cp_mbar.ptr_to([0]))
''', ["tcgen05_cp"], "sm_100a"),
    # shared -> tensor memory, 128 lanes of 32 bytes (128x256b), two core-matrix columns
    "tcgen05_cp_128x256b": ('''
@T.prim_func
def tcgen05_cp_128x256b(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 16), "float16")
    T.device_entry()
    warp_id = T.warp_id([4])
    tid_in_wg = T.thread_id([128])
    A_smem = T.alloc_buffer([128, 16], "float16", scope="shared",
                            layout=TileLayout(S[(16, 8, 2, 8) : (64, 8, 1024, 1)]), align=1024)
    tmem_addr = T.alloc_shared([1], "uint32")
    if warp_id == 0:
        T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"](T.address_of(tmem_addr), T.uint32(32))
    T.cuda.cta_sync()
    tmem = T.decl_buffer([128, 16], "float16", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 16) : (1 @ TLane, 1 @ TCol)]))
    if tid_in_wg == 0:
        Tx.copy_async(tmem, A_smem)
''', ["tcgen05_cp"], "sm_100a"),
}


def source(name: str) -> str:
    return HEAD + KERNELS[name][0]
