"""The kernels of tests/lang/test_values.py, plus shared-memory and float16 views, compile
warning-free with nvcc (the flags of tests/emit/test_nvcc.py)."""
from __future__ import annotations

import pytest

from tests.conftest import has_nvcc, transpile
from tests.emit.test_nvcc import FLAGS
from tests.nvcc_batch import compile_many
from tests.lang import test_values

pytestmark = [pytest.mark.nvcc, pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")]

SHARED_VIEWS = """\
from tvm.script import tirx as T

@T.prim_func
def k(F_ptr: T.handle, O_ptr: T.handle):
    F = T.match_buffer(F_ptr, (128,), "float32")
    O = T.match_buffer(O_ptr, (128,), "float32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([64])
    S = T.alloc_shared((2, 64), "float32")
    S[0, tx] = F[tx]
    S[1, tx] = F[tx + 64]
    T.cuda.cta_sync()
    H = S.view("float16")
    D = S.view("float64")
    H[1, tx] = T.float16(1.0)
    O[tx] = T.float64(H[0, tx]) + D[0, tx % 32]
    for i in T.vectorized(4):
        O[64 + i] = H[1, i]
"""


NAMES = ("STORES", "FORMS", "VIEWS", "HOST", "SHARED_VIEWS")


@pytest.fixture(scope="module")
def nvcc_results():
    """{name: (its transpile Result, (return code, nvcc output) or None when it did not transpile)}:
    every kernel for sm_80 by as few nvcc runs as their includes allow (tests/nvcc_batch.py)."""
    results = {name: transpile(SHARED_VIEWS if name == "SHARED_VIEWS" else getattr(test_values, name))
               for name in NAMES}
    compiled = compile_many({name: r.cuda for name, r in results.items() if r.ok},
                            ("-gencode", "arch=compute_80,code=sm_80", *FLAGS))
    return {name: (results[name], compiled.get(name)) for name in NAMES}


@pytest.mark.parametrize("name", NAMES)
def test_compiles(name, nvcc_results):
    result, compiled = nvcc_results[name]
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    code, output = compiled
    assert code == 0, output
