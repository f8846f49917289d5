"""Tensor memory and tcgen05 under `tirxc sim` (docs/sim.md, "Tensor memory and tcgen05"): the
Blackwell samples against NumPy oracles, the ld / st register images of the PTX ISA, and the
allocation errors (a leak, a double free, a warp outside its lane quarter) as located errors."""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import SAMPLES
from tests.gpu.cases import _bf16_bits, _bf16_value
from transpiler import sim
from transpiler.syntax.source import SourceFile


def test_tmem_manual_round_trip_is_exact(kernels):
    a = np.random.default_rng(0).integers(0, 2**32 - 1, (128, 8), dtype=np.uint32)
    b = np.zeros_like(a)
    kernels.tmem_roundtrip(a, b)
    np.testing.assert_array_equal(b, a + np.uint32(1))


def test_tmem_pool_round_trip_is_exact(kernels):
    a = np.random.default_rng(1).integers(0, 2**31, (128, 4), dtype=np.uint32)
    b = np.zeros_like(a)
    kernels.tmem_pool_roundtrip(a, b)
    np.testing.assert_array_equal(b, a * np.uint32(2))


def test_gemm_bf16_blackwell_matches_a_float64_product(kernels):
    """tcgen05.mma kind::f16 (bf16 in, fp32 accumulation in tensor memory), both operands through
    128-byte-swizzled descriptors, four k-tiles through the mbarrier ring: within the bfloat16
    rounding of the output (8 significant bits) of the exact product."""
    rng = np.random.default_rng(2)
    m, n, k = 128, 256, 256
    a, b = _bf16_bits(rng.uniform(-1, 1, (m, k))), _bf16_bits(rng.uniform(-1, 1, (n, k)))
    c = np.full((m, n), 0x7FC0, np.uint16)
    kernels.gemm_bf16_blackwell(a, b, c)
    ref = _bf16_value(a).astype(np.float64) @ _bf16_value(b).astype(np.float64).T
    np.testing.assert_allclose(_bf16_value(c), ref, rtol=1e-2, atol=1e-2 * np.abs(ref).max())


_KERNEL = """

@T.prim_func
def {name}(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 8), "uint32")
    B = T.match_buffer(B_ptr, (128, 8), "uint32")
    T.device_entry()
    tx = T.thread_id([128])
    warp = T.warp_id([4])
    slot = T.alloc_shared((1,), "uint32")
    r = T.alloc_local((8,), "uint32")
    if warp == 0:
        T.ptx.tcgen05.alloc(T.address_of(slot), n_cols=32, cta_group=1)
    T.cuda.cta_sync()
    T.ptx.tcgen05.fence__after_thread_sync()
    for i in T.unroll(8):
        r[i] = A[tx, i]
"""
_STORE_16X256B = """    base = slot[0] + T.uint32((warp * 32) << 16)
    T.ptx["tcgen05.st.sync.aligned.16x256b.x1.b32"](base, r[0], r[1], r[2], r[3])
    T.ptx["tcgen05.st.sync.aligned.16x256b.x1.b32"](base + T.uint32(16 << 16), r[4], r[5], r[6], r[7])
    T.ptx.tcgen05.wait__st.sync.aligned()
    T.ptx["tcgen05.ld.sync.aligned.32x32b.x8.b32"](r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], base)
    T.ptx.tcgen05.wait__ld.sync.aligned()
    for i in T.unroll(8):
        B[tx, i] = r[i]
"""
_DEALLOC = """    if warp == 0:
        T.ptx.tcgen05.dealloc(slot[0], n_cols=32, cta_group=1)
"""
_FREE = "    T.ptx.tcgen05.fence__before_thread_sync()\n    T.cuda.cta_sync()\n" + _DEALLOC


_BODIES = {
    "image": _STORE_16X256B + _FREE,
    "leak": _STORE_16X256B,
    "double_free": _STORE_16X256B + _FREE + _DEALLOC,
    "other_quarter": _STORE_16X256B.replace("(warp * 32) << 16", "((warp + 1) % 4 * 32 + 32) << 16") + _FREE,
}


