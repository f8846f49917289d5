"""Tiers 3 and 4: swizzled layouts, registers spread over threads, SMEMPool,
tensor memory and the PTX table, through small inline kernels."""
from __future__ import annotations

import pytest

from tests.conftest import SAMPLES, errors, transpile
from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.target import ptx
from transpiler.target.dtypes import INT32

HEAD = "from tvm.script import tirx as T\nfrom tvm.tirx.layout import TileLayout, ComposeLayout, S, laneid, TLane, TCol\n"


def cuda(body: str, **options) -> str:
    result = transpile(HEAD + body, **options)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    return result.cuda


def test_compose_layout_matches_the_reference_formula():
    """fp16 + 128-byte swizzle (3, 3, 3) on an (8, 64) tile: addr(i, j) = 64 i + 8 ((j // 8) ^ i) + j % 8."""
    tile = layouts.tile_layout([ir.IntImm(INT32, 8), ir.IntImm(INT32, 64)])
    swizzled = ir.Layout(tile.shard, (), (), (3, 3, 3, True))
    for i in range(8):
        for j in range(64):
            index = layouts.memory_index(swizzled, [ir.IntImm(INT32, i), ir.IntImm(INT32, j)],
                                         [ir.IntImm(INT32, 8), ir.IntImm(INT32, 64)], ir.IntImm(INT32, 0))
            assert index.value == 64 * i + 8 * ((j // 8) ^ i) + j % 8


def test_compose_layout_in_source_prints_the_xor():
    out = cuda('''
@T.prim_func
def sw(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 64), "float16")
    T.device_entry()
    tx = T.thread_id([64])
    Ts = T.alloc_shared((8, 64), "float16", layout=ComposeLayout(3, 3, 3, TileLayout(S[8, 64])))
    Ts[0, tx] = A[0, tx]
    T.cuda.cta_sync()
    A[1, tx] = Ts[0, tx]
''')
    assert "  Ts_ptr[((((tx >> 3) ^ (((tx >> 3) & 56) >> 3)) << 3) + (tx & 7))] = A_ptr[tx];" in out


def test_registers_spread_over_lanes_take_their_memory_span():
    out = cuda('''
@T.prim_func
def spread(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float32")
    T.device_entry()
    lane = T.lane_id([32])
    R = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 8) : (1 @ laneid, 1)]))
    R_flat = R.local()
    R_2d = R.local(2, 4)
    for i in T.unroll(8):
        R_flat[i] = A[lane, i]
    A[lane, 0] = R_2d[1, 3] + R_flat[0]
''')
    assert "float R_ptr[8];" in out
    assert "R_ptr[7] = A_ptr[((lane * 8) + 7)];" in out
    assert "A_ptr[(lane * 8)] = R_ptr[7] + R_ptr[0];" in out


def test_smem_pool_views_get_typed_pointers_at_their_offsets():
    out = (SAMPLES / "smem_pool.tx").read_text()
    text = cuda(out.split("from tvm.script import tirx as T\n", 1)[1])
    assert "extern __shared__ __align__(128) unsigned char smem_ptr[];" in text
    assert "float* As_ptr = (float*)smem_ptr;" in text
    assert "float* Bs_ptr = (float*)(smem_ptr + 32768);" in text
    assert "float* Cs_ptr = (float*)smem_ptr;" in text
    result = transpile((SAMPLES / "smem_pool.tx").read_text(), "smem_pool.tx")
    assert result.program.kernels[0].spec.dynamic_shared_bytes == 65536


def test_keyword_and_mnemonic_forms_of_tcgen05_are_the_same_instruction():
    body = '''
@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "uint32")
    T.device_entry()
    tx = T.thread_id([128])
    warp_id = T.warp_id([4])
    slot = T.alloc_shared((1,), "uint32")
    if warp_id == 0:
        {alloc}
    T.cuda.cta_sync()
    A[tx] = slot[0]
    if warp_id == 0:
        {dealloc}
'''
    keyword = cuda(body.format(alloc="T.ptx.tcgen05.alloc(T.address_of(slot), n_cols=256, cta_group=1)",
                               dealloc="T.ptx.tcgen05.dealloc(slot[0], n_cols=256, cta_group=1)"))
    mnemonic = cuda(body.format(
        alloc='T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"](T.address_of(slot), T.uint32(256))',
        dealloc='T.ptx["tcgen05.dealloc.cta_group::1.sync.aligned.b32"](slot[0], T.uint32(256))'))
    assert keyword == mnemonic
    assert "// Minimum architecture: sm_100a" in keyword
    assert "tirx_ptx_tcgen05_alloc_cta_group__1_sync_aligned_shared__cta_b32(slot_ptr, 256u);" in keyword


def test_instruction_above_the_target_architecture_is_an_error():
    result = transpile((SAMPLES / "tmem_manual.tx").read_text(), "tmem_manual.tx", arch="sm_90a", until="check")
    found = [e for e in errors(result) if e[2] == "E0320"]
    assert found[0] == (26, 9, "E0320") and len(found) == 9  # once per instruction
    message = next(d.message for d in result.diagnostics if d.code == "E0320")
    assert "needs sm_100a, but the target is sm_90a" in message
    assert transpile((SAMPLES / "mma_gemm_fp16.tx").read_text(), arch="sm_80", until="check").ok
    assert not transpile((SAMPLES / "mma_gemm_fp16.tx").read_text(), arch="sm_75", until="check").ok


@pytest.mark.parametrize("mnemonic", ptx.EXAMPLES)
def test_every_listed_instruction_resolves_and_names_its_architecture(mnemonic):
    instr = ptx.lookup(mnemonic)
    assert instr is not None and instr.min_arch >= 75
    source = instr.source()
    assert source.count("asm volatile(") == 1 and instr.helper in source
    if mnemonic.startswith(("tcgen05", "wgmma", "setmaxnreg")):
        assert instr.suffix == "a"


def test_attribute_spelling_maps_to_the_mnemonic():
    assert ptx.from_attribute_path(["cp", "async_", "commit_group"]) == "cp.async.commit_group"
    assert ptx.from_attribute_path(["tcgen05", "wait__ld", "sync", "aligned"]) == "tcgen05.wait::ld.sync.aligned"


def test_mma_gemm_sample_uses_ldmatrix_and_mma_helpers():
    text = cuda((SAMPLES / "mma_gemm_fp16.tx").read_text().split("from tvm.script import tirx as T\n", 1)[1])
    assert text.count("__device__ __forceinline__ void tirx_ptx_") == 2
    assert "tirx_ptx_mma_sync_aligned_m16n8k16_row_col_f32_f16_f16_f32(acc_ptr[0], acc_ptr[1]" in text
    assert "// Minimum architecture: sm_80" in text
