"""PTX under `tirxc sim` (docs/sim.md, "PTX"): atom.cas, 128-bit loads and stores, the packed fp8
conversions with their rounding and saturation, mma.sync on tf32 and 8-bit integers with the ISA's
fragment layouts, and cp.async.mbarrier.arrive.noinc, each against values worked out here."""
from __future__ import annotations

import numpy as np
import pytest

from transpiler import sim
from transpiler.syntax.source import SourceFile

SOURCE = '''
from tvm.script import tirx as T


@T.prim_func
def atomics_and_b128(C_ptr: T.handle, W_ptr: T.handle, L_ptr: T.handle, V_ptr: T.handle, U_ptr: T.handle):
    C = T.match_buffer(C_ptr, (2,), "uint32")
    W = T.match_buffer(W_ptr, (64,), "uint32")
    L = T.match_buffer(L_ptr, (2,), "uint64")
    V = T.match_buffer(V_ptr, (128,), "uint64")
    U = T.match_buffer(U_ptr, (128,), "uint64")
    T.device_entry()
    tx = T.thread_id([64])
    w = T.alloc_local((2,), "uint32")
    u = T.alloc_local((3,), "uint64")
    T.ptx["atom.acq_rel.gpu.global.cas.b32"](w[0], C.ptr_to([0]), T.uint32(0), T.uint32(tx + 1))
    W[tx] = w[0]
    T.ptx["atom.global.cas.b64"](u[2], L.ptr_to([0]), T.uint64(7), T.uint64(tx + 100))
    T.ptx["ld.global.b128"](u[0], u[1], V.ptr_to([tx * 2]))
    T.ptx["st.global.b128"](U.ptr_to([tx * 2]), u[1], u[0])


@T.prim_func
def conversions(F_ptr: T.handle, E_ptr: T.handle, H_ptr: T.handle):
    F = T.match_buffer(F_ptr, (64,), "float32")
    E = T.match_buffer(E_ptr, (64,), "uint16")
    H = T.match_buffer(H_ptr, (32,), "uint32")
    T.device_entry()
    tx = T.thread_id([32])
    e = T.alloc_local((2,), "uint16")
    h = T.alloc_local((1,), "uint32")
    T.ptx["cvt.rn.satfinite.e4m3x2.f32"](e[0], F[2 * tx], F[2 * tx + 1])
    T.ptx["cvt.rn.satfinite.e5m2x2.f32"](e[1], F[2 * tx], F[2 * tx + 1])
    E[tx] = e[0]
    E[32 + tx] = e[1]
    T.ptx["cvt.rn.f16x2.e4m3x2"](h[0], e[0])
    H[tx] = h[0]


@T.prim_func
def mmas(A_ptr: T.handle, B_ptr: T.handle, D_ptr: T.handle, TA_ptr: T.handle, TB_ptr: T.handle, TD_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "uint32")
    B = T.match_buffer(B_ptr, (64,), "uint32")
    D = T.match_buffer(D_ptr, (128,), "int32")
    TA = T.match_buffer(TA_ptr, (128,), "uint32")
    TB = T.match_buffer(TB_ptr, (64,), "uint32")
    TD = T.match_buffer(TD_ptr, (128,), "float32")
    T.device_entry()
    lane = T.thread_id([32])
    d = T.alloc_local((4,), "int32")
    f = T.alloc_local((4,), "float32")
    T.ptx["mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32"](
        d[0], d[1], d[2], d[3], A[4 * lane], A[4 * lane + 1], A[4 * lane + 2], A[4 * lane + 3],
        B[2 * lane], B[2 * lane + 1], T.int32(-5), T.int32(-5), T.int32(-5), T.int32(-5))
    for i in range(4):
        D[4 * lane + i] = d[i]
    T.ptx["mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"](
        f[0], f[1], f[2], f[3], TA[4 * lane], TA[4 * lane + 1], TA[4 * lane + 2], TA[4 * lane + 3],
        TB[2 * lane], TB[2 * lane + 1], T.float32(0.25), T.float32(0.25), T.float32(0.25), T.float32(0.25))
    for i in range(4):
        TD[4 * lane + i] = f[i]


@T.prim_func
def async_arrive(G_ptr: T.handle, O_ptr: T.handle):
    G = T.match_buffer(G_ptr, (128,), "float32")
    O = T.match_buffer(O_ptr, (128,), "float32")
    T.device_entry()
    tx = T.thread_id([32])
    bar = T.alloc_shared((1,), "uint64")
    smem = T.alloc_shared((128,), "float32")
    done = T.alloc_local((1,), "uint32")
    if tx == 0:
        T.ptx.mbarrier.init.shared__cta.b64(bar.ptr_to([0]), T.uint32(32))
    T.cuda.cta_sync()
    T.ptx["cp.async.ca.shared.global"](smem.ptr_to([tx * 4]), G.ptr_to([tx * 4]), 16)
    T.ptx["cp.async.mbarrier.arrive.noinc.shared::cta.b64"](bar.ptr_to([0]))
    done[0] = T.uint32(0)
    while done[0] == T.uint32(0):
        T.ptx.mbarrier.try_wait.parity.shared__cta.b64(done[0], bar.ptr_to([0]), 0)
    for i in range(4):
        O[tx * 4 + i] = smem[(tx * 4 + 4 + i) % 128]
'''


@pytest.fixture(scope="module")
def module():
    return sim.load_source(SourceFile("ptx_formats_and_mma.tx", SOURCE), arch="sm_90a")