# one tcgen05.mma of each kind (issued twice: D = A B, then D = A B + D when `accumulate`), A (M x 32
# bytes of K) and B (16 x 32 bytes) K-major without a swizzle (8 x 16-byte core matrices, the K halves
# LBO = 128 bytes apart, the 8-row groups SBO = 256), the instruction descriptor a parameter
_MMA = """

@T.prim_func
def mma_{kind}(A_ptr: T.handle, B_ptr: T.handle, D_ptr: T.handle, idesc: T.uint32, accumulate: T.int32):
    A = T.match_buffer(A_ptr, (128, 32), "uint8")
    B = T.match_buffer(B_ptr, (16, 32), "uint8")
    D = T.match_buffer(D_ptr, (128, 16), "uint32")
    T.device_entry()
    tx = T.thread_id([128])
    warp = T.warp_id([4])
    slot = T.alloc_shared((1,), "uint32")
    As = T.alloc_shared((128 * 32,), "uint8", align=1024)
    Bs = T.alloc_shared((16 * 32,), "uint8", align=1024)
    bar = T.alloc_shared((1,), "uint64")
    if warp == 0:
        T.ptx.tcgen05.alloc(T.address_of(slot), n_cols=32, cta_group=1)
    for kb in T.serial(32):
        As[(tx % 8) * 16 + (tx // 8) * 256 + kb % 16 + (kb // 16) * 128] = A[tx, kb]
    if tx < 16:
        for kb in T.serial(32):
            Bs[(tx % 8) * 16 + (tx // 8) * 256 + kb % 16 + (kb // 16) * 128] = B[tx, kb]
    if tx == 0:
        T.ptx.mbarrier.init.shared.b64(bar.ptr_to([0]), T.uint32(1))
    T.ptx.fence.proxy.async_.shared__cta()
    T.ptx.tcgen05.fence__before_thread_sync()
    T.cuda.cta_sync()
    T.ptx.tcgen05.fence__after_thread_sync()
    if tx == 0:
        fields = T.uint64(8) << T.uint64(16) | T.uint64(16) << T.uint64(32) | T.uint64(1) << T.uint64(46)
        desc_a = T.uint64(T.cuda.cvta_generic_to_shared(As.data) >> T.uint32(4)) | fields
        desc_b = T.uint64(T.cuda.cvta_generic_to_shared(Bs.data) >> T.uint32(4)) | fields
        T.ptx["tcgen05.mma.cta_group::1.kind::{kind}"](slot[0], desc_a, desc_b, idesc, 0)
        T.ptx["tcgen05.mma.cta_group::1.kind::{kind}"](slot[0], desc_a, desc_b, idesc, accumulate)
        T.ptx["tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"](bar.ptr_to([0]))
    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
    T.ptx.tcgen05.fence__after_thread_sync()
    r = T.alloc_local((16,), "uint32")
    T.ptx["tcgen05.ld.sync.aligned.32x32b.x16.b32"](r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9],
                                                     r[10], r[11], r[12], r[13], r[14], r[15],
                                                     slot[0] + T.uint32((warp * 32) << 16))
    T.ptx.tcgen05.wait__ld.sync.aligned()
    for i in T.unroll(16):
        D[tx, i] = r[i]
    T.ptx.tcgen05.fence__before_thread_sync()
    T.cuda.cta_sync()
    if warp == 0:
        T.ptx.tcgen05.dealloc(slot[0], n_cols=32, cta_group=1)
"""
_KINDS = ("f16", "tf32", "f8f6f4", "i8")

# tcgen05.cp of the same A image (rows of 32 bytes, or their first 16 for the 128-bit shapes), read
# back by each warp's lanes with .32x32b.x8
_CP_SHAPES = {"128x256b": "cp_wide", "4x256b": "cp_four", "32x128b.warpx4": "cp_warpx4",
              "64x128b.warpx2::01_23": "cp_pairs"}
