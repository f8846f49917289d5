"""Kernels of the gemm / gemm_async tests (CPU: tests/tile/test_gemm.py; GPU:
tests/gpu/test_tile_gemm.py), written as `.tx` text, and the host side of their checks.

Register fragments are staged from global memory through index tables: `idx[t, r]` is the flat
index of the element that thread t holds in register r, computed here from the layout by TIRx's
definition of a TileLayout (flatten the coordinate row-major, split it over the shard extents,
sum each iter's digit times its stride on its axis), so a kernel moves any layout's registers
with one loop."""
from __future__ import annotations

from math import prod

import numpy as np

AXIS_THREAD = {"laneid": 1, "tid_in_wg": 1, "wid_in_wg": 32}


def layout_text(iters) -> str:
    """`S[(e0, e1, ...) : (s0, s1 @ laneid, ...)]` of (extent, stride, axis) triples."""
    extents = ", ".join(str(e) for e, _, _ in iters)
    strides = ", ".join(f"{s} @ {a}" if a != "m" else str(s) for _, s, a in iters)
    return f"TileLayout(S[({extents},) : ({strides},)])"


def places(iters, shape):
    """{flat coordinate: (thread, register)} of a layout over shape."""
    out = {}
    for flat in range(prod(shape)):
        rest, thread, reg = flat, 0, 0
        for extent, stride, axis in reversed(iters):
            digit = rest % extent
            rest //= extent
            if axis == "m":
                reg += digit * stride
            else:
                thread += digit * stride * AXIS_THREAD[axis]
        out[flat] = (thread, reg)
    return out


# -- mma.sync fragments, tiled over a whole operand (registers: tile after tile) ---------------------------

