"""Reduction variants (transpiler/tile/reduction*.py, reduction_plan.py) and the fused forms (fused.py):
values by a host run of the generated CUDA (one thread: the sequential forms), which variant each
call takes, the shuffle plan of register reductions over lanes, the E0904 reasons, and nvcc."""
from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import errors, has_nvcc, transpile
from tests.build_cache import compile_cuda
from tests.emit import hostc

needs_gxx = pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
HOST_PRELUDE = "#undef __shared__\n#define __shared__\n"
IMPORTS = """from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, R, TileLayout, laneid
"""

rng = np.random.default_rng(11)
X = rng.uniform(-4, 4, (2, 3, 4)).astype(np.float32)

# statement -> (what o holds afterwards, o's extent); x: the (2, 3, 4) input, o: the output
CASES = [
    ("Tx.sum(o[0:6], x)", lambda o: X.sum(-1).ravel()),
    ("Tx.max(o[0:6], x, axes=-1)", lambda o: X.max(-1).ravel()),
    ("Tx.min(o[0:8], x, axes=(1,))", lambda o: X.min(1).ravel()),
    ("Tx.sum(o[0:3], x, axes=(0, 2))", lambda o: X.sum((0, 2))),
    ("Tx.max(o[0:1], x, axes=(0, 1, 2))", lambda o: X.max(keepdims=False).reshape(1)),
    ("Tx.sum(o[0:6], x, accum=True)", lambda o: o[:6] + X.sum(-1).ravel()),
    ("Tx.min(o[2:8], x[0:2, 0:3, 1:3], axes=-1, accum=True)", lambda o: np.concatenate(
        [o[:2], np.minimum(o[2:8], X[:, :, 1:3].min(-1).ravel())])),
    ("Tx.binary_reduce(y, o[0:6], x, 2.0, \"mul\", \"sum\")", lambda o: (X * 2).sum(-1).ravel()),
    ("Tx.unary_reduce(y, o[0:6], x, \"exp\", \"max\", bias=-1.0)", lambda o: np.exp(X - 1).max(-1).ravel()),
    ("Tx.reduce_negate(o[0:6], x, \"max\")", lambda o: -X.max(-1).ravel()),
]
START = np.linspace(-1, 1, 8).astype(np.float32)


def thread_kernel(statements, memory="local") -> str:
    alloc = "T.alloc_local" if memory == "local" else "T.alloc_shared"
    body = []
    for k, stmt in enumerate(statements):
        body.append(f"    for i in T.serial(8):\n        o[i] = O[i]\n    {stmt}\n"
                    f"    for i in T.serial(8):\n        C[{k}, i] = o[i]")
    return IMPORTS + f"""
@T.prim_func
def k(X: T.Buffer((2, 3, 4), "float32"), O: T.Buffer((8,), "float32"), C: T.Buffer(({len(statements)}, 8), "float32")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    x = {alloc}((2, 3, 4), "float32")
    y = {alloc}((2, 3, 4), "float32")
    o = {alloc}((8,), "float32")
    for i, j, k in T.grid(2, 3, 4):
        x[i, j, k] = X[i, j, k]
""" + "\n".join(body) + "\n"


def _compiled(text, **options):
    result = transpile(text, "k.tx", **options)
    assert not result.diagnostics, [f"{d.span.line}:{d.span.col} {d.message}" for d in result.diagnostics]
    return result


@needs_gxx
@pytest.mark.parametrize("memory, variant", [("local", "local"), ("shared", "shared")])
def test_thread_scope_values(memory, variant):
    result = _compiled(thread_kernel([s for s, _ in CASES], memory), arch="sm_90a")
    chosen = {d.variant for d in result.program.kernels[0].tile_dispatch if d.call.split(".")[-1] in ("sum", "max", "min")}
    assert chosen == {variant}
    out = hostc.run(HOST_PRELUDE + result.cuda, {"X": list(X.ravel()), "O": list(START),
                                                 "C": [0.0] * (8 * len(CASES))})
    got = np.array(out["C"], dtype=np.float32).reshape(len(CASES), 8)
    for (stmt, want), value in zip(CASES, got):
        expect = want(START.copy())
        np.testing.assert_allclose(value[:len(expect)], expect, rtol=2e-6, atol=2e-6, err_msg=stmt)


