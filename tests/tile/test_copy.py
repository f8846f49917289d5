"""`copy` and `permute_layout` (transpiler/tile/copy/, permute/): the values a host run of the
generated CUDA computes (one thread after another: each thread's part of the copy) for the
kernels of tests/tile/cases/copy/ (which state the variant each call takes and its CUDA), the
documentation pages' kernels, and why the other variants declined a call that was taken."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.check.case_files import run
from tests.conftest import transpile
from tests.emit import hostc
from tests.tile.case_kernels import kernel_case

# Shared arrays become each thread's own (a thread reads back only what it wrote itself), and
# the warp barrier is nothing when threads run one after another.
HOST_PRELUDE = ("#include <vector_types.h>\n#undef __shared__\n#define __shared__\n"
                "static inline void __syncwarp(unsigned int m = 0xffffffffu) {}\n")


def _compiled(kernel: str):
    path = kernel_case("copy", kernel)
    _, result = run(path, path.read_text(encoding="utf-8"))
    assert not result.diagnostics, [str(d.message) for d in result.diagnostics]
    return result


def _host(name, buffers, threads, scalars=None):
    result = _compiled(name)
    return hostc.run(HOST_PRELUDE + result.cuda, buffers, threads=threads, scalars=scalars)


needs_gxx = pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")


@needs_gxx
def test_window_with_run_time_start_round_trips():
    a = np.arange(128 * 64, dtype=np.float32) * 0.5
    out = _host("gs_window", {"A": list(a), "B": [0.0] * 2048}, 64, {"m0": 37})
    assert np.array_equal(np.array(out["B"]).reshape(64, 32), a.reshape(128, 64)[37:101, 8:40])


@needs_gxx
def test_partial_last_round_is_guarded():
    a = np.arange(192, dtype=np.float32) + 1
    out = _host("gs_partial", {"A": list(a), "B": [-1.0] * 192}, 32)
    assert np.array_equal(out["B"], a)


@needs_gxx
def test_swizzled_shared_3d_round_trips():
    a = (np.arange(1024) % 251).astype(np.float32)
    out = _host("gs_swizzled", {"A": list(a), "B": [0.0] * 1024}, 128)
    assert np.array_equal(out["B"], a)


@needs_gxx
def test_registers_spread_over_lanes():
    a = np.arange(256, dtype=np.float32)
    out = _host("reg_lanes", {"A": list(a), "B": [0.0] * 256, "C": [0.0] * 128}, 32)
    assert np.array_equal(out["B"], a * 2)
    assert np.array_equal(np.array(out["C"]), (a * 2).reshape(2, 32, 4)[1].ravel())


@needs_gxx
def test_cta_and_thread_scopes():
    a = np.arange(512, dtype=np.float32) / 4
    out = _host("reg_cta", {"A": list(a), "B": [0.0] * 512, "C": [0.0] * 512}, 128)
    assert np.array_equal(out["B"], a) and np.array_equal(out["C"], a)


CONFORMANCE = {"tile_primitives-copy-fallback__1.tx": ["fallback", "fallback"],
               "tile_primitives-copy-gmem_smem__2.tx": ["gmem_smem", "gmem_smem"],
               "tile_primitives-copy-reg__2.tx": ["reg", "reg"],
               "tile_primitives-copy-ldstmatrix__3.tx": ["ldstmatrix"],
               "tile_primitives-permute_layout__2.tx": ["warp_xor_swizzle"]}


@pytest.mark.parametrize("name", sorted(CONFORMANCE))
def test_page_kernels_take_the_variant_their_page_names(name):
    path = Path(__file__).resolve().parent.parent / "conformance" / name
    result = transpile(path.read_text(), name)
    assert not result.diagnostics
    assert [d.variant for d in result.program.kernels[0].tile_dispatch] == CONFORMANCE[name]


@needs_gxx
def test_thread_scope_register_copies():
    a = np.arange(256, dtype=np.float32) - 100
    out = _host("reg_thread", {"A": list(a), "B": [0.0] * 256}, 32)
    assert np.array_equal(out["B"], a)


@needs_gxx
def test_permute_layout_transposes_each_stage():
    a = np.arange(256, dtype=np.float32)
    out = _host("permute", {"A_buf": list(a), "B_buf": [0.0] * 256}, 32)
    want = a.reshape(2, 4, 32).transpose(0, 2, 1).ravel()  # B[s, r, c] lives at s*128 + c*4 + r
    assert np.array_equal(out["B_buf"], want)


def test_a_taken_variant_records_why_the_others_declined():
    odd, = _compiled("odd_vec_len").program.kernels[0].tile_dispatch
    assert ("gmem_smem", "`vec_len=3` is not a power of two") in odd.rejected
    to_registers, from_own_registers = _compiled("more").program.kernels[0].tile_dispatch
    assert to_registers.rejected == (("gmem_smem", "it copies shared to local"),
                                     ("ldstmatrix", "the layouts are not m8n8 matrix fragments with 16-byte shared rows"))
    assert ("reg", "the registers are not spread over the warp's threads (their layout has no thread axes), so "
                   "every thread would write the whole region") in from_own_registers.rejected
