"""NumPy reference table for the GPU tests of the samples in samples/.

A plain data module: it needs only NumPy and the standard library, and it
neither compiles nor launches anything. A GPU test (marker `gpu`) builds each
sample's launcher with tirxc, then for every entry of `CASES` (or of `PARAMS`,
which expands the size lists):

    args_before = make_args(case, size)          # NumPy arrays and scalars
    args_after  = <launch case["kernel"] of case["sample"] on copies of
                   args_before; copy every array argument back to NumPy>
    case["check"](args_before, args_after)       # raises AssertionError

Keys of a case (a dict):

  id           unique test id, "<sample>.<kernel>" plus a suffix where one
               kernel has several cases.
  sample       file stem of the sample (samples/<sample>.tx).
  kernel       name of the @T.prim_func in that file.
  seed         seed for numpy.random.default_rng; `make_args` uses it.
  make_inputs  make_inputs(rng) -> list, or make_inputs(rng, n) when the case
               has `sizes`: the kernel's positional arguments in declaration
               order -- NumPy arrays for buffer parameters (output buffers
               included, pre-filled with a sentinel: NaN for floats, -7777 for
               ints, so that an element the kernel fails to write is caught),
               Python or NumPy scalars for scalar parameters. Symbolic extents
               (`n = T.int32()`) are not arguments: the launcher infers them
               from the array shapes.
  check        check(args_before, args_after) -> None. `args_after` holds the
               same positions as `args_before`, arrays copied back from the
               device after the launch (scalars as passed). It also checks that
               input buffers were not written.
  sizes        (optional) the values of the symbolic length n to run at; the
               test runs make_inputs(rng, n) once per size.
  launch       launch(args) -> dict(grid=tuple, block=tuple, dyn_shared_bytes=int):
               the launch configuration the kernel declares, for comparing with
               the launcher's `f.launch_config(*args)`. Tuples have as many
               entries as the kernel's T.cta_id / T.thread_id lists; pad with 1s
               to compare with a 3-tuple.
  views        (optional) {argument position: fn(array) -> view}: for a buffer
               with a non-default layout or an elem_offset, `make_inputs` gives
               the whole underlying allocation and `fn` returns the NumPy view
               that the buffer's logical (i, j) indexing addresses. See `note`.
  note         (optional) prose about what the caller passes.

Buffers with a layout or an elem_offset (samples/layout_views.tx). The
launcher's rule for what the caller passes is not settled yet (docs/design.md, decision 20
says only that a non-row-major layout takes an array whose strides realise it,
and that elem_offset follows "one documented rule"). `make_inputs` gives B as:
  add_one_col_major  a Fortran-ordered (4, 8) array: its strides realise
                     S[(4, 8):(1, 4)] exactly (no choice to make here);
  add_one_offset     the whole underlying allocation, a flat (96,) array:
                     64 elements before the view plus the 4*8 of the view;
                     B[i, j] is element 64 + i*8 + j of it;
  add_one_stride16   the whole underlying allocation, a (4, 16) array:
                     B[i, j] is element i*16 + j, i.e. base[i, j].
Two rules are plausible, and `views` serves either:
  rule A, "the allocation": the caller passes the base array; the kernel gets
     its data pointer and adds elem_offset / applies the layout itself.
  rule B, "the view" (TVM's packed API: it binds a constant elem_offset to the
     DLTensor's byte_offset and asserts they agree): the caller passes
     `case["views"][1](dev_base)`, a CuPy view of the device copy of the base --
     base[64:96].reshape(4, 8) (the launcher then hands the kernel
     view.data.ptr - 64 * 4 bytes, since the kernel adds 64 itself), or
     base[:, :8] (strides 64 and 4 bytes realise S[(4, 8):(16, 1)]).
Either way, copy the whole base back for `check`: the checks read the base and
also assert that the elements outside the view were left alone.
"""
from __future__ import annotations

import numpy as np
from numpy.testing import assert_allclose, assert_array_equal

INT_SENTINEL = -7777