_CP = _MMA.split("    if tx == 0:\n        fields")[0].replace(
    "def mma_{kind}(A_ptr: T.handle, B_ptr: T.handle, D_ptr: T.handle, idesc: T.uint32, accumulate: T.int32)",
    "def {name}(A_ptr: T.handle, B_ptr: T.handle, D_ptr: T.handle)") + """    if tx == 0:
        fields = T.uint64(8) << T.uint64(16) | T.uint64(16) << T.uint64(32) | T.uint64(1) << T.uint64(46)
        desc = T.uint64(T.cuda.cvta_generic_to_shared(As.data) >> T.uint32(4)) | fields
        T.ptx["tcgen05.cp.cta_group::1.{shape}"](slot[0], desc)
        T.ptx["tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64"](bar.ptr_to([0]))
""" + "    T.cuda.mbarrier_wait" + _MMA.split("    T.cuda.mbarrier_wait")[1]

# seeded bugs in gemm_bf16_blackwell.tx: the epilogue reads the accumulator without waiting for the
# "done" barrier its last tcgen05.commit arrives on; it uses tcgen05.ld's registers without the wait
_MUTANTS = {
    "gemm_no_done_wait": ("gemm_bf16_blackwell", "        T.cuda.mbarrier_wait(T.address_of(done), 0)\n"),
    "gemm_no_ld_wait": ("gemm_bf16_blackwell", "            T.ptx.tcgen05.wait__ld.sync.aligned()\n"),
    "tmem_no_st_wait": ("tmem_roundtrip", "    T.ptx.tcgen05.wait__st.sync.aligned()\n"),  # (tmem_manual.tx)
}


def _source() -> str:
    """The Blackwell samples, seeded bugs and the kernels of these tests in one file: one build."""
    samples = {stem: (SAMPLES / f"{stem}.tx").read_text() for stem in ("tmem_manual", "tmem_pool", "gemm_bf16_blackwell")}
    parts = list(samples.values())
    for name, (kernel, line) in _MUTANTS.items():
        text = next(t for t in samples.values() if f"def {kernel}(" in t)
        assert line in text
        parts.append(text.replace(line, line.split("T.")[0] + "pass\n").replace(f"def {kernel}(", f"def {name}("))
    parts += [_KERNEL.format(name=name) + body for name, body in _BODIES.items()]
    parts += [_MMA.format(kind=kind) for kind in _KINDS]
    parts += [_CP.format(name=name, shape=shape) for shape, name in _CP_SHAPES.items()]
    return "\n".join(parts)


@pytest.fixture(scope="module")
def kernels():
    """Every kernel here under --racecheck --synccheck: a finding on a sample fails its test."""
    return sim.load_source(SourceFile("tensor_memory.tx", _source()), arch="sm_100a",
                           options=sim.Options(racecheck=True, synccheck=True, schedules=2))


def _line(kernel: str, text: str) -> int:
    """The line of the first `text` in `kernel` of the file."""
    lines = _source().splitlines()
    start = next(n for n, t in enumerate(lines) if f"def {kernel}(" in t)
    return next(n for n in range(start, len(lines)) if text in lines[n]) + 1


def _lines(finding) -> set:
    return {finding.span.line} | {note.span.line for note in finding.notes if note.span is not None}


def test_a_read_of_the_accumulator_before_the_commits_wait_is_a_race_with_both_lines(kernels):
    m, n, k = 128, 256, 64
    with pytest.raises(sim.SimFindings) as err:
        kernels.gemm_no_done_wait(np.zeros((m, k), np.uint16), np.zeros((n, k), np.uint16), np.zeros((m, n), np.uint16))
    finding = next(d for d in err.value.diagnostics if "tensor memory" in d.message)
    assert finding.code in ("E0820", "E0822")
    assert {_line("gemm_no_done_wait", 'T.ptx["tcgen05.mma.'), _line("gemm_no_done_wait", 'T.ptx["tcgen05.ld.')} \
        <= _lines(finding)


