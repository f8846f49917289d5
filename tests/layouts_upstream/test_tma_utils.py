"""TIRx's `mma_atom_layout`, `mma_atom_shape`, `mma_shared_layout` and `sf_tmem_layout`
(transpiler/sema/library/tma_utils.py): the layouts equal TIRx's, iter for iter, as worked out by hand
from upstream's algorithm (tile the atom over the rows, then over the rest; canonicalize), and
a buffer laid out with them puts each element where TIRx's swizzle formula says (a host run of
the generated code, compared with that formula written out here)."""
from __future__ import annotations

import pytest

from tests.conftest import transpile
from tests.emit import hostc
from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.sema.library import tma_utils


def iters(layout: ir.Layout):
    return [(it.extent.value, it.stride.value, it.axis) for it in layout.shard]


def upstream_offset(m: int, per_element: int, swizzle_len: int, atom_len: int = 3) -> int:
    """TIRx's ComposeLayout on a tile offset m (swizzle_inner=True): x ^ ((x & outer) >> atom)
    on the 2^per_element-element units."""
    outer = ((1 << swizzle_len) - 1) << atom_len
    unit, low = m >> per_element, m & ((1 << per_element) - 1)
    return ((unit ^ ((unit & outer) >> atom_len)) << per_element) + low


def test_atom_layout_and_shape():
    atom = tma_utils.atom_layout(16, 3)
    assert iters(atom) == [(512, 1, "m")] and atom.swizzle == (3, 3, 3, True)
    assert tma_utils.atom_layout(32, 1).swizzle == (2, 1, 3, True)
    assert iters(tma_utils.atom_layout(32, 1)) == [(64, 1, "m")]
    assert iters(tma_utils.atom_layout(8, 2)) == [(512, 1, "m")] and tma_utils.atom_layout(8, 2).swizzle[0] == 4
    assert tma_utils.atom_shape(16, 3) == [8, 64]
    assert tma_utils.atom_shape(32, 1) == [8, 8]
    assert tma_utils.atom_shape(8, 2) == [8, 64]
    assert tma_utils.atom_shape(16, 2, 3) == [1, 8, 32]


