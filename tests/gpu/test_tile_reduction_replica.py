"""TIRx's register reduction whose dst keeps the reduced axes over the threads (transpiler/tile/
reduction_keep.py) on the GPU against NumPy: upstream's test_reduction_local_view_complex (a
(16, 128) accumulator per warp into a (16, 4), every column the row's reduction), for sum / max /
min, `thread_reduce` True (one call) or False (then `Tx.warp.<op>(red, red, thread_reduce=True)`),
`accum` False / True, one warp, four warps, two warpgroups of four. The kernels and the reference:
tests/tile/test_reduction_replica.py (where an emulated warp checks the same values on the host)."""
from __future__ import annotations

import numpy as np
import pytest

from tests.tile.test_reduction_replica import COLS, kernel, reference, warpgroup_kernel

pytestmark = pytest.mark.gpu

COMBOS = [(True, False), (True, True), (False, False), (False, True)]  # thread_reduce, accum


def _run(launcher_for, stem, text, a, b):
    import cupy

    fn = launcher_for(stem, text).k
    bufs = [cupy.asarray(a), cupy.asarray(b)]
    fn(*bufs)
    cupy.cuda.Device().synchronize()
    return bufs[1].get()


def _check(launcher_for, op, dtype, thread_reduce, accum, groups, warps):
    rng = np.random.default_rng(warps * 10 + groups)
    a = rng.uniform(0, 1, (16 * warps, COLS)).astype(dtype)
    b = (rng.uniform(0, 1, (16 * warps, 4)) * 0.5).astype(dtype) if accum else np.zeros((16 * warps, 4), dtype)
    stem = f"tile_red_keep_{op}_{dtype}_{int(thread_reduce)}{int(accum)}_{groups}x{warps}"
    got = _run(launcher_for, stem, kernel(op, dtype, thread_reduce, accum, groups, warps), a, b)
    want = reference(op, a, b, thread_reduce, accum)
    if op == "sum":
        rtol, atol = (1e-2, 2e-1) if dtype == "float16" else (1e-5, 1e-4)  # float16: upstream's atol
        np.testing.assert_allclose(got.astype(np.float64), want, rtol=rtol, atol=atol)
    else:  # max / min pick one of the inputs: exact
        np.testing.assert_array_equal(got.astype(np.float64), want)


@pytest.mark.parametrize("groups, warps", [(1, 1), (1, 4), (2, 8)])
@pytest.mark.parametrize("op", ["sum", "max", "min"])
@pytest.mark.parametrize("thread_reduce, accum", COMBOS)
def test_local_view_float32(launcher_for, groups, warps, op, thread_reduce, accum):
    _check(launcher_for, op, "float32", thread_reduce, accum, groups, warps)


@pytest.mark.parametrize("op", ["sum", "max", "min"])
@pytest.mark.parametrize("thread_reduce, accum", COMBOS)
def test_local_view_float16(launcher_for, op, thread_reduce, accum):
    _check(launcher_for, op, "float16", thread_reduce, accum, 1, 4)


def test_partial_results_without_thread_reduce(launcher_for):
    # no finishing call: column q of each row is lane q's share (columns c with c % 8 in 2q, 2q + 1)
    rng = np.random.default_rng(4)
    a = rng.uniform(-1, 1, (16, COLS)).astype(np.float32)
    b = rng.uniform(-1, 1, (16, 4)).astype(np.float32)
    got = _run(launcher_for, "tile_red_keep_partial", kernel("sum", thread_reduce=False, accum=True, finish=False),
               a, b)
    np.testing.assert_allclose(got, reference("sum", a, b, False, True, finish=False), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("thread_reduce", [True, False])
def test_warpgroup_scope(launcher_for, thread_reduce):
    rng = np.random.default_rng(9)
    a = rng.uniform(-1, 1, (64, COLS)).astype(np.float32)
    b = np.zeros((64, 4), np.float32)
    got = _run(launcher_for, f"tile_red_keep_wg_{int(thread_reduce)}", warpgroup_kernel(thread_reduce), a, b)
    np.testing.assert_allclose(got, reference("sum", a, b, True, False), rtol=1e-5, atol=1e-5)