def test_tcgen05_ld_registers_without_the_wait_are_reported(kernels):
    m, n, k = 128, 256, 64
    with pytest.raises(sim.SimFindings) as err:
        kernels.gemm_no_ld_wait(np.zeros((m, k), np.uint16), np.zeros((n, k), np.uint16), np.zeros((m, n), np.uint16))
    assert ("E0846", _line("gemm_no_ld_wait", 'T.ptx["tcgen05.ld.')) in {(d.code, d.span.line) for d in err.value.diagnostics}


def test_a_load_of_a_store_not_waited_for_is_reported_with_both_lines(kernels):
    with pytest.raises(sim.SimFindings) as err:
        kernels.tmem_no_st_wait(np.zeros((128, 8), np.uint32), np.zeros((128, 8), np.uint32))
    finding = next(d for d in err.value.diagnostics if d.code == "E0822")
    assert {_line("tmem_no_st_wait", 'T.ptx["tcgen05.st.'), _line("tmem_no_st_wait", 'T.ptx["tcgen05.ld.')} \
        == _lines(finding)


def test_the_16x256b_image_is_the_isas(kernels):
    """Register r of lane l of a .16x256b store holds (row l/4 + 8 (r/2 % 2), column r % 2 + 2 (l % 4)
    + 8 (r/4)); read back by rows with .32x32b (lane l: row l, register c: column c)."""
    a = np.random.default_rng(3).integers(0, 2**32 - 1, (128, 8), dtype=np.uint32)
    b = np.zeros_like(a)
    kernels.image(a, b)
    expected = np.zeros_like(a)
    for t in range(128):
        w, lane = divmod(t, 32)
        for half in range(2):
            for r in range(4):
                row, col = lane // 4 + 8 * (r // 2 % 2), r % 2 + 2 * (lane % 4)
                expected[32 * w + 16 * half + row, col] = a[t, 4 * half + r]
    np.testing.assert_array_equal(b, expected)


@pytest.mark.parametrize("name, code, call, message", [
    ("leak", "E0848", "T.ptx.tcgen05.alloc(",
     r"32 tensor-memory columns allocated at the block's end \(from column 0\): a tcgen05.alloc without its dealloc"),
    ("double_free", "E0848", "T.ptx.tcgen05.dealloc(",
     r"tcgen05.dealloc of columns 0-31: column 0 is not allocated \(a double free"),
    ("other_quarter", "E0847", 'T.ptx["tcgen05.st.',
     r"tcgen05.st: warp (\d) accesses tensor-memory lane \d+; a warp reaches only lanes \d+-\d+ \(its warp % 4 quarter\)"),
])
def test_tensor_memory_misuse_is_a_finding_at_its_line(kernels, name, code, call, message):
    """Under --synccheck (without it the same text is the run's error, naming block and thread)."""
    a = np.zeros((128, 8), np.uint32)
    with pytest.raises(sim.SimFindings, match=message) as err:
        getattr(kernels, name)(a, a.copy())
    finding = err.value.diagnostics[0]
    assert finding.code == code
    lines = [n for n in range(_line(name, call), len(_source().splitlines()) + 1)
             if call in _source().splitlines()[n - 1]]
    assert finding.span.line in lines[:2]


def _e4m3(bits):
    """e4m3 bytes as float64: 4 exponent bits (bias 7), 3 mantissa bits, no infinities."""
    sign = np.where(bits & 0x80, -1.0, 1.0)
    exponent, mantissa = (bits >> 3) & 15, (bits & 7).astype(np.float64)
    value = np.where(exponent == 0, mantissa / 8 * 2.0 ** -6, (1 + mantissa / 8) * 2.0 ** (exponent.astype(np.int64) - 7))
    return sign * value


