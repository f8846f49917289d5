"""Reduction variants (transpiler/tile/reduction/) and the fused forms: a property over the reductions
and fused forms at thread scope (each against numpy, by a host run of the generated CUDA, in
registers and in shared memory), and why `sm100_packed` declines a call `local` takes. The variant
each call takes, the shuffle plan of register reductions over lanes, the fused parts and the E0904
reasons are stated by tests/tile/cases/reduction/."""
from __future__ import annotations

import numpy as np
import pytest

from tests.check.case_files import run
from tests.conftest import has_nvcc, transpile
from tests.emit import hostc
from tests.nvcc_batch import compile_many
from tests.tile.case_kernels import case_source, kernel_case

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
def test_property_reductions_at_thread_scope_match_numpy(memory, variant):
    result = _compiled(thread_kernel([s for s, _ in CASES], memory), arch="sm_90a")
    chosen = {d.variant for d in result.program.kernels[0].tile_dispatch if d.call.split(".")[-1] in ("sum", "max", "min")}
    assert chosen == {variant}
    out = hostc.run(HOST_PRELUDE + result.cuda, {"X": list(X.ravel()), "O": list(START),
                                                 "C": [0.0] * (8 * len(CASES))})
    got = np.array(out["C"], dtype=np.float32).reshape(len(CASES), 8)
    for (stmt, want), value in zip(CASES, got):
        expect = want(START.copy())
        np.testing.assert_allclose(value[:len(expect)], expect, rtol=2e-6, atol=2e-6, err_msg=stmt)


# the warp kernel of the case files, which the GPU test runs too (tests/gpu/test_tile_reduction.py)
WARP = case_source("reduction", "warp_registers_plan_their_shuffles")


@pytest.mark.parametrize("kernel, target", [
    ("packed_sm90", "the target is sm_90a"),
    # without --arch, dispatch keeps to what the kernel needs anyway (docs/design.md, decision 32)
    ("packed_no_target", "the kernel otherwise needs only sm_75 (name the target with --arch)")])
def test_sm100_packed_declines_a_target_before_sm_100(kernel, target):
    path = kernel_case("reduction", kernel)
    _, result = run(path, path.read_text(encoding="utf-8"))
    for record in result.program.kernels[0].tile_dispatch:
        assert record.variant == "local"
        assert dict(record.rejected)["sm100_packed"] == (
            "the packed f32x2 add and three-input min / max needs sm_100 or newer; " + target)


NVCC = {"thread_local": (thread_kernel([s for s, _ in CASES]), "sm_90a"),
        "thread_shared": (thread_kernel([s for s, _ in CASES], "shared"), "sm_90a"),
        "conformance_shared": (open("tests/conformance/tile_primitives-reduction-shared__2.tx").read(), "sm_90a")}


def _nvcc_flags(arch: str) -> tuple[str, ...]:
    return ("-gencode", f"arch=compute_{arch[3:]},code={arch}", "-std=c++17", "-Werror", "all-warnings")


@pytest.fixture(scope="module")
def nvcc_results():
    """{name: (its transpile Result, (return code, nvcc output) or None when it did not transpile)}:
    the kernels of an architecture by as few nvcc runs as their includes allow (tests/nvcc_batch.py)."""
    results = {name: transpile(text, "k.tx", arch=arch) for name, (text, arch) in NVCC.items()}
    compiled = {}
    for arch in sorted({arch for _, arch in NVCC.values()}):
        compiled.update(compile_many({name: results[name].cuda for name, (_, a) in NVCC.items()
                                      if a == arch and results[name].ok}, _nvcc_flags(arch)))
    return {name: (results[name], compiled.get(name)) for name in NVCC}


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("name", sorted(NVCC))
def test_nvcc_warning_free(name, nvcc_results):
    result, (code, output) = nvcc_results[name][0], nvcc_results[name][1] or (None, "")
    assert not result.diagnostics, [f"{d.span.line}:{d.span.col} {d.message}" for d in result.diagnostics]
    assert code == 0, output