# Tolerances (relative, absolute).
ELEMWISE = dict(rtol=1e-5, atol=1e-6)     # one or a few float32 operations
REDUCE = dict(rtol=1e-4, atol=1e-4)       # sums of hundreds of float32 values
SGEMM = dict(rtol=1e-3, atol=1e-3)        # K = 1024 float32 dot products
HALF = dict(rtol=1e-3, atol=1e-3)         # float16 results


# ---------------------------------------------------------------- helpers

def _uniform(rng, shape, lo=-1.0, hi=1.0, dtype=np.float32):
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def _out(shape, dtype=np.float32):
    """An output buffer pre-filled with the sentinel."""
    if np.dtype(dtype).kind == "f":
        return np.full(shape, np.nan, dtype=dtype)
    return np.full(shape, INT_SENTINEL, dtype=dtype)


def _unchanged(before, after, *positions):
    """Input buffers must come back exactly as they went in."""
    for p in positions:
        assert_array_equal(after[p], before[p], err_msg=f"input argument {p} was modified")


def _launch(grid, block, dyn=0):
    def launch(args):
        return dict(grid=tuple(grid), block=tuple(block), dyn_shared_bytes=dyn)
    return launch


def _ceildiv(a, b):
    return -(-a // b)


# ---------------------------------------------------------------- smem_demo

def _smem_demo_inputs(rng):
    return [_uniform(rng, (128,)), _out((128,))]


def _smem_demo_check(before, after):
    _unchanged(before, after, 0)
    assert_array_equal(after[1], before[0] * np.float32(2.0))   # exact


# ---------------------------------------------------------------- dyn_smem_views

def _dyn_inputs(rng):
    return [_uniform(rng, (64,)), _uniform(rng, (64,)), _out((64,))]


def _dyn_check(before, after):
    _unchanged(before, after, 0, 1)
    assert_allclose(after[2], before[0] + before[1], **ELEMWISE)


# ---------------------------------------------------------------- layout_views

def _layout_a(rng):
    return _uniform(rng, (4, 8), -10.0, 10.0)


def _row_major_inputs(rng):
    return [_layout_a(rng), _out((4, 8))]


def _row_major_check(before, after):
    _unchanged(before, after, 0)
    assert_allclose(after[1], before[0] + np.float32(1), **ELEMWISE)


def _col_major_inputs(rng):
    return [_layout_a(rng), np.asfortranarray(_out((4, 8)))]


def _col_major_check(before, after):
    _unchanged(before, after, 0)
    assert after[1].shape == (4, 8)
    # Logical indexing is independent of the memory order it came back in.
    assert_allclose(after[1], before[0] + np.float32(1), **ELEMWISE)


def _offset_view(base):
    return base[64:96].reshape(4, 8)


def _offset_inputs(rng):
    return [_layout_a(rng), _out((96,))]


def _offset_check(before, after):
    _unchanged(before, after, 0)
    base = after[1]
    assert base.shape == (96,)
    assert_allclose(_offset_view(base), before[0] + np.float32(1), **ELEMWISE)
    assert np.isnan(base[:64]).all(), "elements before elem_offset=64 were written"


def _stride16_view(base):
    return base[:, :8]


def _stride16_inputs(rng):
    return [_layout_a(rng), _out((4, 16))]


def _stride16_check(before, after):
    _unchanged(before, after, 0)
    base = after[1]
    assert base.shape == (4, 16)
    assert_allclose(_stride16_view(base), before[0] + np.float32(1), **ELEMWISE)
    assert np.isnan(base[:, 8:]).all(), "the gap columns 8..15 of each row were written"


# ---------------------------------------------------------------- registers_unroll

def _regs_inputs(rng):
    return [_uniform(rng, (128, 4)), _out((128,))]


def _regs_check(before, after):
    _unchanged(before, after, 0)
    a = before[0]
    ref = (a[:, 0] + a[:, 1]) + (a[:, 2] + a[:, 3])               # float32, kernel order
    assert_allclose(after[1], ref, **ELEMWISE)


# ---------------------------------------------------------------- scalars

def _scalars_inputs(rng):
    return [_uniform(rng, (64, 4)), _out((64,)), _out((64,), np.int32)]


def _scalars_check(before, after):
    _unchanged(before, after, 0)
    a = before[0]
    ref = ((a[:, 0] + a[:, 1]) + a[:, 2]) + a[:, 3]               # the while loop's order
    assert_allclose(after[1], ref, **ELEMWISE)
    t = np.arange(64, dtype=np.int32)
    assert_array_equal(after[2], 3 * t + 1 + 4)                   # s + final phase


# ---------------------------------------------------------------- let_binding

def _let_const_inputs(rng):
    return [_uniform(rng, (64,)), _out((64,))]


def _let_const_check(before, after):
    _unchanged(before, after, 0)
    t = np.arange(64)
    assert_array_equal(after[1], before[0][(t + 32) % 64] * np.float32(32))   # exact


def _let_runtime_case(m):
    def make_inputs(rng):
        return [_uniform(rng, (64,)), _out((64,)), m]

    def check(before, after):
        _unchanged(before, after, 0)
        mm = int(before[2])
        half = mm * 2
        t = np.arange(64)
        ref = before[0][(t + half) % 64] + np.float32(half)       # NumPy % is floor modulo
        assert_allclose(after[1], ref, **ELEMWISE)

    return dict(id=f"let_binding.let_runtime.m{m}".replace("-", "neg"),
                sample="let_binding", kernel="let_runtime", seed=600 + abs(m),
                make_inputs=make_inputs, check=check, launch=_launch([1], [64]))


# ---------------------------------------------------------------- buffer_api

def _pointers_inputs(rng):
    return [_uniform(rng, (64,)), _out((64,)), _out((64,)), _out((64,))]


def _pointers_check(before, after):
    _unchanged(before, after, 0)
    a = before[0]
    assert_array_equal(after[1], a)                               # ld(&A[t])
    assert_array_equal(after[2], a[::-1])                         # ld_at(A, 63 - t)
    assert_array_equal(after[3], a * np.float32(2.0))             # st(&D[t], 2 A[t])


def _vector_copy_inputs(rng):
    return [_uniform(rng, (256,)), _out((256,))]


def _vector_copy_check(before, after):
    _unchanged(before, after, 0)
    assert_array_equal(after[1], before[0])


def _view_permute_inputs(rng):
    return [_uniform(rng, (256,)), _out((64,)), _out((4, 64))]


def _view_permute_check(before, after):
    _unchanged(before, after, 0)
    a2 = before[0].reshape(64, 4)
    assert_allclose(after[1], a2[:, 0] + a2[:, 3], **ELEMWISE)
    assert_array_equal(after[2], a2.T)


# ---------------------------------------------------------------- block_reduce

def _block_reduce_inputs(rng):
    # Non-negative values keep the per-block sums away from zero, so a
    # relative tolerance is meaningful.
    return [_uniform(rng, (64 * 256,), 0.0, 1.0), _out((64,))]


def _block_reduce_check(before, after):
    _unchanged(before, after, 0)
    a = before[0]
    blocks = after[1].shape[0]
    ref = a.astype(np.float64).reshape(blocks, -1).sum(axis=1)
    assert_allclose(after[1], ref, **REDUCE)


# ---------------------------------------------------------------- warp_reduce

def _warp_reduce_inputs(rng):
    return [_uniform(rng, (16 * 4 * 32,)), _out((16 * 4,))]


def _warp_reduce_check(before, after):
    _unchanged(before, after, 0)
    ref = before[0].astype(np.float64).reshape(-1, 32).sum(axis=1)
    assert_allclose(after[1], ref, **REDUCE)


# ---------------------------------------------------------------- float4_copy

def _float4_inputs(rng, n):
    return [_uniform(rng, (n, 4)), _out((n, 4))]


def _float4_check(before, after):
    _unchanged(before, after, 0)
    assert_array_equal(after[1], before[0])


def _float4_launch(args):
    n = args[0].shape[0]
    return dict(grid=(_ceildiv(n, 256),), block=(256,), dyn_shared_bytes=0)


# ---------------------------------------------------------------- sgemm_tiled

def _sgemm_inputs(rng):
    m = n = k = 1024
    return [_uniform(rng, (m, k)), _uniform(rng, (k, n)), _out((m, n))]


def _sgemm_check(before, after):
    _unchanged(before, after, 0, 1)
    ref = before[0].astype(np.float64) @ before[1].astype(np.float64)
    assert_allclose(after[2], ref, **SGEMM)


# ---------------------------------------------------------------- relu_inline

def _relu_inputs(rng):
    a = _uniform(rng, (4096,))
    a[:4] = [0.0, -0.0, 1e-30, -1e-30]
    return [a, _out((4096,))]


def _relu_check(before, after):
    _unchanged(before, after, 0)
    assert_array_equal(after[1], np.maximum(before[0], np.float32(0.0)))


# ---------------------------------------------------------------- saxpy

def _saxpy_inputs(rng, n):
    a = np.float32(rng.uniform(-2.0, 2.0))
    return [a, _uniform(rng, (n,)), _uniform(rng, (n,))]


def _saxpy_check(before, after):
    _unchanged(before, after, 1)
    a = np.float64(before[0])
    # The device may contract a*x + y into one FMA: compare with the exact
    # value, with an absolute floor for results near zero.
    ref = a * before[1].astype(np.float64) + before[2].astype(np.float64)
    assert_allclose(after[2], ref, **ELEMWISE)


def _saxpy_launch(args):
    n = args[1].shape[0]
    return dict(grid=(_ceildiv(n, 256),), block=(256,), dyn_shared_bytes=0)


# ---------------------------------------------------------------- global_workspace

def _global_sum_inputs(rng, n):
    # Non-negative values: the sum grows with n, so a relative tolerance is meaningful.
    return [_uniform(rng, (n,), 0.0, 1.0), _out((1,))]


def _global_sum_check(before, after):
    _unchanged(before, after, 0)
    assert_allclose(after[1], [before[0].astype(np.float64).sum()], **REDUCE)


def _global_sum_launch(args):
    return dict(grid=(_ceildiv(args[0].shape[0], 256),), block=(256,), dyn_shared_bytes=0)


# ---------------------------------------------------------------- dyn_smem_large

def _dyn_large_inputs(rng):
    return [_uniform(rng, (8, 16384)), _out((8, 16384))]


def _dyn_large_check(before, after):
    _unchanged(before, after, 0)
    assert_array_equal(after[1], before[0][:, ::-1])


# ---------------------------------------------------------------- math_ops

def _int_ops_inputs(rng):
    a = rng.integers(-1000, 1001, size=256).astype(np.int32)
    b = rng.integers(1, 18, size=256).astype(np.int32)
    b *= np.where(rng.integers(0, 2, size=256) == 1, 1, -1).astype(np.int32)
    # Edge values: zero, exact multiples, a == b, a == -b, small magnitudes.
    a[:12] = [0, 8, -8, -1, 1, 7, -7, 16, -17, 5, -5, 100]
    b[:12] = [3, 8, 8, 8, -8, 7, 7, -16, 17, 5, 5, -3]
    return [a, b, _out((256, 10), np.int32)]


def _int_ops_ref(a, b):
    a = a.astype(np.int64)
    b = b.astype(np.int64)
    c = np.empty((a.shape[0], 10), dtype=np.int64)
    c[:, 0] = np.floor_divide(a, b)
    c[:, 1] = np.mod(a, b)                       # floor modulo: sign of b
    c[:, 2] = a // 8
    c[:, 3] = a % 8
    c[:, 4] = (a & 0xFF) | ((b & 7) << 8)
    c[:, 5] = (a ^ b) + (~a)
    c[:, 6] = a >> 2                             # arithmetic shift
    c[:, 7] = np.where(((a < b) & (a != 0)) | ~(b > 3), a, b)
    c[:, 8] = np.where(a >= 0, np.minimum(a, 100), np.maximum(a, -100))
    c[:, 9] = (a > b) * 1 + (a == b) * 2 + (a <= -b) * 4
    return c.astype(np.int32)


def _int_ops_check(before, after):
    _unchanged(before, after, 0, 1)
    assert_array_equal(after[2], _int_ops_ref(before[0], before[1]))


def _float_ops_inputs(rng):
    x = _uniform(rng, (256,), -2.0, 2.0)
    x[:4] = [0.0, 1.0, -1.0, 0.05]
    k = rng.integers(-50, 51, size=256).astype(np.int32)
    h = _uniform(rng, (256,), -4.0, 4.0, np.float16)
    return [x, k, h, _out((256, 9)), _out((256, 2), np.float16)]


def _float_ops_check(before, after):
    _unchanged(before, after, 0, 1, 2)
    x, k, h = before[0], before[1], before[2]
    f32 = np.float32
    y = np.empty((x.shape[0], 9), dtype=np.float32)
    y[:, 0] = np.exp(x * f32(0.5))
    y[:, 1] = np.sqrt(np.abs(x))
    y[:, 2] = (k * 3 - 7).astype(np.float32) / f32(4.0)
    y[:, 3] = k.astype(np.float32) * x
    y[:, 4] = np.maximum(x, f32(0)) + np.minimum(x, f32(0)) * f32(0.25)
    y[:, 5] = np.where(x > 0, x * f32(2.0), np.tanh(x))
    y[:, 6] = (x * f32(10.0)).astype(np.int32).astype(np.float32)   # truncation
    y[:, 7] = np.log(x * x + f32(1.0))
    y[:, 8] = h.astype(np.float32) + x
    for col in range(9):
        assert_allclose(after[3][:, col], y[:, col], err_msg=f"Y[:, {col}]", **ELEMWISE)
    ho0 = h * np.float16(2.0) + h
    ho1 = x.astype(np.float16) - h
    assert after[4].dtype == np.float16
    assert_allclose(after[4][:, 0].astype(np.float32), ho0.astype(np.float32), err_msg="HO[:, 0]", **HALF)
    assert_allclose(after[4][:, 1].astype(np.float32), ho1.astype(np.float32), err_msg="HO[:, 1]", **HALF)


# ---------------------------------------------------------------- control_flow

def _control_flow_inputs(rng):
    a = rng.integers(-20, 31, size=64).astype(np.int32)
    a[:6] = [-5, 0, 1, 9, 10, 30]
    return [a, _out((64, 5), np.int32)]


def _control_flow_ref(a):
    n = a.shape[0]
    out = np.zeros((n, 5), dtype=np.int64)
    for t in range(n):
        v = int(a[t])
        out[t, 0] = -1 if v < 0 else 0 if v == 0 else 1 if v < 10 else 2
        s = sum(range(t % 5, 40, 3))
        s += sum(int(a[(t + k) % n]) for k in range(4))
        out[t, 1] = s
        out[t, 2] = sum((i + 1) * (j + t) for i in range(4) for j in range(4))
        c, w = 0, t
        while w < 1000:
            w += 1
            if w % 2 == 0:
                continue
            c += 1
            if w % 7 == 0:
                break
        out[t, 3] = c * 1000 + w
        out[t, 4] = 1
    return out.astype(np.int32)


def _control_flow_check(before, after):
    _unchanged(before, after, 0)
    assert_array_equal(after[1], _control_flow_ref(before[0]))


# ---------------------------------------------------------------- the table

_LAYOUT_NOTE = ("B's layout is not dense row-major or it has an elem_offset: "
                "see the module docstring for what the caller passes.")

# ---------------------------------------------------------------- mma_gemm_fp16

def _mma_inputs(rng):
    m = n = k = 1024
    a = rng.uniform(-1.0, 1.0, (m, k)).astype(np.float16)
    b = rng.uniform(-1.0, 1.0, (n, k)).astype(np.float16)
    return [a, b, _out((m, n))]


def _mma_check(before, after):
    _unchanged(before, after, 0, 1)
    ref = before[0].astype(np.float64) @ before[1].astype(np.float64).T  # C = A @ B^T, fp32 accumulation
    assert_allclose(after[2], ref, **SGEMM)


# ---------------------------------------------------------------- gemm_bf16_hopper

def _bf16_bits(x):
    """float32 -> bfloat16 bit patterns (uint16, the launcher's bfloat16), rounded to nearest even."""
    bits = x.astype(np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def _bf16_value(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _hopper_inputs(m, n, k):
    def inputs(rng):
        return [_bf16_bits(rng.uniform(-1.0, 1.0, (m, k))), _bf16_bits(rng.uniform(-1.0, 1.0, (n, k))),
                np.full((m, n), 0x7FC0, np.uint16)]  # the sentinel: a bfloat16 NaN
    return inputs


def _hopper_check(before, after):
    _unchanged(before, after, 0, 1)
    ref = _bf16_value(before[0]).astype(np.float64) @ _bf16_value(before[1]).astype(np.float64).T
    # fp32 accumulation, then one rounding to bfloat16 (8 significant bits)
    assert_allclose(_bf16_value(after[2]), ref, rtol=1e-2, atol=1e-2 * np.abs(ref).max())


# ---------------------------------------------------------------- softmax_meta

def _softmax_inputs(rng):
    x = rng.standard_normal((512, 1024)).astype(np.float32) * 4
    x[7, :] += 80.0  # a row whose exponentials overflow float32 without the max subtracted
    return [x, _out((512, 1024))]


def _softmax_check(before, after):
    _unchanged(before, after, 0)
    x = before[0].astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    assert_allclose(after[1], e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------- smem_pool

def _smem_pool_inputs(rng):
    return [_uniform(rng, (16 * 128, 64)), _uniform(rng, (16 * 128, 64)), _out((16 * 128, 64))]


def _smem_pool_check(before, after):
    _unchanged(before, after, 0, 1)
    a = before[0].reshape(16, 128, 64)
    b = before[1].reshape(16, 128, 64)
    ref = (np.float32(2) * a + b[:, ::-1, :]).reshape(16 * 128, 64)
    assert_allclose(after[2], ref, **ELEMWISE)


CASES = [
    dict(id="smem_demo.smem_demo", sample="smem_demo", kernel="smem_demo", seed=100,
         make_inputs=_smem_demo_inputs, check=_smem_demo_check, launch=_launch([1], [128])),
    dict(id="dyn_smem_views.dyn", sample="dyn_smem_views", kernel="dyn", seed=101,
         make_inputs=_dyn_inputs, check=_dyn_check, launch=_launch([1], [64], 512)),

    dict(id="layout_views.add_one_row_major", sample="layout_views", kernel="add_one_row_major",
         seed=200, make_inputs=_row_major_inputs, check=_row_major_check, launch=_launch([1], [1])),
    dict(id="layout_views.add_one_col_major", sample="layout_views", kernel="add_one_col_major",
         seed=201, make_inputs=_col_major_inputs, check=_col_major_check, launch=_launch([1], [1]),
         note="B is a Fortran-ordered (4, 8) array (strides 4 and 16 bytes realise S[(4, 8):(1, 4)])."),
    dict(id="layout_views.add_one_offset", sample="layout_views", kernel="add_one_offset",
         seed=202, make_inputs=_offset_inputs, check=_offset_check, launch=_launch([1], [1]),
         views={1: _offset_view},
         note="B is the whole (96,) allocation; the (4, 8) buffer starts at element 64. " + _LAYOUT_NOTE),
    dict(id="layout_views.add_one_stride16", sample="layout_views", kernel="add_one_stride16",
         seed=203, make_inputs=_stride16_inputs, check=_stride16_check, launch=_launch([1], [1]),
         views={1: _stride16_view},
         note="B is the whole (4, 16) allocation; the buffer is its first 8 columns. " + _LAYOUT_NOTE),

    dict(id="registers_unroll.registers_unroll", sample="registers_unroll", kernel="registers_unroll",
         seed=300, make_inputs=_regs_inputs, check=_regs_check, launch=_launch([1], [128])),

    dict(id="scalars.scalars_explicit", sample="scalars", kernel="scalars_explicit", seed=400,
         make_inputs=_scalars_inputs, check=_scalars_check, launch=_launch([1], [64])),
    dict(id="scalars.scalars_sugar", sample="scalars", kernel="scalars_sugar", seed=401,
         make_inputs=_scalars_inputs, check=_scalars_check, launch=_launch([1], [64])),

    dict(id="let_binding.let_const", sample="let_binding", kernel="let_const", seed=500,
         make_inputs=_let_const_inputs, check=_let_const_check, launch=_launch([1], [64])),
    _let_runtime_case(5),
    _let_runtime_case(-3),
    _let_runtime_case(40),

    dict(id="buffer_api.pointers", sample="buffer_api", kernel="pointers", seed=700,
         make_inputs=_pointers_inputs, check=_pointers_check, launch=_launch([1], [64])),
    dict(id="buffer_api.vector_copy", sample="buffer_api", kernel="vector_copy", seed=701,
         make_inputs=_vector_copy_inputs, check=_vector_copy_check, launch=_launch([1], [64])),
    dict(id="buffer_api.view_permute", sample="buffer_api", kernel="view_permute", seed=702,
         make_inputs=_view_permute_inputs, check=_view_permute_check, launch=_launch([1], [64])),

    dict(id="block_reduce.block_reduce", sample="block_reduce", kernel="block_reduce", seed=800,
         make_inputs=_block_reduce_inputs, check=_block_reduce_check, launch=_launch([64], [256])),
    dict(id="block_reduce.block_reduce_warp_tail", sample="block_reduce", kernel="block_reduce_warp_tail",
         seed=801, make_inputs=_block_reduce_inputs, check=_block_reduce_check, launch=_launch([64], [256])),

    dict(id="warp_reduce.warp_reduce_xor", sample="warp_reduce", kernel="warp_reduce_xor", seed=900,
         make_inputs=_warp_reduce_inputs, check=_warp_reduce_check, launch=_launch([16], [128])),
    dict(id="warp_reduce.warp_reduce_down", sample="warp_reduce", kernel="warp_reduce_down", seed=901,
         make_inputs=_warp_reduce_inputs, check=_warp_reduce_check, launch=_launch([16], [128])),

    dict(id="float4_copy.float4_copy", sample="float4_copy", kernel="float4_copy", seed=1000,
         sizes=[1, 255, 256, 257, 4099], make_inputs=_float4_inputs, check=_float4_check,
         launch=_float4_launch),

    dict(id="sgemm_tiled.sgemm_tiled", sample="sgemm_tiled", kernel="sgemm_tiled", seed=1100,
         make_inputs=_sgemm_inputs, check=_sgemm_check, launch=_launch([32, 32], [16, 16])),
    dict(id="mma_gemm_fp16.mma_gemm", sample="mma_gemm_fp16", kernel="mma_gemm", seed=1700,
         make_inputs=_mma_inputs, check=_mma_check, launch=_launch([16, 16], [128])),
    # M, N and K unequal, several k-tiles per stage ring (K = 640: 10 tiles through 4 and 8 stages)
    dict(id="gemm_bf16_hopper.gemm_bf16_hopper", sample="gemm_bf16_hopper", kernel="gemm_bf16_hopper",
         seed=2600, make_inputs=_hopper_inputs(384, 512, 640), check=_hopper_check,
         launch=_launch([2, 3], [384], 196608)),
    dict(id="gemm_bf16_hopper.gemm_bf16_hopper_narrow", sample="gemm_bf16_hopper",
         kernel="gemm_bf16_hopper_narrow", seed=2601, make_inputs=_hopper_inputs(256, 192, 640),
         check=_hopper_check, launch=_launch([3, 2], [384], 196608)),
    dict(id="softmax_meta.softmax_meta", sample="softmax_meta", kernel="softmax_meta", seed=2700,
         make_inputs=_softmax_inputs, check=_softmax_check, launch=_launch([512], [256])),
    dict(id="smem_pool.smem_pool", sample="smem_pool", kernel="smem_pool", seed=1800,
         make_inputs=_smem_pool_inputs, check=_smem_pool_check, launch=_launch([16], [256], 65536)),

    dict(id="relu_inline.relu_inline", sample="relu_inline", kernel="relu_inline", seed=1200,
         make_inputs=_relu_inputs, check=_relu_check, launch=_launch([16], [256])),

    dict(id="saxpy.saxpy", sample="saxpy", kernel="saxpy", seed=1300,
         sizes=[1, 127, 128, 100003], make_inputs=_saxpy_inputs, check=_saxpy_check,
         launch=_saxpy_launch),

    # 1 and 256: one block; 257: two; 100003 and 2^20: 391 and 4096 partials in the workspace
    dict(id="global_workspace.global_sum", sample="global_workspace", kernel="global_sum", seed=1900,
         sizes=[1, 256, 257, 100003, 1 << 20], make_inputs=_global_sum_inputs, check=_global_sum_check,
         launch=_global_sum_launch),

    dict(id="dyn_smem_large.dyn_smem_large", sample="dyn_smem_large", kernel="dyn_smem_large", seed=1400,
         make_inputs=_dyn_large_inputs, check=_dyn_large_check, launch=_launch([8], [256], 65536)),

    dict(id="math_ops.int_ops", sample="math_ops", kernel="int_ops", seed=1500,
         make_inputs=_int_ops_inputs, check=_int_ops_check, launch=_launch([1], [256])),
    dict(id="math_ops.float_ops", sample="math_ops", kernel="float_ops", seed=1501,
         make_inputs=_float_ops_inputs, check=_float_ops_check, launch=_launch([1], [256])),

    dict(id="control_flow.control_flow", sample="control_flow", kernel="control_flow", seed=1600,
         make_inputs=_control_flow_inputs, check=_control_flow_check, launch=_launch([1], [64])),

    # the newer TIRx spelling (samples/*_function.tx): the same kernels, the same checks
    dict(id="saxpy_function.saxpy", sample="saxpy_function", kernel="saxpy", seed=1300,
         sizes=[1, 127, 128, 100003], make_inputs=_saxpy_inputs, check=_saxpy_check, launch=_saxpy_launch),
    dict(id="float4_copy_function.float4_copy", sample="float4_copy_function", kernel="float4_copy", seed=1000,
         sizes=[1, 255, 256, 257, 4099], make_inputs=_float4_inputs, check=_float4_check,
         launch=_float4_launch),
    dict(id="dyn_smem_views_function.dyn", sample="dyn_smem_views_function", kernel="dyn", seed=101,
         make_inputs=_dyn_inputs, check=_dyn_check, launch=_launch([1], [64], 512)),
    dict(id="relu_inline_function.relu_inline", sample="relu_inline_function", kernel="relu_inline", seed=1200,
         make_inputs=_relu_inputs, check=_relu_check, launch=_launch([16], [256])),
    dict(id="block_reduce_function.block_reduce", sample="block_reduce_function", kernel="block_reduce",
         seed=800, make_inputs=_block_reduce_inputs, check=_block_reduce_check, launch=_launch([64], [256])),
    dict(id="block_reduce_function.block_reduce_warp_tail", sample="block_reduce_function",
         kernel="block_reduce_warp_tail", seed=801, make_inputs=_block_reduce_inputs, check=_block_reduce_check,
         launch=_launch([64], [256])),
]


def make_args(case, size=None):
    """The arguments for one run of `case` (at symbolic length `size` when the
    case has `sizes`), from a fresh default_rng(case["seed"] + size)."""
    if "sizes" in case:
        if size is None:
            raise ValueError(f"{case['id']} needs a size, one of {case['sizes']}")
        return case["make_inputs"](np.random.default_rng(case["seed"] + size), size)
    if size is not None:
        raise ValueError(f"{case['id']} takes no size")
    return case["make_inputs"](np.random.default_rng(case["seed"]))


def to_device(args, case):
    """The host arguments on the GPU: ({position: the whole array}, the arguments to pass,
    where a case's `views` pass a view of an array instead of the array itself)."""
    import cupy
    bases, device_args = {}, []
    for i, arg in enumerate(args):
        if isinstance(arg, np.ndarray):
            base = cupy.array(arg, order="K")
            bases[i] = base
            view = case.get("views", {}).get(i)
            device_args.append(view(base) if view else base)
        else:
            device_args.append(arg)
    return bases, device_args


# One entry per run, for pytest.mark.parametrize: (test id, case, size or None).
PARAMS = [
    (f"{c['id']}[n={n}]", c, n) for c in CASES for n in c.get("sizes", ())
] + [
    (c["id"], c, None) for c in CASES if "sizes" not in c
]
PARAMS.sort(key=lambda p: p[0])

_ids = [c["id"] for c in CASES]
assert len(_ids) == len(set(_ids)), "duplicate case id"
del _ids
