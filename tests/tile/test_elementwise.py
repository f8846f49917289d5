"""Elementwise variants (transpiler/tile/elementwise*.py): values by a host run of the generated
CUDA (threads one after another: each computes its own registers, or its own round of a shared
tile), which variant each call takes, why the others decline (E0904 at the call), and nvcc."""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import errors, has_nvcc, transpile
from tests.build_cache import compile_cuda
from tests.emit import hostc

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
def test_thread_scope_values(memory):
    result = _compiled(thread_kernel([s for s, _ in THREAD_CASES], memory), arch="sm_90a")
    chosen = {d.variant for d in result.program.kernels[0].tile_dispatch if ".copy" not in d.call}
    assert chosen == {"reg" if memory == "local" else "smem"}
    out = hostc.run(HOST_PRELUDE + result.cuda, {"A": list(A.ravel()), "B": list(B.ravel()),
                                                 "C": [0.0] * (8 * len(THREAD_CASES))})
    got = np.array(out["C"], dtype=f32).reshape(len(THREAD_CASES), 2, 4)
    for (stmt, want), value in zip(THREAD_CASES, got):
        np.testing.assert_allclose(value, want(), rtol=2e-6, atol=1e-6, err_msg=stmt)


WARP_KERNEL = IMPORTS + """
R_LAYOUT = TileLayout(S[(32, 8) : (1 @ laneid, 1)])

@T.prim_func
def k(A: T.Buffer((32, 8), "float32"), B: T.Buffer((8,), "float32"), C: T.Buffer((32, 8), "float32")):
    T.device_entry()
    T.cta_id([1])
    lane = T.lane_id([32])
    T.thread_id([32])
    R = T.alloc_buffer((32, 8), "float32", scope="local", layout=R_LAYOUT)
    Q = T.alloc_buffer((32, 8), "float32", scope="local", layout=R_LAYOUT)
    v = T.alloc_local((8,), "float32")
    mine = R.local()
    for j in T.serial(8):
        mine[j] = A[lane, j]
        v[j] = B[j]
    Tx.warp.exp(Q, R, scale=0.5)
    Tx.warp.add(R[0:32, 0:4], R[0:32, 0:4], Q[0:32, 4:8])
    Tx.warp.mul(R[0:32, 4:8], R[0:32, 4:8], v[4:8])
    Tx.warp.select(R[16:32, 0:8], R[16:32, 0:8], 0.0, lambda i, j: i == j + 20)
    for j in T.serial(8):
        C[lane, j] = mine[j]
"""


def _warp_expected(a, b):
    q = np.exp(a * f32(0.5))
    r = a.copy()
    r[:, 0:4] = r[:, 0:4] + q[:, 4:8]
    r[:, 4:8] = r[:, 4:8] * b[4:8]
    i, j = np.meshgrid(np.arange(32), np.arange(8), indexing="ij")
    r[16:] = np.where(i == j + 20, r, f32(0))[16:]
    return r


@needs_gxx
def test_warp_registers_each_lane_computes_its_own():
    result = _compiled(WARP_KERNEL, arch="sm_90a")
    assert [d.variant for d in result.program.kernels[0].tile_dispatch] == ["reg"] * 4
    a = rng.uniform(-1, 1, (32, 8)).astype(f32)
    b = rng.uniform(-1, 1, 8).astype(f32)
    out = hostc.run(HOST_PRELUDE + result.cuda, {"A": list(a.ravel()), "B": list(b), "C": [0.0] * 256}, threads=32)
    np.testing.assert_allclose(np.array(out["C"]).reshape(32, 8), _warp_expected(a, b), rtol=2e-6, atol=1e-6)


SMEM_KERNEL = IMPORTS + """
@T.prim_func
def k(A: T.Buffer((12, 10), "float32"), C: T.Buffer((12, 10), "float32")):
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([64])
    X = T.alloc_shared((12, 10), "float32")
    Y = T.alloc_shared((12, 10), "float32")
    Tx.cta.copy(X, A)
    T.cuda.cta_sync()
    Tx.cta.sqrt(Y, X, bias=1.0)
    Tx.cta.fma(Y, Y, X, 0.25)
    Tx.cta.copy(C, Y)
"""


def test_smem_rounds_cover_a_tile_the_threads_do_not_divide():
    result = _compiled(SMEM_KERNEL, arch="sm_90a")
    d = result.program.kernels[0].tile_dispatch
    assert [x.variant for x in d][1:3] == ["smem", "smem"]
    # 120 elements over 64 threads: two rounds, the second guarded; then the CTA barrier
    assert "< 120" in result.cuda and result.cuda.count("__syncthreads();") >= 2


@pytest.mark.parametrize("scope, barrier", [("warp", "__syncwarp();"), ("warpgroup", "tirx_warpgroup_sync(")])
def test_smem_barrier_of_the_scope(scope, barrier):
    text = IMPORTS + f"""
@T.prim_func
def k(A: T.Buffer((128,), "float32")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([256])
    X = T.alloc_shared((128,), "float32")
    Tx.{scope}.exp(X, X)
"""
    result = _compiled(text)
    assert barrier in result.cuda


def _error_text(body: str, decl: str = "") -> str:
    return IMPORTS + f"""
@T.prim_func
def k(A: T.Buffer((32, 8), "float32")):
    T.device_entry()
    T.cta_id([1])
    lane = T.lane_id([32])
    T.thread_id([32])
    X = T.alloc_shared((32, 8), "float32")
    r = T.alloc_local((32, 8), "float32")
{decl}{body}
"""


