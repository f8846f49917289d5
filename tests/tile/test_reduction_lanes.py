"""TIRx's warp reduction across lanes (transpiler/tile/reduction/lanes.py, tried by `local` when `axes=`
cannot describe the call): which calls take it, that a call `axes=` does describe keeps tirxc's
reading, and nvcc. Values: tests/gpu/test_tile_reduction_lanes.py."""
from __future__ import annotations

import pytest

from tests.conftest import errors, has_nvcc, transpile
from tests.build_cache import compile_cuda

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


def test_calls_axes_cannot_describe_reduce_across_lanes():
    result = transpile(lanes_kernel(), "k.tx", arch="sm_90a")
    assert not result.diagnostics, [str(d.message) for d in result.diagnostics]
    assert [d.variant for d in result.program.kernels[0].tile_dispatch] == ["local", "local"]
    block = result.cuda.split("// Tx.warp.sum")[2]
    assert block.count("__shfl_xor_sync") == 4 * 5  # four elements, five butterfly steps each


def test_a_call_axes_describe_keeps_its_reading():
    # each lane holds one row; dst (32,) replicated: `axes=-1` asks for the row sums, which this layout
    # cannot give every lane (a lane holds one row), so `local` refuses; it is not read as TIRx's lane
    # form, which would give the column sums
    text = HEAD + '''
@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 32), "float32")
    T.device_entry()
    T.cta_id([1])
    lane = T.lane_id([32])
    s = T.alloc_buffer((32, 32), "float32", scope="local", layout=TileLayout(S[(32, 32) : (1 @ laneid, 1)]))
    d = T.alloc_buffer((32,), "float32", scope="local", layout=TileLayout(S[32:1] + R[32 : 1 @ laneid]))
    Tx.warp.sum(d, s)
'''
    result = transpile(text, "k.tx", arch="sm_90a")
    assert errors(result) == [(13, 5, "E0904")]
    assert "variant `local`: thread 0 holds dst's output 1 but none of the elements reduced into it" in \
        [n.message for n in result.diagnostics[0].notes]
    fixed = transpile(text.replace("Tx.warp.sum(d, s)", "Tx.warp.sum(d, s, axes=0)"), "k.tx", arch="sm_90a")
    assert not fixed.diagnostics  # the column sums, said with `axes=0`: tirxc's own `local`


def test_lane_pattern_at_warpgroup_scope_is_refused():
    text = lanes_kernel().replace("Tx.warp.sum(dv, sv", "Tx.wg.sum(dv, sv").replace("T.lane_id([32])", "T.lane_id([32])\n    T.thread_id([128])")
    result = transpile(text, "k.tx")
    assert errors(result) == [(22, 5, "E0904")]
    assert "variant `local`: dst has 4 elements; src keeps 1 after the reduction" in \
        [n.message for n in result.diagnostics[0].notes]


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("dtype,op,accum", [("float32", "sum", False), ("float16", "max", True),
                                            ("int32", "min", False)])
def test_kernel_compiles_warning_free(dtype, op, accum, tmp_path):
    result = transpile(lanes_kernel(dtype, op, accum), "k.tx", arch="sm_90a")
    assert not result.diagnostics, [str(d.message) for d in result.diagnostics]
    code, output = compile_cuda(result.cuda, ["-gencode", "arch=compute_90a,code=sm_90a", "-std=c++17", "-Werror", "all-warnings"])
    assert code == 0, output