PACKED = IMPORTS + """
@T.prim_func
def k(A: T.Buffer((37,), "float32"), B: T.Buffer((3,), "float32")):
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    a = T.alloc_local((37,), "float32")
    b = T.alloc_local((3,), "float32")
    for i in T.serial(37):
        a[i] = A[i]
    b[1] = B[1]
    Tx.sum(b[0:1], a)
    Tx.max(b[1:2], a, accum=True)
    Tx.min(b[2:3], a[3:30])
    for i in T.serial(3):
        B[i] = b[i]
"""


@pytest.mark.parametrize("arch, want", [("sm_100a", ["sm100_packed"] * 3), ("sm_90a", ["local"] * 3),
                                        (None, ["local"] * 3)])
def test_sm100_packed_is_chosen_for_blackwell_targets(arch, want):
    result = _compiled(PACKED, arch=arch)
    assert [d.variant for d in result.program.kernels[0].tile_dispatch] == want
    if want[0] == "local":
        rejected = dict(result.program.kernels[0].tile_dispatch[0].rejected)
        # without --arch, dispatch keeps to what the kernel needs anyway (docs/design.md, decision 32)
        target = "the target is sm_90a" if arch else \
            "the kernel otherwise needs only sm_75 (name the target with --arch)"
        assert rejected["sm100_packed"] == ("the packed f32x2 add and three-input min / max needs sm_100 or newer; "
                                            + target)


def test_sm100_packed_uses_the_packed_instructions():
    cuda = _compiled(PACKED, arch="sm_100a").cuda
    assert "add.rn.ftz.f32x2" in cuda and "max.f32 %0, %1, %2, %3;" in cuda and "min.f32 %0, %1, %2, %3;" in cuda
    # 37 = 4 chunks of 8 and 5 more: the chunk loop runs 3 times, the rest one by one
    assert "outer < 3" in cuda


WARP = IMPORTS + """
@T.prim_func
def k(A: T.Buffer((32, 8), "float32"), B: T.Buffer((32,), "float32"), C: T.Buffer((8,), "float32"), D: T.Buffer((4, 8), "float32")):
    T.device_entry()
    T.cta_id([1])
    lane = T.lane_id([32])
    T.thread_id([32])
    X = T.alloc_buffer((32, 8), "float32", scope="local", layout=TileLayout(S[(32, 8) : (1 @ laneid, 1)]))
    rows = T.alloc_buffer((32,), "float32", scope="local", layout=TileLayout(S[(32,) : (1 @ laneid,)]))
    cols = T.alloc_buffer((8,), "float32", scope="local", layout=TileLayout(S[(8,) : (1,)] + R[32 : 1 @ laneid]))
    part = T.alloc_buffer((4, 8), "float32", scope="local", layout=TileLayout(S[(4, 8) : (8 @ laneid, 1)] + R[8 : 1 @ laneid]))
    X3 = T.alloc_buffer((4, 8, 8), "float32", scope="local", layout=TileLayout(S[(4, 8, 8) : (8 @ laneid, 1 @ laneid, 1)]))
    mine = X.local()
    mine3 = X3.local()
    for j in T.serial(8):
        mine[j] = A[lane, j]
        mine3[j] = A[lane, j]
    Tx.warp.sum(rows, X)
    Tx.warp.max(cols, X, axes=0)
    Tx.warp.sum(part, X3, axes=1)
    B[lane] = rows.local()[0]
    if lane == 0:
        for j in T.serial(8):
            C[j] = cols.local()[j]
    if lane % 8 == 0:
        for j in T.serial(8):
            D[lane // 8, j] = part.local()[j]
"""


def test_warp_register_reductions_plan_their_shuffles():
    result = _compiled(WARP, arch="sm_90a")
    calls = [d for d in result.program.kernels[0].tile_dispatch if d.call.startswith("Tx.warp.")]
    assert [d.variant for d in calls] == ["local"] * 3
    cuda = result.cuda
    rows = cuda[cuda.index("Tx.warp.sum(rows"):cuda.index("Tx.warp.max")]
    assert "__shfl_xor_sync" not in rows  # each lane holds a whole row
    cols = cuda[cuda.index("Tx.warp.max"):cuda.index("Tx.warp.sum(part")]
    # a column is spread over all 32 lanes: five butterfly steps per register
    assert [cols.count(f"__shfl_xor_sync(0xffffffffu, acc_ptr[{j}], {m})") for j in (0, 7) for m in (1, 16)] == [1] * 4
    part = cuda[cuda.index("Tx.warp.sum(part"):]
    assert "__shfl_xor_sync(0xffffffffu, acc_ptr[0], 4)" in part and "acc_ptr[0], 8)" not in part


