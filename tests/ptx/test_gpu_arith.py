"""Values of the arithmetic PTX forms on a GPU (tests/ptx/kernels/gpu_forms_arith.tx), checked
against NumPy: min, div / rem (truncating), bfe, sad, dp4a, mul24, set, cvt (float -> int with
.rzi, int -> float, f32 <-> f16), testp, max.f32 (a NaN input gives the other), copysign and
fma.rn.f16 (one rounding). tests/ptx/test_nvcc.py compiles the same kernel without a GPU."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.gpu.conftest import GPU_SKIP_REASON, launcher_for  # noqa: F401 (the fixture)

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(GPU_SKIP_REASON is not None, reason=f"GPU test: {GPU_SKIP_REASON}")]

SOURCE = (Path(__file__).resolve().parent / "kernels" / "gpu_forms_arith.tx").read_text()


def test_integer_float_and_half_arithmetic(launcher_for):  # noqa: F811
    import cupy

    module = launcher_for("gpu_forms_arith", SOURCE)
    rng = np.random.default_rng(5)
    a = rng.integers(-2000, 2000, 128, dtype=np.int32)
    x = rng.uniform(-3, 3, 128).astype(np.float32)
    x[0], x[1] = np.nan, -1.5
    out, g = cupy.zeros(1280, cupy.int32), cupy.zeros(512, cupy.float32)
    module.arith(cupy.asarray(a), cupy.asarray(x), out, g)
    cupy.cuda.Device().synchronize()
    o, g = out.get(), g.get()
    tx = np.arange(128, dtype=np.int32)
    assert np.array_equal(o[:128], np.minimum(a, 17))  # min.s32
    assert np.array_equal(o[128:256], np.sign(a) * (np.abs(a) // 7))  # div.s32 truncates
    assert np.array_equal(o[256:384], np.fmod(a, 7))  # rem.s32 takes the dividend's sign
    assert np.array_equal(o[384:512], ((a.view(np.uint32) >> 4) & 0xFF).astype(np.int32))  # bfe.u32
    assert np.array_equal(o[512:640], tx + np.abs(a - 100))  # sad.s32
    weights = np.array([0x03, 0x02, -1, 0x01], dtype=np.int32)  # the bytes of 0x01FF0203, low first, signed
    dots = (a.view(np.int8).reshape(128, 4).astype(np.int32) * weights).sum(axis=1)
    assert np.array_equal(o[640:768], dots + tx)  # dp4a.s32.s32
    assert np.array_equal(o[768:896], a * 3)  # mul24.lo.s32
    assert np.array_equal(o[896:1024], np.where(a < 0, -1, 0))  # set.lt.u32.s32: all ones
    scaled = x * np.float32(100.0)
    assert np.array_equal(o[1024:1152], np.where(np.isnan(scaled), 0, np.trunc(np.nan_to_num(scaled))).astype(np.int32))
    assert np.array_equal(o[1152:], np.isnan(x).astype(np.int32))  # testp.notanumber
    assert np.array_equal(g[:128], np.fmax(x, np.float32(0.5)))  # max.f32: NaN gives the other
    assert np.array_equal(g[128:256], np.copysign(np.float32(2.0), x))  # copysign: a's sign on b
    h = x.astype(np.float16).astype(np.float64)
    assert np.array_equal(g[256:384], (h * h + h).astype(np.float16).astype(np.float32), equal_nan=True)
    assert np.array_equal(g[384:], a.astype(np.float32))  # cvt.rn.f32.s32