# (kind, A / B format number of the instruction descriptor, the bytes' values, tolerance)
_OPERANDS = {
    "f16": (0, lambda b: b.view(np.float16).astype(np.float64), 1e-6),
    "bf16": (1, lambda b: (b.view(np.uint16).astype(np.uint32) << 16).view(np.float32).astype(np.float64), 1e-6),
    "tf32": (2, lambda b: (b.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32).astype(np.float64), 1e-6),
    "e4m3": (0, _e4m3, 1e-6),
    "s8": (1, lambda b: b.view(np.int8).astype(np.float64), 0),
}


def _operand_bytes(rng, rows: int, element: str) -> np.ndarray:
    if element in ("f16", "bf16", "tf32"):
        dtype = {"f16": np.float16, "bf16": np.float32, "tf32": np.float32}[element]
        values = rng.uniform(-2, 2, (rows, 16 if element == "bf16" else 32 // np.dtype(dtype).itemsize))
        if element == "bf16":
            return _bf16_bits(values).view(np.uint8).reshape(rows, 32)
        return values.astype(dtype).view(np.uint8).reshape(rows, 32)
    if element == "e4m3":
        return rng.choice([b for b in range(256) if b & 0x7F != 0x7F], (rows, 32)).astype(np.uint8)
    return rng.integers(0, 256, (rows, 32), dtype=np.uint8)


@pytest.mark.parametrize("kind, element, m, negate, accumulate", [
    ("f16", "f16", 128, False, True), ("f16", "bf16", 64, True, False), ("tf32", "tf32", 128, False, True),
    ("f8f6f4", "e4m3", 128, True, True), ("i8", "s8", 64, False, True),
])
def test_each_kind_of_mma_matches_numpy(kernels, kind, element, m, negate, accumulate):
    """D = A B^T (+ A B^T again when accumulating) of the kind's operands decoded from their bytes,
    in fp32 (exact for s8); M = 64 puts D's rows 16 to a lane quarter (lanes 32q .. 32q + 15)."""
    from transpiler.target.tcgen05 import instr_descriptor

    rng = np.random.default_rng(7)
    fmt, decode, rtol = _OPERANDS[element]
    a, b = _operand_bytes(rng, 128, element), _operand_bytes(rng, 16, element)
    d = np.zeros((128, 16), np.uint32)
    idesc = instr_descriptor(fmt, fmt, m, 16, d_format=2 if kind == "i8" else 1, neg_a=negate)
    getattr(kernels, f"mma_{kind}")(a, b, d, idesc, int(accumulate))
    ref = (-1 if negate else 1) * (2 if accumulate else 1) * decode(a[:m]) @ decode(b).T
    rows = np.arange(128) if m == 128 else np.array([32 * (i // 16) + i % 16 for i in range(64)])
    got = d[rows].view(np.int32 if kind == "i8" else np.float32).astype(np.float64)
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=rtol * np.abs(ref).max())


@pytest.mark.parametrize("shape", sorted(_CP_SHAPES))
def test_tcgen05_cp_puts_each_row_in_its_lanes(kernels, shape):
    a = np.random.default_rng(8).integers(0, 256, (128, 32), dtype=np.uint8)
    d = np.zeros((128, 16), np.uint32)
    getattr(kernels, _CP_SHAPES[shape])(a, np.zeros((16, 32), np.uint8), d)
    words = a.view(np.uint32)  # (128, 8): row r's 32-bit words
    rows, width, lanes = {"128x256b": (128, 8, lambda r: [r]), "4x256b": (4, 8, lambda r: [32 * r]),
                          "32x128b.warpx4": (32, 4, lambda r: [r + 32 * i for i in range(4)]),
                          "64x128b.warpx2::01_23": (64, 4, lambda r: [r // 32 * 64 + r % 32 + 32 * i for i in range(2)])}[shape]
    for r in range(rows):
        for lane in lanes(r):
            np.testing.assert_array_equal(d[lane, :width], words[r, :width], err_msg=f"row {r}, lane {lane}")