def _error_text(decl: str, body: str) -> str:
    return IMPORTS + f"""
@T.prim_func
def k(A: T.Buffer((32, 8), "float32")):
    T.device_entry()
    T.cta_id([1])
    lane = T.lane_id([32])
    T.thread_id([32])
    X = T.alloc_shared((32, 8), "float32")
    r = T.alloc_local((32,), "float32")
    h = T.alloc_shared((32,), "float16")
{decl}{body}
"""


@pytest.mark.parametrize("decl, body, reason", [
    ("", "    Tx.cta.sum(h, X)\n", "variant `shared`: dst is float16 and src is float32"),
    ("", "    Tx.cta.sum(X[0:4, 0], X)\n", "variant `shared`: dst has 4 elements; src keeps 32 after the reduction"),
    ("", "    Tx.cta.sum(r, X, axes=2)\n", "variant `shared`: axis 2 is out of range for src's 2 dimensions"),
    ("", "    Tx.cta.sum(r, X)\n", "variant `shared`: dst is in local memory"),
    ("", "    Tx.warp.sum(r[0:1], r)\n", "variant `local`: at warp scope src and dst are register buffers spread over the "
                                  "warp's threads by their layouts"),
    ("    Y = T.alloc_buffer((32, 8), \"float32\", scope=\"local\", layout=TileLayout(S[(32, 8) : (1, 32 @ laneid)]))\n"
     "    d = T.alloc_buffer((8,), \"float32\", scope=\"local\", layout=TileLayout(S[(8,) : (1,)] + R[32 : 1 @ laneid]))\n",
     "    Tx.warp.sum(d, Y, axes=0)\n",
     "variant `local`: thread 0 holds dst's output 1 but none of the elements reduced into it"),
    ("", "    Tx.binary_reduce(X, r, X, X, \"pow\", \"sum\")\n", "variant `composed`: `binary_op` is 'pow', not one of "
                                                             "add, sub, mul, fdiv, maximum, minimum"),
])
def test_declined_reductions_say_why(decl, body, reason):
    result = transpile(_error_text(decl, body), "k.tx", arch="sm_90a")
    line = 14 + decl.count("\n")
    assert errors(result) == [(line, 5, "E0904")]
    assert reason in [n.message for n in result.diagnostics[0].notes]


NVCC = {"thread_local": (thread_kernel([s for s, _ in CASES]), "sm_90a"),
        "thread_shared": (thread_kernel([s for s, _ in CASES], "shared"), "sm_90a"),
        "packed": (PACKED, "sm_100a"), "warp": (WARP, "sm_90a"),
        "conformance_shared": (open("tests/conformance/tile_primitives-reduction-shared__2.tx").read(), "sm_90a")}


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("name", sorted(NVCC))
def test_nvcc_warning_free(name, tmp_path):
    text, arch = NVCC[name]
    result = _compiled(text, arch=arch)
    code, output = compile_cuda(result.cuda, ["-gencode", f"arch=compute_{arch[3:]},code={arch}", "-std=c++17", "-Werror", "all-warnings"])
    assert code == 0, output


def test_fused_parts_are_shown_and_a_part_no_variant_takes_is_named():
    text = _error_text("", "    Tx.cta.binary_reduce(X, r[0:32], X, X, \"add\", \"max\")\n")
    result = transpile(text, "k.tx", arch="sm_90a")
    assert errors(result) == [(14, 5, "E0904")]
    note, = [n.message for n in result.diagnostics[0].notes]
    assert note == ("variant `composed`: no variant of `max` takes its part (sm100_packed: it runs at cta scope; "
                    "local: src is in shared memory; shared: dst is in local memory)")
    ok = _compiled(_error_text("    Y = T.alloc_shared((32,), \"float32\")\n",
                               "    Tx.cta.binary_reduce(X, Y, X, 1.0, \"maximum\", \"min\")\n"))
    cuda = ok.cuda
    assert "// maximum: smem" in cuda and "// min: shared" in cuda
    assert [d.variant for d in ok.program.kernels[0].tile_dispatch] == ["composed"]
