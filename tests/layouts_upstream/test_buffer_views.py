"""TIRx's derived buffer views (transpiler/sema/memory/buffer_views.py): `B.sub[...]`, `B.tile(...)[...]`,
`B.rearrange(...)`, `B.view(...)` of a laid-out buffer, `B.layout` and `B.elem_offset_of(...)`.
Each view reads the elements TIRx's numpy-style meaning names (a host run of the generated code
against NumPy indexing of the same data), over a row-major global buffer and over a swizzled
shared one, at compile-time and at run-time indices."""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import has_nvcc, transpile
from tests.emit import hostc
from tests.layouts_upstream.test_tma_utils import upstream_offset
from transpiler import ir

KERNEL = """\
from tvm.script import tirx as T
from tvm.tirx.cuda.tile_primitive.tma_utils import SwizzleMode, mma_shared_layout
SW = mma_shared_layout("float16", SwizzleMode.SWIZZLE_128B_ATOM, (16, 128))

@T.prim_func
def k(A_ptr: T.handle, H_ptr: T.handle, O_ptr: T.handle, P_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 8, 16), "int32")
    H = T.match_buffer(H_ptr, (16, 128), "float16")
    O = T.match_buffer(O_ptr, (N_OUT,), "int32")
    P = T.match_buffer(P_ptr, (N_P,), "float16")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([1])
    o = T.alloc_local([1], "int32")
    o[0] = 0
    V1 = A.sub[1]
    V2 = A.sub[:, 2:6]
    V3 = A.sub[:, :, 1::4]
    V4 = A.tile((2, (4, -1)))[1, :]
    V5 = A.rearrange("a b (c d) -> (a c) b d", d=4)
    V6 = A.tile((1, (2, 4)), (2, (-1, 2)))[1, :, :, 0]
    for i in T.serial(8):
        for j in T.serial(16):
            O[o[0]] = V1[i, j]
            o[0] += 1
    for a in T.serial(4):
        for b in T.serial(4):
            for c in T.serial(16):
                O[o[0]] = V2[a, b, c]
                o[0] += 1
    for a in T.serial(4):
        for b in T.serial(8):
            for c in T.serial(4):
                O[o[0]] = V3[a, b, c]
                o[0] += 1
                O[o[0]] = V4[a, b, c]
                o[0] += 1
    for a in T.serial(16):
        for b in T.serial(8):
            for c in T.serial(4):
                O[o[0]] = V5[a, b, c]
                o[0] += 1
    for a in T.serial(4):
        for b in T.serial(4):
            for c in T.serial(8):
                O[o[0]] = V6[a, b, c]
                o[0] += 1
    for w in T.serial(4):
        W = A.sub[w, 3]
        for j in T.serial(16):
            O[o[0]] = W[j]
            o[0] += 1
    S = T.alloc_buffer((16, 128), "float16", scope="shared", layout=SW)
    for i in T.serial(16):
        for j in T.serial(128):
            S[i, j] = H[i, j]
    p = T.alloc_local([1], "int32")
    p[0] = 0
    S1 = S.sub[:, 64:128]
    S2 = S.sub[5]
    S3 = S.view(2, 8, 128)
    S4 = S.rearrange("(h r) c -> r h c", h=2)
    for i in T.serial(16):
        for j in T.serial(64):
            P[p[0]] = S1[i, j]
            p[0] += 1
    for j in T.serial(128):
        P[p[0]] = S2[j]
        p[0] += 1
    for j in T.serial(128):
        P[p[0]] = S3[1, 3, j]
        p[0] += 1
    for r in T.serial(8):
        for j in T.serial(128):
            P[p[0]] = S4[r, 1, j]
            p[0] += 1
    for r in T.serial(16):
        O[o[0]] = S.elem_offset_of([r, 70])
        o[0] += 1
"""

A = np.arange(4 * 8 * 16, dtype=np.int64).reshape(4, 8, 16) * 3 + 1
H = (np.arange(16 * 128) % 509).reshape(16, 128).astype(float)


def expected():
    out = [A[1].ravel(), A[:, 2:6].ravel()]
    v3, v4 = A[:, :, 1::4], A.reshape(4, 8, 4, 4)[:, :, 1, :]
    out.append(np.stack([v3, v4], axis=-1).ravel())
    out.append(A.reshape(4, 8, 4, 4).transpose(0, 2, 1, 3).reshape(16, 8, 4).ravel())
    out.append(A.reshape(4, 2, 4, 8, 2)[:, 1, :, :, 0].ravel())
    out.append(A[:, 3, :].ravel())
    out.append([upstream_offset(r * 64 + 1024 + 6, 3, 3) for r in range(16)])  # (r, 70) of [(16,64),(2,1024),(64,1)]
    p = [H[:, 64:].ravel(), H[5], H.reshape(2, 8, 128)[1, 3], H.reshape(2, 8, 128).transpose(1, 0, 2)[:, 1].ravel()]
    return [int(v) for v in np.concatenate(out)], [float(v) for v in np.concatenate(p)]


