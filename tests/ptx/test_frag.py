"""`T.alloc_tcgen05_ldst_frag` (sema/calls/tcgen05_frag.py): the register fragment of a warpgroup's
tcgen05.ld / st, its layout against TIRx's `tcgen05_atom_layout`, and its errors (E0607)."""
from __future__ import annotations

import pytest

from tests.conftest import transpile
from tests.ptx.snippet import FIRST, check, messages
from transpiler import ir
from transpiler.ir import layout as layouts
from transpiler.sema.calls.tcgen05_frag import fragment_iters
from transpiler.target.dtypes import INT32


def _positions(shape, rows, cols, bits):
    """(thread of the warpgroup, register) -> (row, column) of every element of the fragment."""
    iters = fragment_iters(shape, rows, cols, bits)
    assert not isinstance(iters, str), iters
    c = lambda v: ir.IntImm(INT32, v)  # noqa: E731
    layout = ir.Layout(tuple(layouts.Iter(c(e), c(s), a) for e, s, a in iters))
    out = {}
    for row in range(rows):
        for col in range(cols):
            (where,) = layouts.coordinates(layout, (row, col), (rows, cols))
            thread = where.get("tid_in_wg", 0) + 32 * where.get("wid_in_wg", 0) + where.get("laneid", 0)
            key = (thread, where.get("m", 0))
            assert key not in out, (shape, rows, cols, bits, key)
            out[key] = (row, col)
    return out


@pytest.mark.parametrize("shape, rows, cols, bits", [
    ("32x32b", 128, 8, 32), ("32x32b", 128, 16, 16), ("32x32b", 64, 16, 32),
    ("16x64b", 64, 16, 32), ("16x64b", 128, 8, 32), ("16x128b", 64, 32, 16), ("16x128b", 128, 16, 32),
    ("16x256b", 64, 16, 32), ("16x256b", 128, 64, 16),
])
def test_every_thread_holds_its_share_once(shape, rows, cols, bits):
    pos = _positions(shape, rows, cols, bits)
    per_thread = rows * cols // 128
    assert sorted(pos) == [(t, r) for t in range(128) for r in range(per_thread)]


def test_32x32b_gives_each_thread_a_row():
    pos = _positions("32x32b", 128, 8, 32)
    assert all(pos[(t, r)] == (t, r) for t in range(128) for r in range(8))


def test_16x64b_follows_the_atom():
    """TIRx's 16x64b fragment: lane (t0 = bit 0, t1 = bit 1, t2 = bits 2..4) of warp w holds row
    t2 + 8 t0 + 16 w, fp32 column t1 + 2 r in register r."""
    pos = _positions("16x64b", 64, 8, 32)
    for t in range(128):
        w, lane = divmod(t, 32)
        for r in range(4):
            assert pos[(t, r)] == ((lane >> 2) + 8 * (lane & 1) + 16 * w, ((lane >> 1) & 1) + 2 * r)


def test_16_bit_data_packs_two_columns_per_register():
    pos = _positions("32x32b", 128, 4, 16)
    assert [pos[(5, r)] for r in range(4)] == [(5, 0), (5, 1), (5, 2), (5, 3)]
    pos = _positions("16x256b", 64, 16, 16)  # 8 fp32 columns: v0p is the low bit of the 32-bit column
    assert pos[(0, 0)] == (0, 0) and pos[(0, 1)] == (0, 1) and pos[(0, 2)] == (0, 2)


def test_the_fragment_is_this_threads_registers():
    result = transpile("""\
from tvm.script import tirx as T


@T.prim_func
def k(F_ptr: T.handle):
    F = T.match_buffer(F_ptr, (128,), "float32")
    T.device_entry()
    tx = T.thread_id([128])
    warp_id = T.warp_id([4])
    slot = T.shared_scalar("uint32")
    if warp_id == 0:
        T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(T.address_of(slot), 256)
    frag = T.alloc_tcgen05_ldst_frag("32x32b", (128, 8), "float32")
    h = T.alloc_tcgen05_ldst_frag("16x256b", (64, 32), "float16")
    fl = frag.local()
    T.ptx["tcgen05.ld.sync.aligned.32x32b.x8.b32"](*[fl[i] for i in range(8)], slot)
    hl = h.local()
    F[tx] = fl[0] + T.float32(hl[15])
""", "k.tx", arch="sm_100a")
    assert result.ok, [d.message for d in result.diagnostics]
    assert "float frag_ptr[8];" in result.cuda and "h_ptr[16];" in result.cuda


def test_element_access_needs_local():
    _, errs = check('fr = T.alloc_tcgen05_ldst_frag("32x32b", (128, 4), "float32")\nf[0] = fr[0, 0]\n')
    assert errs == [(FIRST + 1, 12, "E0519")]


@pytest.mark.parametrize("call, col, why", [
    ('"32x16b", (128, 8), "float32"', 36, '`32x16b` is not a tcgen05.ld / st shape'),
    ('"32x32b", (96, 8), "float32"', 46, "has 64 or 128 rows, not 96"),
    ('"32x32b", (128, 8), "int8"', 56, "32- or 16-bit data"),
    ('"16x64b", (64, 6), "float32"', 46, "has 2 x (a power of two up to 128) columns, not 6"),
    ('"16x256b", (64, 8), "float16"', 47, "has 16 x (a power of two up to 32) columns, not 8"),
    ('"32x32b", (64, 16), "float16"', 56, "float32 only"),
    ('"32x32b", (128,), "float32"', 46, "is 2-D (rows, columns), not 1-D"),
])
def test_fragments_that_do_not_exist(call, col, why):
    result, errs = check(f"fr = T.alloc_tcgen05_ldst_frag({call})\n")
    assert errs == [(FIRST, col, "E0607")]
    assert why in messages(result)[0]


def test_the_atom_layout_imported_from_tvm_tirx_layout_is_the_fragments_layout():
    """`tcgen05_atom_layout(...)` (tvm.tirx.layout) is the layout `T.alloc_tcgen05_ldst_frag` gives
    its buffer, so a register buffer declared with it holds the same registers."""
    result = transpile("""\
from tvm.script import tirx as T
from tvm.tirx.layout import tcgen05_atom_layout


@T.prim_func
def k(F_ptr: T.handle):
    F = T.match_buffer(F_ptr, (128,), "float32")
    T.device_entry()
    tx = T.thread_id([128])
    frag = T.alloc_tcgen05_ldst_frag("16x256b", (64, 32), "float16")
    same = T.alloc_buffer((64, 32), "float16", scope="local", layout=tcgen05_atom_layout("16x256b", (64, 32), "float16"))
    same.local()[3] = frag.local()[3]
    F[tx] = T.float32(same.local()[3])
""", "k.tx", arch="sm_100a")
    assert result.ok, [d.message for d in result.diagnostics]
    assert "h_ptr" not in result.cuda and "half frag_ptr[16];" in result.cuda and "half same_ptr[16];" in result.cuda
    bad, errs = check('x = T.alloc_buffer((96, 8), "float32", scope="local", '
                      'layout=T.tcgen05_atom_layout("32x32b", (96, 8), "float32"))\n')
    assert [e[2] for e in errs] == ["E0607"] and "`tcgen05_atom_layout`: " in messages(bad)[0]