@pytest.mark.parametrize("bits, mode, shape, expected", [
    (16, 3, [128, 128], [(128, 64, "m"), (2, 8192, "m"), (64, 1, "m")]),  # two 128-byte-wide K panels
    (16, 3, [3, 128, 64], [(24576, 1, "m")]),  # one panel: everything fuses
    (32, 1, [64, 16], [(64, 8, "m"), (2, 512, "m"), (8, 1, "m")]),
    (16, 2, [64, 64], [(64, 32, "m"), (2, 2048, "m"), (32, 1, "m")]),
    (16, 0, [64, 32], [(64, 8, "m"), (4, 512, "m"), (8, 1, "m")]),  # no swizzle: packed 16-byte columns
    (16, 0, [2, 64, 32], [(2, 2048, "m"), (64, 8, "m"), (4, 512, "m"), (8, 1, "m")]),
    (16, 0, [8, 12], [(96, 1, "m")]),  # K not a multiple of 8: plain row-major
])
def test_shared_layout_iters(bits, mode, shape, expected):
    layout = tma_utils.shared_layout(bits, mode, shape)
    assert iters(layout) == expected
    per_element = (128 // bits).bit_length() - 1
    assert layout.swizzle == (None if mode == 0 else (per_element, mode, 3, True))


def test_shared_layout_rejects_a_partial_atom():
    assert tma_utils.shared_layout(16, 3, [4, 64]) is None  # 4 rows of an 8-row atom


def test_shared_layout_offsets():
    """Every element of a (16, 128) float16 128-byte-swizzled layout, through tirxc's layout
    code, against the upstream formula on the canonical tile [(16, 64), (2, 1024), (64, 1)]."""
    layout = tma_utils.shared_layout(16, 3, [16, 128])
    assert iters(layout) == [(16, 64, "m"), (2, 1024, "m"), (64, 1, "m")]
    for r in range(16):
        for col in range(128):
            m = r * 64 + (col // 64) * 1024 + col % 64
            got = layouts.coordinates(layout, (r, col), (16, 128))
            assert got == [{"m": upstream_offset(m, 3, 3)}], (r, col)


def test_sf_tmem_layout():
    def lay(*args, **kw):
        layout = tma_utils.sf_layout(*args, **kw)
        return iters(layout), [(it.extent.value, it.stride.value, it.axis) for it in layout.replica]
    # one scale factor per MMA, one K step: 4 32-row chunks, 4 columns apart; lanes replicated 4 x 32
    assert lay(128, 1, 1) == ([(4, 4, "TCol"), (32, 1, "TLane")], [(4, 32, "TLane")])
    # four K steps packed into one column's four bytes
    assert lay(128, 4, 1) == ([(4, 4, "TCol"), (32, 1, "TLane"), (4, 1, "TCol")], [(4, 32, "TLane")])
    # eight K steps: two columns groups of four (K_outer = 2, M * 4 columns apart)
    assert lay(128, 8, 1) == ([(4, 4, "TCol"), (32, 1, "TLane"), (2, 16, "TCol"), (4, 1, "TCol")],
                              [(4, 32, "TLane")])
    # nvfp4: four scale factors per MMA fill a column; two MMAs: M * 4 columns apart
    assert lay(128, 8, 4) == ([(4, 4, "TCol"), (32, 1, "TLane"), (2, 16, "TCol"), (4, 1, "TCol")],
                              [(4, 32, "TLane")])
    # reuse (a stride-0 iter) and a pipeline stage iter (M * 4 columns)
    assert lay(128, 1, 1, sf_reuse=4, pipe_depth=2) == (
        [(2, 16, "TCol"), (4, 4, "TCol"), (32, 1, "TLane"), (4, 0, "TCol")], [(4, 32, "TLane")])
    assert isinstance(tma_utils.sf_layout(128, 3, 2), str)


KERNEL = """\
from tvm.script import tirx as T
from tvm.tirx.cuda.tile_primitive.tma_utils import SwizzleMode, mma_shared_layout, mma_atom_shape
MODE = SwizzleMode.SWIZZLE_64B_ATOM
LAYOUT = mma_shared_layout("float16", MODE, (8, 64))
ATOM = mma_atom_shape("float16", SwizzleMode(2).value)

@T.prim_func
def k(A_ptr: T.handle, O_ptr: T.handle, I_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8, 64), "float16")
    O = T.match_buffer(O_ptr, (512,), "float16")
    I = T.match_buffer(I_ptr, (4,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([1])
    S = T.alloc_buffer((8, 64), "float16", scope="shared", layout=LAYOUT)
    raw = T.decl_buffer((512,), "float16", data=S.data, scope="shared")
    for i in T.serial(8):
        for j in T.serial(64):
            S[i, j] = A[i, j]
    for p in T.serial(512):
        O[p] = raw[p]
    I[0] = ATOM[0]
    I[1] = ATOM[1]
    I[2] = MODE.value
    I[3] = len(ATOM)
"""


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_swizzled_buffer_places_elements_as_tirx(tmp_path):
    result = transpile(KERNEL, arch="sm_90a")
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    # a swizzled shared buffer is aligned to its swizzle period (8 rows x 64 bytes) by default
    assert "__shared__ alignas(512) half S_ptr[512];" in result.cuda
    a = [float(v % 251) for v in range(512)]
    host = result.cuda.replace("alignas(512) ", "")  # g++ takes `alignas` only before `static` (hostc's __shared__)
    out = hostc.run(host, {"A": a, "O": [0.0] * 512, "I": [0] * 4}, workdir=tmp_path)
    assert out["I"] == [8, 32, 2, 2]
    expected = [0.0] * 512
    for r in range(8):
        for col in range(64):
            # the canonical tile of (8, 64) float16 at 64 bytes: [(8, 32), (2, 256), (32, 1)]
            expected[upstream_offset(r * 32 + (col // 32) * 256 + col % 32, 3, 2)] = a[r * 64 + col]
    assert out["O"] == expected


@pytest.mark.parametrize("datapath, rows, cols, sub_slab, expected", [
    ("D", 128, 64, 0, [(128, 1, "TLane"), (64, 1, "TCol")]),
    ("A", 128, 32, 0, [(128, 1, "TLane"), (32, 1, "TCol")]),
    ("B", 64, 64, 0, [(64, 1, "TLane"), (2, 64, "TLane"), (32, 1, "TCol")]),  # column halves on lanes 64 apart
    ("E", 64, 8, 0, [(64, 1, "TLane"), (2, 64, "TLane"), (4, 1, "TCol")]),
    ("G", 32, 64, 0, [(32, 1, "TLane"), (4, 32, "TLane"), (16, 1, "TCol")]),  # quarters on the 4 warp slabs
    ("F", 64, 64, 0, [(4, 32, "TLane"), (16, 1, "TLane"), (64, 1, "TCol")]),  # 16 rows per warp slab
    ("C", 64, 16, 1, [(4, 32, "TLane"), (16, 1, "TLane"), (16, 1, "TCol")]),
])
def test_tmem_datapath_layouts(datapath, rows, cols, sub_slab, expected):
    from transpiler.sema.memory.layout_methods import datapath_iters
    assert datapath_iters(datapath, rows, cols, sub_slab) == expected


def test_tmem_datapath_layout_f_upper_slab_lanes():
    """Datapath F with sub_slab=1: row r of warp w is lane 32 w + 16 + r % 16 (TIRx's offset 16 @ TLane)."""
    text = ("from tvm.script import tirx as T\nfrom tvm.tirx.layout import tmem_datapath_layout\n"
            "L = tmem_datapath_layout(\"F\", 64, 8, sub_slab=1)\nA = L.apply(37, 5, shape=[64, 8])\n"
            "@T.prim_func\ndef k(O_ptr: T.handle):\n    O = T.match_buffer(O_ptr, (2,), \"int32\")\n"
            "    T.device_entry()\n    bx = T.cta_id([1])\n    tx = T.thread_id([1])\n"
            "    O[0] = A[\"TLane\"]\n    O[1] = A[\"TCol\"]\n")
    result = transpile(text, arch="sm_100a")
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    assert "O_ptr[0] = 85;" in result.cuda and "O_ptr[1] = 5;" in result.cuda  # row 37: 32 * 2 + 16 + 37 % 16