def source():
    want_o, want_p = expected()
    return KERNEL.replace("N_OUT", str(len(want_o))).replace("N_P", str(len(want_p)))


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_views_read_what_tirx_names(tmp_path):
    result = transpile(source(), arch="sm_90a")
    assert result.ok, [(d.span.line, d.span.col, d.code, d.message) for d in result.diagnostics]
    want_o, want_p = expected()
    host = result.cuda.replace("alignas(1024) ", "")
    out = hostc.run(host, {"A": [int(v) for v in A.ravel()], "H": [float(v) for v in H.ravel()],
                           "O": [0] * len(want_o), "P": [0.0] * len(want_p)}, workdir=tmp_path)
    assert out["O"] == want_o
    assert out["P"] == want_p


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not installed")
def test_views_compile_warning_free(tmp_path):
    import subprocess
    result = transpile(source(), arch="sm_90a")
    assert result.ok
    cu = tmp_path / "k.cu"
    cu.write_text(result.cuda)
    done = subprocess.run(["nvcc", "-arch=sm_90a", "-c", str(cu), "-o", str(tmp_path / "k.o"), "-Werror",
                           "all-warnings"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


def test_layout_attribute_and_layout_methods():
    text = """\
from tvm.script import tirx as T
from tvm.tirx.layout import S, TileLayout, ComposeLayout, laneid
F = TileLayout(S[(2, 8, 4, 2) : (2, 4 @ laneid, 1 @ laneid, 1)])
G, SEPS = F.group([16, 8])
T2 = G.permute_by_groups(SEPS, [1, 0])
C = ComposeLayout(3, 3, 3, TileLayout(S[(512,)]))
PE = (C.per_element, C.swizzle_len, C.atom_len, C.swizzle_inner)
SPAN = F.storage().span()
SIZE = F.size()

@T.prim_func
def k(O_ptr: T.handle):
    O = T.match_buffer(O_ptr, (8,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([32])
    R = T.alloc_buffer((8, 16), "float32", scope="local", layout=T2)
    L = R.layout
    O[0] = SEPS[1] + SEPS[2] * 10
    O[1] = PE[0] + PE[1] * 10 + PE[2] * 100
    O[2] = SPAN
    O[3] = SIZE
"""
    result = transpile(text, arch="sm_90a")
    assert result.ok, [(d.span.line, d.span.col, d.code, d.message) for d in result.diagnostics]
    # group((2, 8, 4, 2) by [16, 8]): 2 x 8 rows, 4 x 2 columns -> separators [0, 2, 4]
    assert "O_ptr[0] = 42;" in result.cuda
    assert "O_ptr[1] = 333;" in result.cuda
    assert "O_ptr[2] = 4;" in result.cuda and "O_ptr[3] = 128;" in result.cuda  # size(): all 2 x 8 x 4 x 2 iters


def _buf(shape, dtype="float32", scope="shared", layout=None, allocated=None):
    from transpiler.target.dtypes import parse_dtype
    from transpiler.ir import layout as layouts
    c = layouts.c
    storage = None if scope == "tmem" else ir.Storage("S", parse_dtype(dtype), scope, "array", 1 << 16, 64)
    return ir.Buffer("B", tuple(c(e) for e in shape), parse_dtype(dtype), scope, storage, layout,
                     allocated_addr=None if allocated is None else c(allocated))


def _iters(layout):
    return [(it.extent.value, it.stride.value, it.axis) for it in layout.shard]


def test_tmem_views_move_the_column_address():
    """A tensor-memory `sub` moves `allocated_addr` by whole 32-bit columns (elements x bits / 32)."""
    from transpiler.ir import layout as layouts
    from transpiler.sema.memory import buffer_views as bv
    c = layouts.c
    tm = layouts.tile_layout([c(128), c(256)], [c(1), c(1)], ["TLane", "TCol"])
    f32 = bv.narrow(_buf((128, 256), "float32", "tmem", tm, 32), 1, c(64), 64)
    assert f32.allocated_addr.value == 96 and _iters(f32.layout) == [(128, 1, "TLane"), (64, 1, "TCol")]
    bf16 = bv.narrow(_buf((128, 256), "bfloat16", "tmem", tm, 0), 1, c(64), 64)
    assert bf16.allocated_addr.value == 32
    with pytest.raises(bv.ViewError, match="32-bit column"):
        bv.narrow(_buf((128, 256), "bfloat16", "tmem", tm, 0), 1, c(3), 8)
    with pytest.raises(bv.ViewError, match="TLane"):
        bv.drop(_buf((128, 256), "float32", "tmem", tm, 0), 0, c(5))


def test_swizzled_offsets_go_inside_the_swizzle():
    """A selection that starts a whole number of swizzle periods in moves elem_offset; one that
    does not is added to the layout's offset, under the swizzle (TIRx's _rebuild_view)."""
    from transpiler.sema.memory import buffer_views as bv
    from transpiler.sema.library import tma_utils
    layout = tma_utils.shared_layout(16, 3, [16, 128])  # [(16, 64), (2, 1024), (64, 1)], period 512 elements
    buf = _buf((16, 128), "float16", "shared", layout)
    whole = bv.narrow(buf, 1, bv.c(64), 64)
    assert whole.elem_offset.value == 1024 and whole.layout.offset == ()
    assert _iters(whole.layout) == [(16, 64, "m"), (1, 1024, "m"), (64, 1, "m")]  # as TIRx: not canonicalized
    assert whole.layout.swizzle == (3, 3, 3, True)
    row = bv.drop(buf, 0, bv.c(3))
    assert row.elem_offset.value == 0 and [(a, v.value) for a, v in row.layout.offset] == [("m", 192)]
    eighth = bv.drop(buf, 0, bv.c(8))  # 8 rows x 64 = 512: one whole period
    assert eighth.elem_offset.value == 512 and eighth.layout.offset == ()


def test_dense_views_stay_row_major():
    from transpiler.sema.memory import buffer_views as bv
    buf = _buf((4, 8, 16))
    assert bv.drop(buf, 0, bv.c(2)).layout is None and bv.drop(buf, 0, bv.c(2)).elem_offset.value == 256
    strided = bv.narrow(buf, 2, bv.c(4), 8)
    assert _iters(strided.layout) == [(4, 128, "m"), (8, 16, "m"), (8, 1, "m")] and strided.elem_offset.value == 4
    assert _iters(bv.permute(buf, [2, 0, 1]).layout) == [(16, 1, "m"), (4, 128, "m"), (8, 16, "m")]
