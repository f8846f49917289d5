"""The documentation's kernels that state a result, run on a GPU through the
generated launcher and checked against NumPy (marker `gpu`).

Each case is a conformance-corpus file (tests/conformance/<stem>.tx) whose page
states what the kernel computes: an `assert_close`, a printed or commented value,
or "verified ... equals ...". A kernel that tirxc does not accept yet is skipped
with its first error, so these tests start running as features land.
Inputs are the page's where it gives them (`torch.arange(256)` for block_sum),
else seeded random data; outputs start as NaN so an unwritten element fails.

Pages with a stated result that are not here: tcgen05_ldst ("the round trip
reproduces the input") and copy/reg, copy/ldstmatrix, whose kernels as shown
elide the staging and write-back (`# ...`), so they write no output; profiling,
whose results are timings; permute_layout ("transposed for every stage"), whose
buffers carry strided layouts the launcher's NumPy views would have to mirror.
"""
from __future__ import annotations

import numpy as np
import pytest

from tests.conformance import corpus

def _rand(rng, shape, dtype="float32", low=0.5, high=2.0):
    return rng.uniform(low, high, size=shape).astype(dtype)


def _nan(shape, dtype="float32"):
    return np.full(shape, np.nan, dtype=dtype)


def _close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


# stem -> (page's statement, kernel name, make(rng) -> args, check(before, after), minimum compute capability)
CASES = {
    "native_basics-cuda-first_kernel__1": (
        "torch.testing.assert_close(b, a * 2)", "scale",
        lambda rng: [_rand(rng, 256), _nan(256)],
        lambda before, after: _close(after[1], before[0] * 2), 0),
    "native_basics-cuda-compiling__3": (
        "exe(a, out)  # out[0] == 32640.0, with a = torch.arange(256)", "block_sum",
        lambda rng: [np.arange(256, dtype="float32"), _nan(1)],
        lambda before, after: np.testing.assert_array_equal(after[1], [32640.0]), 0),
    "native_basics-cuda-functions__4@100": (
        "scale_dyn: B = A * 2 for n = 100", "scale_dyn",
        lambda rng: [_rand(rng, 100), _nan(100)],
        lambda before, after: _close(after[1], before[0] * 2), 0),
    "native_basics-cuda-functions__4@200": (
        "scale_dyn: B = A * 2 for n = 200, same kernel", "scale_dyn",
        lambda rng: [_rand(rng, 200), _nan(200)],
        lambda before, after: _close(after[1], before[0] * 2), 0),
    "native_basics-cuda-threads_sync__2": (
        "a warp all-reduce: every lane ends with the sum of v = 31 - lane_id", "warp_reduce",
        lambda rng: [_nan(32)],
        lambda before, after: np.testing.assert_array_equal(after[0], np.full(32, 496.0, "float32")), 0),
    "tile_primitives-elementwise-reg__2": (
        "the result equals sqrt(A)", "k",
        lambda rng: [_rand(rng, (32, 8)), _nan((32, 8))],
        lambda before, after: _close(after[1], np.sqrt(before[0])), 0),
    "tile_primitives-elementwise-smem__2": (
        "the tile equals sqrt(A)", "unary_op",
        lambda rng: [_rand(rng, (32, 32))],
        lambda before, after: _close(after[0], np.sqrt(before[0])), 0),
    "tile_primitives-gemm__2": (
        "D == A@B within fp16 tolerance", "gemm",
        lambda rng: [_rand(rng, (16, 16), "float16", -1, 1), _rand(rng, (16, 8), "float16", -1, 1), _nan((16, 8))],
        lambda before, after: _close(after[2], before[0].astype("float32") @ before[1].astype("float32"),
                                     rtol=1e-2, atol=1e-2), 0),
    "tile_primitives-reduction-local__2": (
        "B == sum(A)", "test_func",
        lambda rng: [_rand(rng, 4), _nan(1)],
        lambda before, after: _close(after[1], [before[0].sum()]), 0),
    "tile_primitives-reduction-shared__2": (
        "each B[r] == sum(A[r, :])", "test_reduction",
        lambda rng: [_rand(rng, (4, 8)), _nan(4)],
        lambda before, after: _close(after[1], before[0].sum(axis=1)), 0),
    "tile_primitives-reduction-sm100_packed__2": (
        "B == sum(A) for a 32-element vector (sm_100a)", "test_func",
        lambda rng: [_rand(rng, 32), _nan(1)],
        lambda before, after: _close(after[1], [before[0].sum()], rtol=1e-5), 100),
}


@pytest.mark.gpu
@pytest.mark.parametrize("case_id", sorted(CASES))
def test_docs_kernel_result(case_id, launcher_for):
    import cupy
    stem = case_id.split("@")[0]
    statement, kernel_name, make, check, min_cc = CASES[case_id]
    outcome = corpus.run_file(corpus.CORPUS / f"{stem}.tx")
    if outcome.status != "pass":
        pytest.skip(f"tirxc does not accept {stem}.tx yet ({', '.join(outcome.diagnostics[:3])}): {outcome.first_error}")
    if int(cupy.cuda.Device().compute_capability) < min_cc:
        pytest.skip(f"{stem} needs compute capability {min_cc // 10}.x (the page runs it on sm_100a)")
    text = (corpus.CORPUS / f"{stem}.tx").read_text(encoding="utf-8")
    module = launcher_for(corpus.module_name(stem), text)
    kernel = getattr(module, kernel_name)
    before = make(np.random.default_rng(20260901))
    device = [cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in before]
    kernel(*device)
    cupy.cuda.Device().synchronize()
    after = [cupy.asnumpy(d) if isinstance(a, np.ndarray) else a for a, d in zip(before, device)]
    check(before, after)  # the page: {statement}
