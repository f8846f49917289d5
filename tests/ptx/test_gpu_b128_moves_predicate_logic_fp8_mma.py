"""Values of 128- and 64-bit moves, predicate logic and fp8 mma.sync on a GPU (tests/ptx/kernels/gpu_b128_moves_predicate_logic_fp8_mma.tx), checked
against NumPy: mov.b128 (a .b128 value as its (low, high) 64-bit halves: the copy, the unpack into
four .b32, the pack of four .b32 and an unpack with `T.ptx.SINK` that leaves the sunk registers
alone), mov.b64's four 16-bit quarters, lop3's predicate form (.or / .and), the .pred logic, and
the fp8 mma.sync m16n8k16 in f32 and in f16 (its fragments packed on the host by the ISA's layout).
tests/ptx/test_nvcc.py compiles the same kernels without a GPU."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.gpu.conftest import GPU_SKIP_REASON, launcher_for  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(GPU_SKIP_REASON is not None, reason=f"GPU test: {GPU_SKIP_REASON}")]

SOURCE = (Path(__file__).resolve().parent / "kernels" / "gpu_b128_moves_predicate_logic_fp8_mma.tx").read_text()


def _words(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The low and high 32-bit words of 64-bit values."""
    return (x & np.uint64(0xFFFFFFFF)).astype(np.uint32), (x >> np.uint64(32)).astype(np.uint32)


def test_mov_packs(launcher_for):  # noqa: F811
    import cupy

    module = launcher_for("gpu_b128_moves_predicate_logic_fp8_mma", SOURCE)
    rng = np.random.default_rng(17)
    u = rng.integers(0, 2 ** 63, 256, dtype=np.int64).astype(np.uint64) * np.uint64(3)
    q, w, h = cupy.zeros(512, cupy.uint64), cupy.zeros(512, cupy.uint32), cupy.zeros(128, cupy.uint64)
    module.packs(cupy.asarray(u), q, w, h)
    cupy.cuda.Device().synchronize()
    q, w, h = q.get().reshape(128, 4), w.get().reshape(128, 4), h.get()
    lo, hi = u[0::2], u[1::2]
    assert np.array_equal(q[:, 0], lo) and np.array_equal(q[:, 1], hi)  # mov.b128 q, {lo, hi}; {q0, q1}, q
    (w0, w1), (w2, w3) = _words(lo), _words(hi)  # the unpack: w0 the lowest 32 bits of the .b128
    as64 = lambda low, high: low.astype(np.uint64) | (high.astype(np.uint64) << np.uint64(32))  # noqa: E731
    assert np.array_equal(q[:, 2], as64(w3, w2)) and np.array_equal(q[:, 3], as64(w1, w0))  # pack {w3, w2, w1, w0}
    # unpack of {q3, q2} = {w1 | w0 << 32, w3 | w2 << 32} with the middle words sunk: 77 and 88 stay
    assert np.array_equal(w[:, 0], w1) and np.array_equal(w[:, 3], w2)
    assert (w[:, 1] == 77).all() and (w[:, 2] == 88).all()
    quarters = [(lo >> np.uint64(16 * k)) & np.uint64(0xFFFF) for k in range(4)]
    swapped = quarters[1] | (quarters[0] << np.uint64(16)) | (quarters[3] << np.uint64(32)) | (quarters[2] << np.uint64(48))
    assert np.array_equal(h, swapped)  # mov.b64 {h0..h3}, x; then x' = {h1, h0, h3, h2}


def test_lop3_predicate_form_and_pred_logic(launcher_for):  # noqa: F811
    import cupy

    module = launcher_for("gpu_b128_moves_predicate_logic_fp8_mma", SOURCE)
    rng = np.random.default_rng(5)
    a = rng.integers(0, 2 ** 32, 128, dtype=np.uint64).astype(np.uint32)
    a[::7] = 0
    out = cupy.zeros(768, cupy.uint32)
    module.logic(cupy.asarray(a), out)
    cupy.cuda.Device().synchronize()
    o = out.get()
    tx = np.arange(128, dtype=np.uint32)
    d_or = a & np.uint32(0xFF00FF00) & tx  # immLut 0x80: a & b & c
    assert np.array_equal(o[:128], d_or)
    assert np.array_equal(o[128:256], ((d_or != 0) | (tx % 4 == 0)).astype(np.uint32))  # p = (d != 0) .or q
    d_and = a & (np.uint32(0x0F0F0F0F) | tx)  # immLut 0xE0: a & (b | c)
    assert np.array_equal(o[256:384], d_and)
    assert np.array_equal(o[384:512], ((d_and != 0) & (tx % 2 == 0)).astype(np.uint32))  # p = (d != 0) .and q
    x, y = a % 3 == 0, tx < 64
    assert np.array_equal(o[512:640], (x & y).astype(np.uint32) + 2 * (x | y).astype(np.uint32))
    assert np.array_equal(o[640:], (x ^ y).astype(np.uint32) + 2 * (~x).astype(np.uint32))


_E4M3 = {-2.0: 0xC0, -1.0: 0xB8, -0.5: 0xB0, 0.0: 0x00, 0.5: 0x30, 1.0: 0x38, 1.5: 0x3C, 2.0: 0x40, 3.0: 0x44}


def test_fp8_mma_m16n8k16(launcher_for):  # noqa: F811
    """ISA fragments of the 8-bit m16n8k16 shape: lane = 4 * group + t; A register r holds row
    group + 8r, columns 4t..4t+3 (a byte each, low first); B's one register rows 4t..4t+3 of column
    group; D element i row group + 8 (i >= 2), column 2t + (i & 1)."""
    import cupy

    module = launcher_for("gpu_b128_moves_predicate_logic_fp8_mma", SOURCE)
    rng = np.random.default_rng(8)
    values = np.array(sorted(_E4M3), dtype=np.float32)
    a = rng.choice(values, (16, 16))
    b = rng.choice(values, (16, 8))
    code = np.vectorize(lambda x: _E4M3[float(x)])
    a8, b8 = code(a).astype(np.uint32), code(b).astype(np.uint32)
    af = np.zeros(64, np.uint32)
    bf = np.zeros(32, np.uint32)
    for lane in range(32):
        group, t = divmod(lane, 4)
        for r in range(2):
            af[2 * lane + r] = sum(a8[group + 8 * r, 4 * t + i] << (8 * i) for i in range(4))
        bf[lane] = sum(b8[4 * t + i, group] << (8 * i) for i in range(4))
    d, h = cupy.zeros(128, cupy.float32), cupy.zeros(64, cupy.uint32)
    module.mma_fp8(cupy.asarray(af), cupy.asarray(bf), d, h)
    cupy.cuda.Device().synchronize()
    want = a.astype(np.float64) @ b.astype(np.float64)
    d, halves = d.get(), h.get().view(np.float16)
    for lane in range(32):
        group, t = divmod(lane, 4)
        for i in range(4):
            row, col = group + 8 * (i >= 2), 2 * t + (i & 1)
            assert d[4 * lane + i] == want[row, col] + 0.5  # C = 0.5 everywhere
            assert halves[4 * lane + i] == want[row, col]  # the f16 accumulator, C = 0