@pytest.mark.parametrize("body, notes", [
    ("    Tx.warp.add(X, X, r)\n", ["variant `reg`: dst is in shared memory", "variant `smem`: src2 is in local memory"]),
    ("    Tx.warp.exp(r, r)\n", ["variant `reg`: dst is a per-thread register buffer (no thread axes in its layout): "
                                 "call it at thread scope, or give it a layout over the warp's threads",
                                 "variant `smem`: dst is in local memory"]),
    ("    Tx.cta.add(X, X, X[0:8, 0:8])\n", ["variant `reg`: src2 has extents (8, 8) and dst (32, 8): they neither "
                                           "match nor broadcast", "variant `smem`: src2 has extents (8, 8) and dst "
                                           "(32, 8): they neither match nor broadcast"]),
    ("    if lane < 4:\n        Tx.warp.exp(X, X)\n", None),
])
def test_declined_calls_name_each_variant(body, notes):
    result = transpile(_error_text(body), "k.tx")
    line = 13 if not body.startswith("    if") else 14
    col = 5 if not body.startswith("    if") else 9
    assert errors(result) == [(line, col, "E0904")]
    got = [n.message for n in result.diagnostics[0].notes]
    if notes is not None:
        assert got == notes
    else:
        assert all("an enclosing `if` depends on thread-level ids" in n for n in got)


def test_layouts_that_disagree_are_declined():
    decl = ("    R = T.alloc_buffer((32, 8), \"float32\", scope=\"local\", layout=TileLayout(S[(32, 8) : (1 @ laneid, 1)]))\n"
            "    Q = T.alloc_buffer((32, 8), \"float32\", scope=\"local\", layout=TileLayout(S[(32, 8) : (1, 32 @ laneid)]))\n")
    result = transpile(_error_text("    Tx.warp.add(R, R, Q)\n", decl), "k.tx")
    assert errors(result) == [(15, 5, "E0904")]
    assert "variant `reg`: src2[0, 1] is not held by every thread that holds dst[0, 1]" in \
        [n.message for n in result.diagnostics[0].notes]


NVCC_KERNELS = {
    "thread_local": (thread_kernel([s for s, _ in THREAD_CASES]), "sm_90a"),
    "thread_shared": (thread_kernel([s for s, _ in THREAD_CASES], "shared"), "sm_90a"),
    "warp": (WARP_KERNEL, "sm_90a"),
    "smem": (SMEM_KERNEL, "sm_90a"),
    "packed": (WARP_KERNEL, "sm_100a"),
}


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("name", sorted(NVCC_KERNELS))
def test_nvcc_warning_free(name):
    text, arch = NVCC_KERNELS[name]
    result = _compiled(text, arch=arch)
    number = arch[3:]
    code, output = compile_cuda(result.cuda, ["-gencode", f"arch=compute_{number},code={arch}", "-std=c++17",
                                              "-Werror", "all-warnings"])
    assert code == 0, output[-3000:]


@pytest.mark.parametrize("arch, packed", [("sm_100a", True), ("sm_90a", False), (None, False)])
def test_packed_f32x2_only_for_a_blackwell_target(arch, packed):
    cuda = _compiled(WARP_KERNEL, arch=arch).cuda
    add = cuda[cuda.index("Tx.warp.add"):cuda.index("Tx.warp.select")]
    assert ("add.rn.f32x2" in cuda and "mul.rn.f32x2" in cuda) == packed
    # R[:, 0:4] += Q[:, 4:8]: registers 0..3 of R with 4..7 of Q, two per instruction
    if packed:
        assert add.count("tirx_ptx_add_rn_f32x2(") == 2
        assert "__float_as_uint(Q_ptr[4]), __float_as_uint(Q_ptr[5])" in add
    else:
        assert "R_ptr[0] = R_ptr[0] + Q_ptr[4];" in add


def test_rounding_mode_of_the_packed_form():
    text = thread_kernel(["Tx.fma(c, a, b, 1.0, rounding_mode=\"rz\")"])
    assert "fma.rz.f32x2" in _compiled(text, arch="sm_100a").cuda
    result = transpile(thread_kernel(["Tx.add(c, a, b, rounding_mode=\"up\")"]), "k.tx", arch="sm_100a")
    assert errors(result) == [(18, 5, "E0904")]
    assert "variant `reg`: `rounding_mode=` is 'up', not one of rn, rz, rm, rp" in \
        [n.message for n in result.diagnostics[0].notes]


RUNTIME_START = IMPORTS + """
R_LAYOUT = TileLayout(S[(32, 8) : (1 @ laneid, 1)])

@T.prim_func
def k(A: T.Buffer((32, 8), "float32"), C: T.Buffer((32, 8), "float32"), k0: T.int32):
    T.device_entry()
    T.cta_id([1])
    lane = T.lane_id([32])
    T.thread_id([32])
    R = T.alloc_buffer((32, 8), "float32", scope="local", layout=R_LAYOUT)
    mine = R.local()
    for j in T.serial(8):
        mine[j] = A[lane, j]
    Tx.warp.mul(R[0:32, k0:k0 + 3], R[0:32, k0:k0 + 3], -2.0)
    for j in T.serial(8):
        C[lane, j] = mine[j]
"""


@needs_gxx
def test_run_time_start_in_a_register_tile_is_guarded():
    result = _compiled(RUNTIME_START, arch="sm_90a")
    a = rng.uniform(-1, 1, (32, 8)).astype(f32)
    out = hostc.run(HOST_PRELUDE + result.cuda, {"A": list(a.ravel()), "C": [0.0] * 256}, threads=32,
                    scalars={"k0": 4})
    want = a.copy()
    want[:, 4:7] *= -2
    np.testing.assert_array_equal(np.array(out["C"], dtype=f32).reshape(32, 8), want)
