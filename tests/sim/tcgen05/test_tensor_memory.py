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
_FREE = "    T.cuda.cta_sync()\n" + _DEALLOC


_BODIES = {
    "image": _STORE_16X256B + _FREE,
    "leak": _STORE_16X256B,
    "double_free": _STORE_16X256B + _FREE + _DEALLOC,
    "other_quarter": _STORE_16X256B.replace("(warp * 32) << 16", "((warp + 1) % 4 * 32 + 32) << 16") + _FREE,
}


# seeded bugs in gemm_bf16_blackwell.tx: the epilogue reads the accumulator without waiting for the
# "done" barrier its last tcgen05.commit arrives on; it uses tcgen05.ld's registers without the wait
_MUTANTS = {
    "gemm_no_done_wait": ("        T.cuda.mbarrier_wait(T.address_of(done), 0)\n", "        pass\n"),
    "gemm_no_ld_wait": ("            T.ptx.tcgen05.wait__ld.sync.aligned()\n", "            pass\n"),
}


def _source() -> str:
    """The Blackwell samples, two seeded bugs and the kernels of these tests in one file: one build."""
    gemm = (SAMPLES / "gemm_bf16_blackwell.tx").read_text()
    parts = [(SAMPLES / f"{stem}.tx").read_text() for stem in ("tmem_manual", "tmem_pool")] + [gemm]
    for name, (line, replacement) in _MUTANTS.items():
        assert line in gemm
        parts.append(gemm.replace(line, replacement).replace("def gemm_bf16_blackwell(", f"def {name}("))
    parts += [_KERNEL.format(name=name) + body for name, body in _BODIES.items()]
    return "\n".join(parts)


@pytest.fixture(scope="module")
def kernels():
    """Every kernel here under --racecheck --synccheck: a finding on a sample fails its test."""
    return sim.load_source(SourceFile("tensor_memory.tx", _source()), arch="sm_100a",
                           options=sim.Options(racecheck=True, synccheck=True, schedules=2))


def _line(text: str) -> int:
    """The line of `text` in the mutants' part of the file (the first copy after the samples)."""
    lines = _source().splitlines()
    start = next(n for n, t in enumerate(lines) if "def gemm_no_done_wait(" in t)
    return next(n for n in range(start, len(lines)) if text in lines[n]) + 1


def test_a_read_of_the_accumulator_before_the_commits_wait_is_a_race_with_both_lines(kernels):
    m, n, k = 128, 256, 64
    with pytest.raises(sim.SimFindings) as err:
        kernels.gemm_no_done_wait(np.zeros((m, k), np.uint16), np.zeros((n, k), np.uint16), np.zeros((m, n), np.uint16))
    finding = next(d for d in err.value.diagnostics if "tensor memory" in d.message)
    assert finding.code in ("E0820", "E0822")
    lines = {finding.span.line} | {note.span.line for note in finding.notes if note.span is not None}
    assert {_line('T.ptx["tcgen05.mma.'), _line('T.ptx["tcgen05.ld.')} <= lines


def test_tcgen05_ld_registers_without_the_wait_are_reported(kernels):
    m, n, k = 128, 256, 64
    with pytest.raises(sim.SimFindings) as err:
        kernels.gemm_no_ld_wait(np.zeros((m, k), np.uint16), np.zeros((n, k), np.uint16), np.zeros((m, n), np.uint16))
    codes = {(d.code, d.span.line) for d in err.value.diagnostics}
    start = _source().splitlines().index("def gemm_no_ld_wait(A_ptr: T.handle, B_ptr: T.handle, C_ptr: T.handle):")
    ld = next(n for n, t in enumerate(_source().splitlines()) if n > start and 'T.ptx["tcgen05.ld.' in t) + 1
    assert ("E0846", ld) in codes


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


@pytest.mark.parametrize("name, message", [
    ("leak", r"block \(0, 0, 0\): the block ended with 32 tensor-memory columns allocated \(from column 0\)"),
    ("double_free", r"\(warp 0, lane \d+\): tcgen05.dealloc of columns 0-31: column 0 is not allocated \(a double free"),
    ("other_quarter", r"\(warp (\d), lane \d+\): tcgen05.st: warp \1 accesses tensor-memory lane \d+; a warp reaches "
                      r"only lanes \d+-\d+ \(its warp % 4 quarter\)"),
])
def test_tensor_memory_misuse_is_a_located_error(kernels, name, message):
    a = np.zeros((128, 8), np.uint32)
    with pytest.raises(sim.SimError, match=message):
        getattr(kernels, name)(a, a.copy())
