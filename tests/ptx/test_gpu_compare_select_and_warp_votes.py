"""Values of compare / select, integer and warp-vote PTX forms on a GPU (tests/ptx/kernels/gpu_compare_select_and_warp_votes.tx), checked
against NumPy: setp (plain and with .or), selp, lop3, mul.wide, popc, integer mad, shfl.sync,
redux.sync, vote.sync.ballot, and mov.b64 unpacks with `T.ptx.SINK` (the sunk half untouched).
tests/ptx/test_nvcc.py compiles the same kernels without a GPU."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.gpu.conftest import GPU_SKIP_REASON, launcher_for  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(GPU_SKIP_REASON is not None, reason=f"GPU test: {GPU_SKIP_REASON}")]

SOURCE = (Path(__file__).resolve().parent / "kernels" / "gpu_compare_select_and_warp_votes.tx").read_text()


def test_arithmetic_comparison_and_warp_forms(launcher_for):  # noqa: F811
    import cupy

    module = launcher_for("gpu_compare_select_and_warp_votes", SOURCE)
    rng = np.random.default_rng(3)
    a = rng.integers(-2000, 2000, 128, dtype=np.int32)
    out = cupy.zeros(1024, cupy.uint32)
    wide = cupy.zeros(128, cupy.int64)
    module.arith(cupy.asarray(a), out, wide)
    cupy.cuda.Device().synchronize()
    o, w = out.get(), wide.get()
    tx = np.arange(128, dtype=np.uint32)
    lt = a < 0
    either = (a > 1000) | lt
    assert np.array_equal(o[:128], lt.astype(np.uint32))  # setp.lt.s32
    assert np.array_equal(o[128:256], either.astype(np.uint32))  # setp.gt.or.s32 with c
    assert np.array_equal(o[256:384], np.where(either, tx, 7))  # selp.b32
    assert np.array_equal(o[384:512], a.view(np.uint32) ^ np.uint32(0xF0F0F0F0) ^ tx)  # lop3 0x96: a ^ b ^ c
    assert np.array_equal(w, a.astype(np.int64) * -3)  # mul.wide.s32
    assert np.array_equal(o[512:640], [bin(int(x)).count("1") for x in a.view(np.uint32)])  # popc
    assert np.array_equal(o[640:768], (a * 5 + tx.astype(np.int32)).view(np.uint32))  # mad.lo.s32
    warp = tx // 32
    sums = np.array([int(tx[warp == k].sum()) for k in range(4)], dtype=np.uint32)
    assert np.array_equal(o[768:896], (warp * 32 + 3) * 10 + sums[warp])  # shfl.sync.idx + redux.sync.add
    ballots = [sum(1 << lane for lane in range(32) if (32 * k + lane) % 3 == 0) for k in range(4)]
    assert np.array_equal(o[896:], np.array(ballots, dtype=np.uint32)[warp])  # vote.sync.ballot


def test_sink_leaves_the_other_register(launcher_for):  # noqa: F811
    import cupy

    module = launcher_for("gpu_compare_select_and_warp_votes", SOURCE)
    u = (np.arange(128, dtype=np.uint64) << np.uint64(32)) | (np.arange(128, dtype=np.uint64) * np.uint64(3) + np.uint64(1))
    out = cupy.zeros(256, cupy.uint32)
    module.sink(cupy.asarray(u), out)
    cupy.cuda.Device().synchronize()
    o = out.get()
    assert np.array_equal(o[:128], (u & np.uint64(0xFFFFFFFF)).astype(np.uint32))  # low half into r[0]
    assert np.array_equal(o[128:], (u >> np.uint64(32)).astype(np.uint32))  # high half into r[1]
