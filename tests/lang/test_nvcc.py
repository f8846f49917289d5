"""The kernels of tests/lang/test_values.py, plus shared-memory and float16 views, compile
warning-free with nvcc (the flags of tests/emit/test_nvcc.py)."""
from __future__ import annotations

import pytest

from tests.conftest import has_nvcc, transpile
from tests.emit.test_nvcc import nvcc
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


@pytest.mark.parametrize("name", ["STORES", "FORMS", "VIEWS", "HOST", "SHARED_VIEWS"])
def test_compiles(name, tmp_path):
    source = SHARED_VIEWS if name == "SHARED_VIEWS" else getattr(test_values, name)
    result = transpile(source)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    cu = tmp_path / "k.cu"
    cu.write_text(result.cuda, encoding="utf-8")
    code, output = nvcc(cu, "sm_80", tmp_path)
    assert code == 0, output