def d_layout(M, N):
    """C / D (M, N): per 16 x 8 tile (mt, nt) the four accumulators rM * 2 + rN."""
    return [(M // 16, 4 * (N // 8), "m"), (2, 2, "m"), (8, 4, "laneid"), (N // 8, 4, "m"), (4, 1, "laneid"),
            (2, 1, "m")]


def a_layout(M, K, k, pack, transposed=False):
    """A (M, K) in the m16n8k<k> fragment: per tile (mt, kt), registers kHi * 2 + rM of `pack` elements."""
    per_tile = k // 2
    rows = [(M // 16, (K // k) * per_tile, "m"), (2, pack, "m"), (8, 4, "laneid")]
    cols = [(K // k, per_tile, "m"), (k // (4 * pack), 2 * pack, "m"), (4, 1, "laneid"), (pack, 1, "m")]
    return cols + rows if transposed else rows + cols


def b_layout(K, N, k, pack, transposed=False):
    """B (K, N) in the m16n8k<k> fragment: per tile (kt, nt), registers kHi of `pack` elements."""
    per_tile = k // 4
    rows = [(K // k, (N // 8) * per_tile, "m"), (k // (4 * pack), pack, "m"), (4, 1, "laneid"), (pack, 1, "m")]
    cols = [(N // 8, per_tile, "m"), (8, 4, "laneid")]
    return cols + rows if transposed else rows + cols


def nregs(iters) -> int:
    return 1 + sum((e - 1) * s for e, s, a in iters if a == "m")


def mma_kernel(dtype: str, acc: str, M: int, N: int, K: int, k: int, pack: int, beta: int = 0,
               tA: bool = False, tB: bool = False, scope: str = "warp", threads: int = 32) -> str:
    """out = A @ B (+ C): one call of Tx.<scope>.gemm on fragments staged through index tables;
    every warp of the block multiplies its own matrices (A_g[w], ...)."""
    A_shape = (K, M) if tA else (M, K)
    B_shape = (N, K) if tB else (K, N)
    la, lb, ld = a_layout(M, K, k, pack, tA), b_layout(K, N, k, pack, tB), d_layout(M, N)
    ra, rb, rd = nregs(la), nregs(lb), nregs(ld)
    warps = threads // 32
    call = f"Tx.{scope}.gemm(D_f, A_f, B_f, C_f, transpose_A={tA}, transpose_B={tB}, alpha=1.0, beta={beta}.0)"
    return f'''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid

@T.prim_func
def gemm(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle, D_ptr: T.handle, IA_ptr: T.handle,
         IB_ptr: T.handle, ID_ptr: T.handle):
    A_g = T.match_buffer(A_ptr, ({warps}, {prod(A_shape)}), "{dtype}")
    B_g = T.match_buffer(B_ptr, ({warps}, {prod(B_shape)}), "{dtype}")
    C_g = T.match_buffer(C_ptr, ({warps}, {M * N}), "{acc}")
    D_g = T.match_buffer(D_ptr, ({warps}, {M * N}), "{acc}")
    IA = T.match_buffer(IA_ptr, (32, {ra}), "int32")
    IB = T.match_buffer(IB_ptr, (32, {rb}), "int32")
    ID = T.match_buffer(ID_ptr, (32, {rd}), "int32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([{threads}])
    w: T.let = tid // 32
    lane: T.let = tid % 32
    A_f = T.alloc_buffer({A_shape}, "{dtype}", scope="local", layout={layout_text(la)})
    B_f = T.alloc_buffer({B_shape}, "{dtype}", scope="local", layout={layout_text(lb)})
    C_f = T.alloc_buffer(({M}, {N}), "{acc}", scope="local", layout={layout_text(ld)})
    D_f = T.alloc_buffer(({M}, {N}), "{acc}", scope="local", layout={layout_text(ld)})
    a = A_f.local({ra})
    b = B_f.local({rb})
    cr = C_f.local({rd})
    for r in T.unroll({ra}):
        a[r] = A_g[w, IA[lane, r]]
    for r in T.unroll({rb}):
        b[r] = B_g[w, IB[lane, r]]
    for r in T.unroll({rd}):
        cr[r] = C_g[w, ID[lane, r]]
    {call}
    d = D_f.local({rd})
    for r in T.unroll({rd}):
        D_g[w, ID[lane, r]] = d[r]
'''


def mma_tables(M, N, K, k, pack, tA=False, tB=False):
    A_shape = (K, M) if tA else (M, K)
    B_shape = (N, K) if tB else (K, N)
    la, lb, ld = a_layout(M, K, k, pack, tA), b_layout(K, N, k, pack, tB), d_layout(M, N)
    return [_table(la, A_shape), _table(lb, B_shape), _table(ld, (M, N))]


def _table(iters, shape):
    table = np.full((32, nregs(iters)), -1, np.int32)
    for flat, (thread, reg) in places(iters, shape).items():
        table[thread, reg] = flat
    assert (table >= 0).all()
    return table


# -- wgmma ---------------------------------------------------------------------------------------------------

def wgmma_acc_layout(M, N):
    """The wgmma accumulator of C (M, N), M a multiple of 64: per 64-row tile, warp w holds rows 16w..;
    registers: tile-major, then 4 per 8-column block."""
    return [(M // 64, N // 2, "m"), (4, 1, "wid_in_wg"), (2, 2, "m"), (8, 4, "laneid"), (N // 8, 4, "m"),
            (4, 1, "laneid"), (2, 1, "m")]


def wgmma_a_layout(M, K):
    """A (M, K) f16 in the wgmma A fragment: per (64-row tile, k16 step) four registers kHi * 2 + rM."""
    per = 8
    return [(M // 64, (K // 16) * per, "m"), (4, 1, "wid_in_wg"), (2, 2, "m"), (8, 4, "laneid"),
            (K // 16, per, "m"), (2, 4, "m"), (4, 1, "laneid"), (2, 1, "m")]


def wg_table(iters, shape):
    table = np.full((128, nregs(iters)), -1, np.int32)
    for flat, (thread, reg) in places(iters, shape).items():
        table[thread, reg] = flat
    assert (table >= 0).all()
    return table


def wgmma_kernel(M: int, N: int, K: int, swizzle: int = 3, accum: bool = False, a_in_registers: bool = False,
                 dtype: str = "float16") -> str:
    """C = A @ B^T (+ C0 when accum) by one Tx.wg.gemm_async: A (M, K) and B (N, K) copied into
    swizzled shared tiles by plain stores (the layout swizzles them), or A into registers."""
    lc = wgmma_acc_layout(M, N)
    la = wgmma_a_layout(M, K)
    rc, ra = nregs(lc), nregs(la)
    per_element = 3 if dtype in ("float16", "bfloat16") else 2
    a_decl = (f'A_f = T.alloc_buffer(({M}, {K}), "{dtype}", scope="local", layout={layout_text(la)})\n'
              f'    a = A_f.local({ra})\n'
              f'    for r in T.unroll({ra}):\n'
              f'        a[r] = A[IA[tid, r] // {K}, IA[tid, r] % {K}]\n') if a_in_registers else (
              f'As = T.alloc_buffer(({M}, {K}), "{dtype}", scope="shared", align=1024, '
              f'layout=ComposeLayout({per_element}, {swizzle}, 3, S[({M}, {K})]))\n'
              f'    for i in range({M * K // 128}):\n'
              f'        As[(i * 128 + tid) // {K}, (i * 128 + tid) % {K}] = A[(i * 128 + tid) // {K}, (i * 128 + tid) % {K}]\n')
    a_name = "A_f" if a_in_registers else "As"
    return f'''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, laneid, wid_in_wg

@T.prim_func
def wgmma_gemm(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle, IC_ptr: T.handle, IA_ptr: T.handle):
    A = T.match_buffer(A_ptr, ({M}, {K}), "{dtype}")
    B = T.match_buffer(B_ptr, ({N}, {K}), "{dtype}")
    C = T.match_buffer(C_ptr, ({M * N},), "float32")
    IC = T.match_buffer(IC_ptr, (128, {rc}), "int32")
    IA = T.match_buffer(IA_ptr, (128, {ra}), "int32")
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([128])
    {a_decl}    Bs = T.alloc_buffer(({N}, {K}), "{dtype}", scope="shared", align=1024, layout=ComposeLayout({per_element}, {swizzle}, 3, S[({N}, {K})]))
    for i in range({N * K // 128}):
        Bs[(i * 128 + tid) // {K}, (i * 128 + tid) % {K}] = B[(i * 128 + tid) // {K}, (i * 128 + tid) % {K}]
    acc = T.alloc_buffer(({M}, {N}), "float32", scope="local", layout={layout_text(lc)})
    c = acc.local({rc})
    for r in T.unroll({rc}):
        c[r] = C[IC[tid, r]]
    T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    Tx.wg.gemm_async(acc, {a_name}, Bs, accum={accum})
    T.ptx.wgmma.commit_group.sync.aligned()
    T.ptx.wgmma.wait_group.sync.aligned(0)
    for r in T.unroll({rc}):
        C[IC[tid, r]] = c[r]
'''


# -- tcgen05 (compile only) ---------------------------------------------------------------------------------

def tcgen05_kernel(dtype: str = "float16", N: int = 128, K: int = 64, group: int = 1, warp: bool = False,
                   scaled: bool = False, accum: str = "False", descI: str = "") -> str:
    """The docs' demonstration: one thread (or warp) multiplies swizzled shared tiles into tensor memory."""
    per_element = {"float16": 3, "bfloat16": 3, "float8_e4m3fn": 4}[dtype]
    width = 128 // (2 if per_element == 3 else 1)
    cluster = "    T.cta_id_in_cluster([2])\n" if group == 2 else ""
    scale = ""
    sf_args = ""
    if scaled:
        scale = ('    SFA = T.decl_buffer((128, 4), "float8_e8m0fnu", scope="tmem", allocated_addr=tmem_addr[0] + 256,\n'
                 '                        layout=TileLayout(S[(128, 4) : (1 @ TLane, 1 @ TCol)]))\n'
                 '    SFB = T.decl_buffer((128, 4), "float8_e8m0fnu", scope="tmem", allocated_addr=tmem_addr[0] + 260,\n'
                 '                        layout=TileLayout(S[(128, 4) : (1 @ TLane, 1 @ TCol)]))\n')
        sf_args = ", SFA=SFA[:, :], SFB=SFB[:, :]"
    prefix = "Tx.warp" if warp else "Tx"
    guard = "warp_id == 0" if warp else "tid == 0"
    extra = f", cta_group={group}" + (f", descI={descI}" if descI else "")
    return f'''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, TLane, TCol

@T.prim_func
def tc_gemm(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, {width}), "{dtype}")
    B = T.match_buffer(B_ptr, ({N // group}, {width}), "{dtype}")
    T.device_entry()
    T.cta_id([{group}])
{cluster}    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer((128, {width}), "{dtype}", scope="shared", align=1024,
                            layout=ComposeLayout({per_element}, 3, 3, S[(128, {width})]))
    B_smem = T.alloc_buffer(({N // group}, {width}), "{dtype}", scope="shared", align=1024,
                            layout=ComposeLayout({per_element}, 3, 3, S[({N // group}, {width})]))
    tmem_addr = T.alloc_shared([1], "uint32")
    mbar = T.alloc_shared([1], "uint64")
    if warp_id == 0:
        T.ptx["tcgen05.alloc.cta_group::{group}.sync.aligned.shared::cta.b32"](T.address_of(tmem_addr), T.uint32(512))
    T.cuda.cta_sync()
    tmem = T.decl_buffer((128, 512), "float32", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 512) : (1 @ TLane, 1 @ TCol)]))
{scale}    for i in range({128 * width // 128}):
        A_smem[i, tid % {width}] = A[i, tid % {width}]
    if {guard}:
        {prefix}.gemm_async(tmem[0:128, 0:{N}], A_smem, B_smem{sf_args}, accum={accum}{extra})
        T.ptx.tcgen05.commit.cta_group__{group}.mbarrier__arrive__one.shared__cluster.b64(mbar.ptr_to([0]))
'''