def test_atom_cas_swaps_once_and_b128_moves_both_halves(module):
    c, w, low = np.zeros(2, np.uint32), np.zeros(64, np.uint32), np.array([7, 0], np.uint64)
    v = np.arange(128, dtype=np.uint64) * np.uint64(0x1_0000_0001) + np.uint64(3)
    u = np.zeros(128, np.uint64)
    module.atomics_and_b128(c, w, low, v, u)
    winner = int(c[0]) - 1  # exactly one thread swapped 0 for tx + 1; the rest read its value
    assert (w == np.where(np.arange(64) == winner, 0, winner + 1)).all()
    assert 100 <= low[0] < 164  # the 64-bit cas: one swap of 7, the others saw it changed
    assert (u[0::2] == v[1::2]).all() and (u[1::2] == v[0::2]).all()


# (value, e4m3 bits, e5m2 bits): rounding to nearest even, subnormals, satfinite, NaN
FP8 = [(1.0, 0x38, 0x3C), (-2.0, 0xC0, 0xC0), (448.0, 0x7E, 0x5F), (1000.0, 0x7E, 0x64), (float("inf"), 0x7E, 0x7B),
       (-float("inf"), 0xFE, 0xFB), (float("nan"), 0x7F, 0x7F), (2.0 ** -9, 0x01, 0x18), (2.0 ** -10, 0x00, 0x14),
       (3 * 2.0 ** -10, 0x02, 0x1A), (1.0625, 0x38, 0x3C), (1.1875, 0x3A, 0x3D), (60000.0, 0x7E, 0x7B),
       (-0.0, 0x80, 0x80), (1.125, 0x39, 0x3C), (1.375, 0x3B, 0x3E)]


def test_fp8_conversions_round_to_nearest_even_and_saturate(module):
    f = np.array([x for x, _, _ in FP8] * 4, np.float32)
    e, h = np.zeros(64, np.uint16), np.zeros(32, np.uint32)
    module.conversions(f, e, h)
    e4m3 = [b for _, b, _ in FP8] * 2
    e5m2 = [b for _, _, b in FP8] * 2
    for i in range(16):  # the first operand (2i) goes to the high byte
        assert e[i] == (e4m3[2 * i] << 8 | e4m3[2 * i + 1]), (i, hex(e[i]))
        assert e[32 + i] == (e5m2[2 * i] << 8 | e5m2[2 * i + 1]), (i, hex(e[32 + i]))
    halves = h.view(np.float16).reshape(32, 2)  # back to f16 exactly, the low byte into the low half
    for i in range(32):
        for half in (0, 1):
            want, got = _e4m3_value(int(e[i]) >> 8 * half & 0xFF), halves[i, half]
            assert got == want or (np.isnan(want) and np.isnan(got)), (i, half, got, want)


def _e4m3_value(bits: int) -> float:
    sign = -1.0 if bits & 0x80 else 1.0
    exp, mant = bits >> 3 & 15, bits & 7
    if exp == 15 and mant == 7:
        return float("nan")
    return sign * (mant * 2.0 ** -9 if exp == 0 else (1 + mant / 8) * 2.0 ** (exp - 7))


def _fragments(a: np.ndarray, b: np.ndarray, per_register: int, k: int):
    """A (16 x k) and B (k x 8) packed by the ISA's layout: lane (g, t); A register r element i at
    row g + 8 (r % 2), column (r / 2)(k / 2) + per_register t + i; B register r element i at row
    r (k / 2) + per_register t + i, column g; the lowest element in the lowest bits."""
    bits = 32 // per_register
    af, bf = np.zeros((32, 4), np.uint64), np.zeros((32, 2), np.uint64)
    for lane in range(32):
        g, t = divmod(lane, 4)
        for r in range(k // (2 * per_register)):
            for i in range(per_register):
                af[lane, r] |= np.uint64(a[g + 8 * (r % 2), (r // 2) * (k // 2) + per_register * t + i]) << np.uint64(bits * i)
        for r in range(k // (4 * per_register)):
            for i in range(per_register):
                bf[lane, r] |= np.uint64(b[r * (k // 2) + per_register * t + i, g]) << np.uint64(bits * i)
    return af.astype(np.uint32).ravel(), bf.astype(np.uint32).ravel()


def _unfragment(d: np.ndarray) -> np.ndarray:
    out = np.zeros((16, 8), d.dtype)
    for lane in range(32):
        g, t = divmod(lane, 4)
        for j in range(4):
            out[g + 8 * (j // 2), 2 * t + j % 2] = d[4 * lane + j]
    return out


def test_mma_sync_integer_and_tf32_follow_the_fragment_layouts(module):
    rng = np.random.default_rng(3)
    a8 = rng.integers(-128, 128, (16, 32))
    b8 = rng.integers(0, 256, (32, 8))
    af, bf = _fragments(a8.astype(np.uint8), b8.astype(np.uint8), 4, 32)
    ta = rng.integers(-64, 64, (16, 8)).astype(np.float32) / 8
    tb = rng.integers(-64, 64, (8, 8)).astype(np.float32) / 8
    ta_bits = ta.view(np.uint32) | np.uint32(0x1FFF)  # a tf32 ignores its low 13 bits
    taf, tbf = _fragments(ta_bits, tb.view(np.uint32), 1, 8)
    d, td = np.zeros(128, np.int32), np.zeros(128, np.float32)
    module.mmas(af, bf, d, taf, tbf, td)
    assert (_unfragment(d) == a8 @ b8 - 5).all()
    assert (_unfragment(td) == ta.astype(np.float64) @ tb.astype(np.float64) + 0.25).all()


def test_cp_async_mbarrier_arrive_noinc_completes_the_phase(module):
    g, o = np.arange(128, dtype=np.float32), np.zeros(128, np.float32)
    module.async_arrive(g, o)
    assert (o == np.roll(g, -4)).all()
