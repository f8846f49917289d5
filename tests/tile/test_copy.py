"""`copy` and `permute_layout` variants (transpiler/tile/copy*.py, permute.py): which variant each call
takes, why others decline (E0904 with its location), the values a host run of the generated CUDA
computes (one thread after another: each thread's part of the copy), and nvcc on every kernel."""
from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.conftest import errors, has_nvcc, transpile
from tests.emit import hostc
from tests.tile.test_copy_kernels import GPU_KERNELS, HEAD, KERNELS, source

# Shared arrays become each thread's own (a thread reads back only what it wrote itself), and
# the warp barrier is nothing when threads run one after another.
HOST_PRELUDE = ("#include <vector_types.h>\n#undef __shared__\n#define __shared__\n"
                "static inline void __syncwarp(unsigned int m = 0xffffffffu) {}\n")


def _compiled(name: str, **options):
    result = transpile(source(name), f"{name}.tx", **options)
    assert not result.diagnostics, [str(d.message) for d in result.diagnostics]
    return result


@pytest.mark.parametrize("name", sorted({**KERNELS, **GPU_KERNELS}))
def test_each_call_takes_the_expected_variant(name):
    result = _compiled(name, arch="sm_90a")
    _, want = {**KERNELS, **GPU_KERNELS}[name]
    assert [d.variant for d in result.program.kernels[0].tile_dispatch] == want


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


def test_vector_widths_follow_alignment_swizzle_and_vec_len():
    cuda = _compiled("gs_forced").cuda
    first, second, column = cuda.split("// Tx.warp.copy")[1:4]
    assert "float2" in first and "float4" not in first  # vec_len=2
    assert "float4" in second
    assert "float2" not in column and "float4" not in column  # stride 4: no vector
    swizzled = _compiled("gs_swizzled").cuda
    assert "uint4" in swizzled  # 8 halves: one swizzle chunk, one 16-byte access
    assert "float4" in _compiled("reg_lanes").cuda.split("// Tx.warp.copy")[1]


def test_permute_swizzle_matches_the_page():
    cuda = _compiled("permute").cuda
    assert "(lane >> 3) & 3" in cuda  # shift 3, mask 3: both phases bank-conflict-free
    assert cuda.count("__syncwarp();") == 2


BAD = HEAD + '''
@T.prim_func
def bad(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 6), "float32")
    B = T.match_buffer(B_ptr, (32, 4), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([32])
    Sm = T.alloc_buffer((32, 6), "float32", scope="shared")
    R = T.alloc_buffer((32, 4), "float16", scope="local", layout=TileLayout(S[(32, 4) : (1 @ laneid, 1)]))
    Tx.warp.copy(Sm, A, dispatch="gmem_smem", vec_len=8)
    Tx.warp.copy(Sm, A, vec_len=3)
    Tx.warp.copy(R, B, dispatch="ldstmatrix")
    Tx.copy(R, B)
'''


def test_declines_name_each_reason_at_the_call():
    result = transpile(BAD, "bad.tx")
    assert errors(result) == [(14, 5, "E0904"), (16, 5, "E0904"), (17, 5, "E0904")]
    notes = [[n.message for n in d.notes] for d in result.diagnostics]
    assert notes[0] == ["variant `gmem_smem`: `vec_len=8` does not fit: CUDA has no 32-byte vector of float32"]
    assert notes[1] == ["variant `ldstmatrix`: it copies global to local"]
    assert notes[2] == ["variant `gmem_smem`: it copies global to local", "variant `ldstmatrix`: it runs at thread scope",
                        "variant `reg`: a register buffer spread over threads is copied at the scope of its threads, "
                        "not at thread scope",
                        "variant `fallback`: dst is spread over threads' registers, which one thread cannot reach"]


