"""`@T.jit` kernels with `T.constexpr` parameters (sema/kernel/jit.py): each `k = f.specialize(...)` is a
kernel named `k` with the constants baked in, run here on the host (tests/emit/hostc.py)."""
from __future__ import annotations

import pytest

from tests.conftest import transpile
from tests.emit import hostc

TEXT = """\
from __future__ import annotations
from tvm.script import tirx as T


@T.jit
def axpy(A: T.Buffer((N,), "float32"), B: T.Buffer((N,), "float32"), C: T.Buffer((N,), "float32"), *,
         N: T.constexpr, SCALE: T.constexpr = 2):
    T.device_entry()
    tx = T.thread_id([N])
    C[tx] = A[tx] * T.float32(SCALE) + B[tx]


%s
"""


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
@pytest.mark.parametrize("call, n, scale", [("axpy.specialize(N=8)", 8, 2), ("axpy.specialize(SCALE=5, N=4)", 4, 5)])
def test_each_specialization_is_a_kernel_with_its_constants(tmp_path, call, n, scale):
    result = transpile(TEXT % f"small = {call}")
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    assert "small_kernel(const float* __restrict__ A_ptr" in result.cuda
    a, b = [float(i) for i in range(n)], [10.0 * i for i in range(n)]
    out = hostc.run(result.cuda, {"A": a, "B": b, "C": [0.0] * n}, threads=n, workdir=tmp_path)
    assert out["C"] == [x * scale + y for x, y in zip(a, b)]


def test_two_specializations_make_two_kernels():
    result = transpile(TEXT % "k8 = axpy.specialize(N=8)\nk16 = axpy.specialize(N=16, SCALE=3)")
    assert result.ok
    assert [k.spec.name for k in result.program.kernels] == ["k8", "k16"]
    assert "__launch_bounds__(16)" in result.cuda and "* 3.0f" in result.cuda


def test_a_jit_kernel_never_specialized_emits_nothing():
    result = transpile(TEXT % "")
    warnings = [(d.code, d.span.line, d.span.col) for d in result.diagnostics]
    assert ("W0004", 6, 5) in warnings
