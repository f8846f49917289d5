"""Layout methods and helpers with TIRx's meaning (sema/memory/layout_methods.py, ir/layout_ops.py):
`tile_to`, `tile`, `apply`, `wg_local_layout`, `tmem_datapath_layout`. The values are checked
against facts stated outside tirxc: the PTX ISA's register fragments of `mma.m16n8k16`
(A: lane = 4 * (row % 8) + (col % 8) // 2, register = col % 2 + 2 * (row // 8) + 4 * (col // 8);
B: lane = 4 * col + (row % 8) // 2, register = row % 2 + 2 * (row // 8)), which the TIRx gemm
page builds with `tile_to` from the k8 fragments; run on the host (tests/emit/hostc.py)."""
from __future__ import annotations

import pytest

from tests.conftest import errors, transpile
from tests.emit import hostc

SOURCE = """\
from tvm.script import tirx as T
from tvm.tirx.layout import S, TileLayout, laneid, wg_local_layout, tmem_datapath_layout

A_FRAG_K8 = TileLayout(S[(2, 8, 4, 2) : (2, 4 @ laneid, 1 @ laneid, 1)])
B_FRAG_K8 = TileLayout(S[(4, 2, 8) : (1 @ laneid, 1, 4 @ laneid)])
A_FRAG = A_FRAG_K8.tile_to([16, 16], [16, 8])
B_FRAG = B_FRAG_K8.tile_to([16, 8], [8, 8])
BLOCK = TileLayout(S[(2, 2) : (2, 1)])
TILED = BLOCK.tile(TileLayout(S[(2, 3) : (1, 2)]), [2, 3], [2, 2])
WG = wg_local_layout(8)
TM = tmem_datapath_layout("D", 128, 64)

@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle, W_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 16), "int32")
    B = T.match_buffer(B_ptr, (16, 8), "int32")
    C = T.match_buffer(C_ptr, (4, 6), "int32")
    W = T.match_buffer(W_ptr, (4,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([1])
    for r in range(16):
        for c in range(16):
            a = A_FRAG.apply(r, c, shape=[16, 16])
            A[r, c] = a["laneid"] * 100 + a["m"]
    for r in range(16):
        for c in range(8):
            b = B_FRAG.apply(r, c, shape=[16, 8])
            B[r, c] = b["laneid"] * 100 + b["m"]
    for r in range(4):
        for c in range(6):
            C[r, c] = TILED.apply(r, c, shape=[4, 6])["m"]
    w = WG.apply(77, 5, shape=[128, 8])
    W[0] = w["tid_in_wg"] * 100 + w["m"]
    t = TM.apply(100, 33, shape=[128, 64])
    W[1] = t["TLane"] * 1000 + t["TCol"]
    W[2] = A_FRAG.apply(200)["m"]
"""


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_layout_values(tmp_path):
    result = transpile(SOURCE)
    assert result.ok, [(d.span.line, d.span.col, d.code, d.message) for d in result.diagnostics]
    out = hostc.run(result.cuda, {"A": [0] * 256, "B": [0] * 128, "C": [0] * 24, "W": [0] * 4},
                    workdir=tmp_path)
    assert out["A"] == [(4 * (r % 8) + (c % 8) // 2) * 100 + (c % 2 + 2 * (r // 8) + 4 * (c // 8))
                        for r in range(16) for c in range(16)]
    assert out["B"] == [(4 * c + (r % 8) // 2) * 100 + (r % 2 + 2 * (r // 8)) for r in range(16) for c in range(8)]
    # `tile`: 2x2 blocks (span 4), placed by the outer column-major (2, 3) layout scaled by 4
    assert out["C"] == [((r // 2) * 1 + (c // 2) * 2) * 4 + (r % 2) * 2 + c % 2 for r in range(4) for c in range(6)]
    # wg_local_layout: the row is the thread in the warpgroup; tmem datapath D: rows are lanes
    # A_FRAG.apply(200): a linear coordinate over the 256 elements = (row 12, col 8)
    assert out["W"][:3] == [77 * 100 + 5, 100 * 1000 + 33, 2 * (12 // 8) + 4 * (8 // 8)]


HEAD = """\
from tvm.script import tirx as T
from tvm.tirx.layout import S, TileLayout, tmem_datapath_layout

L = TileLayout(S[(4, 8) : (8, 1)])
"""


@pytest.mark.parametrize("line, expected", [
    ("X = L.tile_to([6, 8], [4, 8])\n", [(5, 5, "E0517")]),
    ("X = L.tile_to([8, 8], [3, 8])\n", [(5, 5, "E0517")]),
    ("X = L.tile_to(4, [4, 8])\n", [(5, 15, "E0517")]),
    ("X = L.tile(L, [2], [4, 8])\n", [(5, 5, "E0517")]),
    ("X = L.tile(3, [2, 1], [4, 8])\n", [(5, 12, "E0517")]),
    ("X = L.verify_well_formed()\n", [(5, 5, "E0518")]),
    ("X = tmem_datapath_layout(\"F\", 64, 64, sub_slab=2)\n", [(5, 5, "E0517")]),
    ("X = tmem_datapath_layout(\"Q\", 64, 64)\n", [(5, 26, "E0517")]),
    ("X = tmem_datapath_layout(\"D\", 64, 64)\n", [(5, 5, "E0517")]),
    ("X = L.tile_to([8, 8], [4, 8]).tile_to([8, 16], [8, 8])\nY = zz\n", [(6, 5, "E0300")]),
])
def test_layout_errors(line, expected):
    result = transpile(HEAD + line + "\n@T.prim_func\ndef k():\n    T.device_entry()\n    tx = T.thread_id([1])\n")
    assert errors(result) == expected, [(d.span.line, d.span.col, d.code, d.message) for d in result.diagnostics]
    messages = [d.message for d in result.diagnostics if d.code == "E0518"]
    assert all("not supported yet" in m for m in messages)


THREAD_VIEW = """\
from tvm.script import tirx as T
from tvm.tirx.layout import S, TileLayout, laneid

SHAPE = (32, 4)

@T.prim_func
def k(O_ptr: T.handle):
    O = T.match_buffer(O_ptr, (32, 4), "float32")
    T.device_entry()
    bx = T.cta_id([1])
    lane = T.thread_id([32])
    regs = T.alloc_local((4,), "float32")
    for i in range(4):
        regs[i] = T.float32(lane * 10 + i)
    V = regs.view(32, 4, layout=TileLayout(S[SHAPE : (1 @ laneid, 1)]))
    Vl = V.local(4)
    for i in range(4):
        O[lane, i] = Vl[3 - i]
"""


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_view_with_a_thread_axis(tmp_path):
    """`regs.view(32, 4, layout=...)` over 4 registers per thread: the layout's thread axis
    takes no storage (and `S[SHAPE : ...]` takes a tuple constant as its extents)."""
    result = transpile(THREAD_VIEW)
    assert result.ok, [(d.span.line, d.span.col, d.code, d.message) for d in result.diagnostics]
    out = hostc.run(result.cuda, {"O": [0.0] * 128}, threads=32, workdir=tmp_path)
    assert out["O"] == [float(lane * 10 + 3 - i) for lane in range(32) for i in range(4)]


def test_view_layout_larger_than_the_buffer():
    source = THREAD_VIEW.replace("V = regs.view(32, 4, layout=TileLayout(S[SHAPE : (1 @ laneid, 1)]))",
                                 "V = regs.view(32, 8, layout=TileLayout(S[(32, 8) : (1 @ laneid, 1)]))")
    assert errors(transpile(source)) == [(15, 9, "E0514")]


SWIZZLE = """\
from tvm.script import tirx as T
from tvm.tirx.layout import S, TileLayout, ComposeLayout

@T.prim_func
def k(O_ptr: T.handle):
    O = T.match_buffer(O_ptr, (2048,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([1])
    sw = T.alloc_local((32, 64), "int32", layout=ComposeLayout(2, 3, 3, TileLayout(S[8, 64])))
    raw = T.decl_buffer((2048,), "int32", data=sw.data, scope="local")
    for i in range(32):
        for j in range(64):
            sw[i, j] = i * 64 + j
    for m in range(2048):
        O[m] = raw[m]
"""


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_swizzle_atom_smaller_than_the_buffer(tmp_path):
    """An (8, 64) swizzle atom on a (32, 64) buffer repeats along the rows, as TIRx applies it:
    element m = 64 i + j lands at the swizzled address of m (layout.rst's formula)."""
    result = transpile(SWIZZLE)
    assert result.ok, [(d.span.line, d.span.col, d.code, d.message) for d in result.diagnostics]
    out = hostc.run(result.cuda, {"O": [-1] * 2048}, workdir=tmp_path)

    def addr(m, per_element=2, length=3, atom=3):
        x = m >> per_element
        return ((x ^ ((x & (((1 << length) - 1) << atom)) >> atom)) << per_element) + (m & ((1 << per_element) - 1))

    expected = [0] * 2048
    for m in range(2048):
        expected[addr(m)] = m
    assert out["O"] == expected


def test_layout_not_a_multiple_of_the_buffer():
    source = SWIZZLE.replace("TileLayout(S[8, 64])", "TileLayout(S[24, 64])")
    assert errors(transpile(source)) == [(10, 50, "E0517")]
