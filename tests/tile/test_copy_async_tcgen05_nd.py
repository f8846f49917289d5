"""`tcgen05_cp` over tensor-memory tiles of any number of dimensions (transpiler/tile/copy_async/tcgen05.py):
the lane and column of each element come from the layout's TLane / TCol iters, so a (4, 32, 16) tile
of four 16-column blocks, or a 2-D buffer whose columns interleave, copies atom by atom from where
the shared layout holds each atom; the refusals (E0904 at the call) and nvcc (sm_100a)."""
from __future__ import annotations

import pytest

from tests.conftest import errors, has_nvcc, transpile
from tests.build_cache import compile_cuda

HEAD = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import R, S, TCol, TileLayout, TLane
'''


def kernel(shape, dtype, s_layout, t_layout, call="Tx.copy_async(tmem, A_smem)") -> str:
    return HEAD + f'''
@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, {shape}, "{dtype}")
    T.device_entry()
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer({shape}, "{dtype}", scope="shared", layout={s_layout}, align=1024)
    tmem_addr = T.alloc_shared([1], "uint32")
    if warp_id == 0:
        T.ptx["tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32"](T.address_of(tmem_addr), T.uint32(32))
    T.cuda.cta_sync()
    tmem = T.decl_buffer({shape}, "{dtype}", scope="tmem", allocated_addr=tmem_addr[0], layout={t_layout})
    if tid == 0:
        {call}
'''


BLOCKS = kernel((4, 32, 16), "uint8", "TileLayout(S[(4, 32, 16) : (512, 16, 1)])",
                "TileLayout(S[(4, 32, 16) : (16 @ TCol, 1 @ TLane, 1 @ TCol)] + R[4 : 32 @ TLane])")
INTERLEAVED = kernel((256, 16), "uint8", "TileLayout(S[(2, 4, 32, 4, 4) : (2048, 4, 16, 512, 1)])",
                     "TileLayout(S[(2, 4, 32, 4, 4) : (16 @ TCol, 4 @ TCol, 1 @ TLane, 32 @ TCol, 1 @ TCol)]"
                     " + R[4 : 32 @ TLane])")
WIDE = kernel((2, 128, 8), "float32", "TileLayout(S[(2, 16, 8, 2, 4) : (1024, 32, 4, 512, 1)])",
              "TileLayout(S[(2, 128, 8) : (8 @ TCol, 1 @ TLane, 1 @ TCol)])")
CASES = {"blocks": (BLOCKS, ["32x128b_warpx4(tmem_addr_ptr[0], tirx_cuda_tcgen05_make_desc(&A_smem_ptr[0], 0, 8, 0))",
                             "32x128b_warpx4(tmem_addr_ptr[0] + 4u, tirx_cuda_tcgen05_make_desc(&A_smem_ptr[512], 0, 8, 0))",
                             "32x128b_warpx4(tmem_addr_ptr[0] + 12u, tirx_cuda_tcgen05_make_desc(&A_smem_ptr[1536], 0, 8, 0))"]),
         "interleaved": (INTERLEAVED, ["32x128b_warpx4(tmem_addr_ptr[0] + 4u, tirx_cuda_tcgen05_make_desc(&A_smem_ptr[2048], 0, 8, 0))",
                                       "32x128b_warpx4(tmem_addr_ptr[0] + 8u, tirx_cuda_tcgen05_make_desc(&A_smem_ptr[512], 0, 8, 0))"]),
         "wide": (WIDE, ["128x256b(tmem_addr_ptr[0], tirx_cuda_tcgen05_make_desc(&A_smem_ptr[0], 128, 8, 0))",
                         "128x256b(tmem_addr_ptr[0] + 8u, tirx_cuda_tcgen05_make_desc(&A_smem_ptr[1024], 128, 8, 0))"])}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_atom_reads_where_the_shared_layout_holds_it(name):
    text, calls = CASES[name]
    result = transpile(text, "k.tx", arch="sm_100a")
    assert not result.diagnostics, [str(d.message) for d in result.diagnostics]
    assert [d.variant for d in result.program.kernels[0].tile_dispatch] == ["tcgen05_cp"]
    for call in calls:
        assert call in result.cuda, call


REFUSED = [
    (kernel((128, 8), "float32", "TileLayout(S[(128, 8) : (8, 1)])", "TileLayout(S[(128, 8) : (1 @ TLane, 2 @ TCol)])"),
     "the tensor-memory region is not a rectangle of lanes x columns, each element in its own place"),
    (kernel((128, 8), "float32", "TileLayout(S[(128, 8) : (8, 1)])", "TileLayout(S[(128, 8) : (1 @ TLane, 1 @ TCol)])",
            "Tx.copy_async(tmem[32:64, :], A_smem[0:32, :])"),
     "the tensor-memory region must start at lane 0"),
]


@pytest.mark.parametrize("case", range(len(REFUSED)))
def test_refusals_at_the_call(case):
    text, reason = REFUSED[case]
    result = transpile(text, "k.tx", arch="sm_100a")
    assert errors(result) == [(18, 9, "E0904")]
    assert f"variant `tcgen05_cp`: {reason}" in [n.message for n in result.diagnostics[0].notes]


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("name", sorted(CASES))
def test_kernel_compiles_warning_free(name, tmp_path):
    result = transpile(CASES[name][0], "k.tx", arch="sm_100a")
    code, output = compile_cuda(result.cuda, ["-gencode", "arch=compute_100a,code=sm_100a", "-std=c++17", "-Werror", "all-warnings"])
    assert code == 0, output
