"""Elementwise variants (transpiler/tile/elementwise/): the values a host run of the generated CUDA
computes (threads one after another: each computes its own registers, or its own round of a shared
tile). A property over every elementwise operation at thread scope (each against numpy, in registers
and in shared memory), and the values of the kernels of tests/tile/cases/elementwise/, which state
the variant each call takes, its CUDA, and why the others decline a call no variant takes."""
from __future__ import annotations

import numpy as np
import pytest

from tests.check.case_files import run
from tests.conftest import has_nvcc, transpile
from tests.emit import hostc
from tests.nvcc_batch import compile_many
from tests.tile.case_kernels import kernel_case, kernel_source

needs_gxx = pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
HOST_PRELUDE = ("#include <vector_types.h>\n#undef __shared__\n#define __shared__\n"
                "static inline void __syncwarp(unsigned int m = 0xffffffffu) {}\n")

IMPORTS = """from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, laneid
"""

rng = np.random.default_rng(7)
A = rng.uniform(-2, 2, (2, 4)).astype(np.float32)
B = rng.uniform(0.5, 3, (2, 4)).astype(np.float32)
f32 = np.float32

# statement -> what c holds afterwards (a, b: the inputs in registers; c: the output)
THREAD_CASES = [
    ("Tx.add(c, a, b)", lambda: A + B),
    ("Tx.sub(c, a, b)", lambda: A - B),
    ("Tx.mul(c, a, b)", lambda: A * B),
    ("Tx.fdiv(c, a, b)", lambda: A / B),
    ("Tx.maximum(c, a, b)", lambda: np.maximum(A, B)),
    ("Tx.minimum(c, a, b)", lambda: np.minimum(A, B)),
    ("Tx.sub(c, 2.0, b)", lambda: f32(2) - B),
    ("Tx.mul(c, a, A[0, 0])", lambda: A * A[0, 0]),
    ("Tx.add(c, a, b[1:2, 0:4])", lambda: A + B[1:2, :]),
    ("Tx.add(c, a, b[0:2, 3:4])", lambda: A + B[:, 3:4]),
    ("Tx.fill(c, 1.5)", lambda: np.full((2, 4), 1.5, f32)),
    ("Tx.memset(c, -3.0)", lambda: np.full((2, 4), -3.0, f32)),
    ("Tx.zero(c)", lambda: np.zeros((2, 4), f32)),
    ("Tx.exp(c, a)", lambda: np.exp(A)),
    ("Tx.exp2(c, a)", lambda: np.exp2(A)),
    ("Tx.log2(c, b)", lambda: np.log2(B)),
    ("Tx.sqrt(c, b)", lambda: np.sqrt(B)),
    ("Tx.exp(c, a, bias=1.0, scale=0.5)", lambda: np.exp(A * f32(0.5) + f32(1))),
    ("Tx.exp(c, a, bias=b)", lambda: np.exp(A + B)),
    ("Tx.reciprocal(c, b)", lambda: f32(1) / B),
    ("Tx.silu(c, a)", lambda: A / (f32(1) + np.exp(-A))),
    ("Tx.fma(c, a, b, 1.0)", lambda: A * B + f32(1)),
    ("Tx.select(c, a, b, lambda i, j: i + 1 == j)", lambda: np.where(np.arange(2)[:, None] + 1 == np.arange(4), A, B)),
    ("Tx.copy(c, a)\n    Tx.exp(c)", lambda: np.exp(A)),
    ("Tx.cast(h, a)\n    Tx.cast(c, h)", lambda: A.astype(np.float16).astype(f32)),
    ("Tx.binary_chain(c, a, b, 2.0, \"sub\", \"mul\")", lambda: (B - A) * f32(2)),
    ("Tx.binary_chain(c, a, b, 2.0, \"add\", \"sub\", True)", lambda: f32(2) - (B + A)),
    ("Tx.add(c[0, 0:4], a[1, 0:4], b[0:1, 0:4])\n    Tx.zero(c[1, 0:4])", lambda: np.stack([A[1] + B[0], np.zeros(4, f32)])),
]


def thread_kernel(statements: list[str], memory: str = "local") -> str:
    alloc = "T.alloc_local" if memory == "local" else "T.alloc_shared"
    body = []
    for k, stmt in enumerate(statements):
        body.append(f"    Tx.zero(c)\n    {stmt}\n    for i, j in T.grid(2, 4):\n        C[{k}, i, j] = c[i, j]")
    return IMPORTS + f"""
@T.prim_func
def k(A: T.Buffer((2, 4), "float32"), B: T.Buffer((2, 4), "float32"), C: T.Buffer(({len(statements)}, 2, 4), "float32")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    a = {alloc}((2, 4), "float32")
    b = {alloc}((2, 4), "float32")
    c = {alloc}((2, 4), "float32")
    h = {alloc}((2, 4), "float16")
    for i, j in T.grid(2, 4):
        a[i, j] = A[i, j]
        b[i, j] = B[i, j]
""" + "\n".join(body) + "\n"


