"""What the remaining TIRx statement forms compute (issue 16, item 3), run on the host
(tests/emit/hostc.py): implicit store casts, `T.evaluate`, `T.hint`, `T.vectorized`, typed loop
variables, chained assignment at module level, re-annotation, `view(dtype)`, an unnamed
`T.match_buffer` and values computed before `T.device_entry()`. Each expected value is what
TIRx's meaning gives, written out by hand or computed here in Python."""
from __future__ import annotations

import struct

import pytest

from tests.conftest import transpile
from tests.emit import hostc

pytestmark = pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")

A = [7, -3, 12, 5, 9, 4, -8, 2]


def run(source: str, buffers: dict, tmp_path, scalars=None):
    result = transpile(source)
    assert result.ok, [(d.span.line, d.span.col, d.code, d.message) for d in result.diagnostics]
    return hostc.run(result.cuda, buffers, threads=1, scalars=scalars, workdir=tmp_path), result


STORES = """\
from tvm.script import tirx as T

@T.prim_func
def k(A_ptr: T.handle, F_ptr: T.handle, I_ptr: T.handle, U_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8,), "int32")
    F = T.match_buffer(F_ptr, (8,), "float32")
    I = T.match_buffer(I_ptr, (8,), "int32")
    U = T.match_buffer(U_ptr, (4,), "uint8")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([1])
    F[0] = A[1]
    F[1] = A[2] * 3
    I[0] = F[6]
    I[1] = F[7]
    I[2] = 2.75
    I[3] = A[0] > A[1]
    U[0] = A[2] * 25
    acc: T.float32 = A[0]
    F[4] = acc
    acc = A[1]
    F[2] = acc
    n: T.int32 = 0
    n = F[6] * 2.0
    I[4] = n
    h: T.float16 = A[3]
    F[3] = h
"""


def test_store_casts(tmp_path):
    """A store of another dtype converts to the buffer's dtype (TIRx's BufferStore): ints to
    floats exactly, floats to ints truncating toward zero, bool to 1, ints wrap to a narrower
    unsigned type; mutable scalars (one-element buffers) the same."""
    f = [0.0] * 6 + [-2.75, 3.5]
    out, result = run(STORES, {"A": A, "F": f, "I": [0] * 8, "U": [0] * 4}, tmp_path)
    assert out["F"][:5] == [-3.0, 36.0, -3.0, 5.0, 7.0]
    assert out["I"][:5] == [-2, 3, 2, 1, -5]  # n = int(-2.75 * 2.0), truncated toward zero
    assert out["U"][0] == (12 * 25) % 256
    warnings = [(d.span.line, d.span.col, d.code) for d in result.diagnostics if d.severity == "warning"]
    assert warnings == [(14, 12, "W0303"), (15, 12, "W0303"), (16, 12, "W0303"), (24, 9, "W0303")]


FORMS = """\
from tvm.script import tirx as T

BASE = STEP = 3

def pair():
    x = y = 5
    return x * 10 + y

@T.prim_func
def k(A_ptr: T.handle, O_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8,), "int32")
    O = T.match_buffer(O_ptr, (16,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([1])
    T.evaluate(0)
    T.evaluate(A[0] + 1)
    T.hint("keep this loop simple", unroll=False)
    with T.hint("stage"):
        O[0] = A[0] + BASE + STEP
    for i in T.vectorized(4):
        O[1 + i] = A[i] * 2
    s: T.int32 = 0
    for j in T.serial(T.uint32(3)):
        s += T.int32(j) * 10
    for j in T.serial(2, dtype="uint32"):
        s += T.int32(j) + 100
    for w in range(T.int64(0), T.int64(6), T.int64(2)):
        s += T.int32(w) * 1000
    O[5] = s
    acc: T.int32 = A[1]
    O[6] = acc
    acc: T.int32 = A[2] * 2
    O[7] = acc
    for r in range(2):
        acc: T.int32 = 100 + r
        O[8 + r] = acc
    O[10] = acc
    O[11] = pair()
"""


def test_statement_forms(tmp_path):
    out, result = run(FORMS, {"A": A, "O": [0] * 16}, tmp_path)
    assert out["O"][0] == A[0] + 6
    assert out["O"][1:5] == [a * 2 for a in A[:4]]
    assert out["O"][5] == (0 + 10 + 20) + (100 + 101) + (0 + 2000 + 4000)
    assert out["O"][6:11] == [A[1], A[2] * 2, 100, 101, A[2] * 2]  # the inner `acc` ends with its loop body
    assert out["O"][11] == 55
    assert "#pragma unroll" in result.cuda and "unsigned int j" in result.cuda


VIEWS = """\
from tvm.script import tirx as T

@T.prim_func
def k(F_ptr: T.handle, O_ptr: T.handle, B_ptr: T.handle):
    F = T.match_buffer(F_ptr, (4,), "float32")
    O = T.match_buffer(O_ptr, (8,), "int32")
    T.match_buffer(B_ptr, (2,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([1])
    S = T.alloc_local((2, 4), "float32")
    for i in range(4):
        S[1, i] = F[i]
    Si = S.view("int32")
    O[0] = Si[1, 2]
    L = T.alloc_local((2,), "int32")
    L[0] = 0
    L[1] = 0
    Lb = L.view("uint8")
    Lb[5] = T.uint8(1)
    Lb[0] = T.uint8(0x7f)
    O[1] = L[1]
    O[2] = L[0]
    W = T.alloc_local((4,), "int16")
    for i in range(4):
        W[i] = i + 1
    Wd = W.view("int32")
    O[3] = Wd[1]
"""