def test_vec_len_not_a_power_of_two_falls_back():
    result = transpile(BAD.replace('    Tx.warp.copy(Sm, A, dispatch="gmem_smem", vec_len=8)\n', "")
                       .replace('    Tx.warp.copy(R, B, dispatch="ldstmatrix")\n', "")
                       .replace("    Tx.copy(R, B)\n", ""), "bad.tx")
    assert not result.diagnostics
    call, = result.program.kernels[0].tile_dispatch
    assert call.variant == "fallback"
    assert ("gmem_smem", "`vec_len=3` is not a power of two") in call.rejected


def test_permute_declines_outside_a_warp():
    text = source("permute").replace("Tx.warp.permute_layout", "Tx.cta.permute_layout")
    result = transpile(text, "p.tx")
    assert errors(result) == [(13, 9, "E0904")]
    assert "it runs at cta scope" in result.diagnostics[0].notes[0].message


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("name", sorted({**KERNELS, **GPU_KERNELS}))
def test_kernel_compiles_warning_free(name, tmp_path):
    cu = tmp_path / f"{name}.cu"
    cu.write_text(_compiled(name, arch="sm_90a").cuda)
    proc = subprocess.run(["nvcc", "-gencode", "arch=compute_90a,code=sm_90a", "-std=c++17", "-Werror", "all-warnings",
                           "-c", str(cu), "-o", str(tmp_path / f"{name}.o")], capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


MORE = HEAD + '''
@T.prim_func
def more(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (32, 8), "float16")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([64])
    Sm = T.alloc_buffer((32, 8), "float16", scope="shared")
    R = T.alloc_buffer((32, 8), "float16", scope="local", layout=TileLayout(S[(32, 8) : (1 @ laneid, 1)]))
    W = T.alloc_buffer((64, 8), "float16", scope="local", layout=TileLayout(S[(64, 8) : (1 @ tx, 1)]))
    L = T.alloc_local((32, 8), "float16")
    Tx.warp.copy(R, Sm)
    Tx.warp.copy(Sm, L)
    Tx.warp.copy(W[0:32, :], Sm)
'''


def test_reg_reasons_and_ldstmatrix_declining_to_reg():
    result = transpile(MORE, "more.tx")
    assert errors(result) == [(17, 5, "E0904")]
    assert "variant `reg`: the register layout spreads over `tx`, wider than the warp" in \
        [n.message for n in result.diagnostics[0].notes]
    ok = transpile(MORE.replace("    Tx.warp.copy(W[0:32, :], Sm)\n", ""), "more.tx")
    to_registers, from_own_registers = ok.program.kernels[0].tile_dispatch
    assert to_registers.variant == "reg"
    assert to_registers.rejected == (("gmem_smem", "it copies shared to local"), ("ldstmatrix", "the layouts are not m8n8 matrix fragments with 16-byte shared "
                                                    "rows"),)
    assert from_own_registers.variant == "fallback"  # the first lane stores its own registers
    assert ("reg", "the registers are not spread over the warp's threads (their layout has no thread axes), so "
                   "every thread would write the whole region") in from_own_registers.rejected


def test_a_view_off_its_storage_alignment_is_not_vectorized():
    """A float32 view 4 bytes into the arena is 4-byte aligned whatever the arena's alignment: the
    copy keeps to scalar accesses (a float4 there would fault); 16 bytes in, it vectorizes."""
    text = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx

@T.prim_func
def k(A: T.Buffer((128,), "float32"), B: T.Buffer((128,), "float32")):
    T.device_entry()
    T.cta_id([1])
    tid = T.thread_id([32])
    arena = T.alloc_buffer((1024,), "uint8", scope="shared.dyn")
    S = T.decl_buffer((128,), "float32", data=arena.data, byte_offset=4, scope="shared.dyn")
    Tx.cta.copy(S[0:128], A[0:128])
    T.cuda.cta_sync()
    Tx.cta.copy(B[0:128], S[0:128])
'''
    shifted, aligned = transpile(text), transpile(text.replace("byte_offset=4", "byte_offset=16"))
    assert shifted.ok and aligned.ok
    assert "float4" not in shifted.cuda and "(float*)(arena_ptr + 4)" in shifted.cuda
    assert "*(float4*)(S_ptr + (tid * 4))" in aligned.cuda