def _compiled(text: str, **options):
    result = transpile(text, "k.tx", **options)
    assert not result.diagnostics, [f"{d.span.line}:{d.span.col} {d.message}" for d in result.diagnostics]
    return result


@needs_gxx
@pytest.mark.parametrize("memory", ["local", "shared"])
def test_property_every_operation_at_thread_scope_matches_numpy(memory):
    result = _compiled(thread_kernel([s for s, _ in THREAD_CASES], memory), arch="sm_90a")
    chosen = {d.variant for d in result.program.kernels[0].tile_dispatch if ".copy" not in d.call}
    assert chosen == {"reg" if memory == "local" else "smem"}
    out = hostc.run(HOST_PRELUDE + result.cuda, {"A": list(A.ravel()), "B": list(B.ravel()),
                                                 "C": [0.0] * (8 * len(THREAD_CASES))})
    got = np.array(out["C"], dtype=f32).reshape(len(THREAD_CASES), 2, 4)
    for (stmt, want), value in zip(THREAD_CASES, got):
        np.testing.assert_allclose(value, want(), rtol=2e-6, atol=1e-6, err_msg=stmt)


# the case files' kernels the GPU tests run too (tests/gpu/test_tile_elementwise.py)
WARP_KERNEL = kernel_source("elementwise", "warp_registers")
SMEM_KERNEL = kernel_source("elementwise", "smem_rounds")


def _warp_expected(a, b):
    q = np.exp(a * f32(0.5))
    r = a.copy()
    r[:, 0:4] = r[:, 0:4] + q[:, 4:8]
    r[:, 4:8] = r[:, 4:8] * b[4:8]
    i, j = np.meshgrid(np.arange(32), np.arange(8), indexing="ij")
    r[16:] = np.where(i == j + 20, r, f32(0))[16:]
    return r


def _case(kernel: str):
    path = kernel_case("elementwise", kernel)
    _, result = run(path, path.read_text(encoding="utf-8"))
    assert not result.diagnostics, [str(d.message) for d in result.diagnostics]
    return result


@needs_gxx
def test_warp_registers_each_lane_computes_its_own():
    a = rng.uniform(-1, 1, (32, 8)).astype(f32)
    b = rng.uniform(-1, 1, 8).astype(f32)
    out = hostc.run(HOST_PRELUDE + _case("warp_registers").cuda, {"A": list(a.ravel()), "B": list(b), "C": [0.0] * 256},
                    threads=32)
    np.testing.assert_allclose(np.array(out["C"]).reshape(32, 8), _warp_expected(a, b), rtol=2e-6, atol=1e-6)


@needs_gxx
def test_run_time_start_in_a_register_tile_is_guarded():
    a = rng.uniform(-1, 1, (32, 8)).astype(f32)
    out = hostc.run(HOST_PRELUDE + _case("run_time_window").cuda, {"A": list(a.ravel()), "C": [0.0] * 256}, threads=32,
                    scalars={"k0": 4})
    want = a.copy()
    want[:, 4:7] *= -2
    np.testing.assert_array_equal(np.array(out["C"], dtype=f32).reshape(32, 8), want)


MEMORIES = ("local", "shared")


@pytest.fixture(scope="module")
def nvcc_results():
    """{memory: (its transpile Result, (return code, nvcc output) or None when it did not transpile)}:
    both property kernels by as few nvcc runs as their includes allow (tests/nvcc_batch.py)."""
    results = {m: transpile(thread_kernel([s for s, _ in THREAD_CASES], m), "k.tx", arch="sm_90a") for m in MEMORIES}
    compiled = compile_many({m: r.cuda for m, r in results.items() if r.ok},
                            ("-gencode", "arch=compute_90a,code=sm_90a", "-std=c++17", "-Werror", "all-warnings"))
    return {m: (results[m], compiled.get(m)) for m in MEMORIES}


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("memory", MEMORIES)
def test_property_kernel_compiles_warning_free(memory, nvcc_results):
    result, (code, output) = nvcc_results[memory][0], nvcc_results[memory][1] or (None, "")
    assert not result.diagnostics, [f"{d.span.line}:{d.span.col} {d.message}" for d in result.diagnostics]
    assert code == 0, output[-3000:]