def test_view_dtype(tmp_path):
    """`buf.view(dtype)`: the same bytes as another element type, the last extent scaled
    (little-endian bytes, as on the GPU)."""
    f = [1.5, -2.0, 3.25, 0.1]
    out, _ = run(VIEWS, {"F": f, "O": [0] * 8, "B": [0, 0]}, tmp_path)
    bits = struct.unpack("<i", struct.pack("<f", 3.25))[0]
    assert out["O"][:4] == [bits, 1 << 8, 0x7f, (4 << 16) | 3]


HOST = """\
from tvm.script import tirx as T

@T.prim_func
def k(A_ptr: T.handle, O_ptr: T.handle, n: T.int32):
    T.func_attr({"global_symbol": "k"})
    m = T.int32()
    A = T.match_buffer(A_ptr, (m,), "int32")
    T.match_buffer(O_ptr, (4,), "int32")
    M = A.shape[0]
    assert n > 0, "n is positive"
    twice: T.let = n * 2 + M
    T.evaluate(0)
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([1])
    A[0] = twice
    A[1] = M
"""


def test_host_statements(tmp_path):
    """Shape reads, lets of parameters, an assert on parameters (a trap at the kernel's start) and
    an unnamed `T.match_buffer` before `T.device_entry()`."""
    out, result = run(HOST, {"A": [0] * 8, "O": [0] * 4}, tmp_path, scalars={"n": 5, "m": 8})
    assert out["A"][:2] == [5 * 2 + 8, 8]
    assert "O_ptr" in result.cuda
    result = transpile(HOST)
    with pytest.raises(AssertionError, match="the host run failed"):  # n = 0: the kernel traps
        hostc.run(result.cuda, {"A": [0] * 8, "O": [0] * 4}, scalars={"n": 0, "m": 8}, workdir=tmp_path)


HOST_VIEWS = """\
from tvm.script import tirx as T

@T.prim_func
def k(A_ptr: T.handle, O_ptr: T.handle):
    A = T.match_buffer(A_ptr, (2, 4), "int32")
    O = T.match_buffer(O_ptr, (8,), "int32")
    A_flat = A.view(-1)
    A_bytes = A.view("uint8")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([1])
    for i in range(4):
        O[i] = A_flat[i * 2 + 1]
    O[4] = A_bytes[1, 4]
    O[5] = A_bytes[0, 1]
"""


def test_host_views(tmp_path):
    """A view of a parameter named before `T.device_entry()` (`A_flat = A.view(-1)`, as TIRx's
    tests write it) is the same memory in the kernel."""
    a = [0x11223344, 2, 3, 4, 5, 6, 7, 8]
    out, _ = run(HOST_VIEWS, {"A": a, "O": [0] * 8}, tmp_path)
    assert out["O"][:6] == [2, 4, 6, 8, 6, 0x33]  # bytes 20 and 1: little-endian, as on the GPU


ONE_WARP = """\
from tvm.script import tirx as T

@T.prim_func
def k(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    wg = T.warpgroup_id([1])
    wiw = T.warp_id_in_wg([1])
    lane = T.lane_id([32])
    A[lane] = wg * 1000 + wiw * 100 + lane
"""


def test_block_of_a_one_warp_warpgroup():
    """`warpgroup_id([1])`, `warp_id_in_wg([1])`, `lane_id([32])` close to a block of 32 threads
    (TIRx's scope-id closure), not to a warpgroup's 128."""
    result = transpile(ONE_WARP, until="launcher")
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    assert "__launch_bounds__(32)" in result.cuda
    assert '"block": (32, 1, 1),' in result.launcher


LAID_OUT_VIEW = """\
from tvm.script import tirx as T
from tvm.tirx.layout import S, TileLayout

@T.prim_func
def k(A_ptr: T.handle, O_ptr: T.handle):
    A = T.match_buffer(A_ptr, (2, 4), "int32")
    O = T.match_buffer(O_ptr, (2, 4), "uint32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([1])
    Sm = T.alloc_buffer((2, 4), "int32", scope="local", layout=TileLayout(S[(2, 4) : (1, 2)]))
    for i in range(2):
        for j in range(4):
            Sm[i, j] = A[i, j]
    U = Sm.view("uint32")
    for i in range(2):
        for j in range(4):
            O[i, j] = U[i, j]
"""


def test_view_dtype_keeps_the_layout(tmp_path):
    """`buf.view(dtype)` of a buffer with a layout, to an element type of the same size (a
    production kernel's uint8 -> float8 shared tiles): each element where the layout puts it,
    read as the other type."""
    a = [-1, 2, -3, 4, 5, -6, 7, -8]
    out, _ = run(LAID_OUT_VIEW, {"A": a, "O": [0] * 8}, tmp_path)
    assert out["O"] == [v & 0xFFFFFFFF for v in a]
