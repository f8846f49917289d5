"""TIR's node constructors as kernels call them (sema/expressions/directives.py): `T.And`, `T.Or`, `T.Not`,
`T.IntImm`, `T.FloatImm`, run on the host (tests/emit/hostc.py)."""
from __future__ import annotations

import pytest

from tests.conftest import errors, transpile
from tests.emit import hostc

KERNEL = """\
from tvm.script import tirx as T


@T.prim_func
def k(O: T.Buffer((4,), "float32"), n: T.int32):
    T.device_entry()
    tx = T.thread_id([4])
    O[tx] = T.float32(0)
    if T.And(tx > 0, T.Or(n == 3, T.Not(tx < 2))):
        O[tx] = T.FloatImm("float32", 1.5) + T.float32(T.IntImm("int64", 3))
"""


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
@pytest.mark.parametrize("n, want", [(3, [0.0, 4.5, 4.5, 4.5]), (0, [0.0, 0.0, 4.5, 4.5])])
def test_logic_and_immediates(tmp_path, n, want):
    result = transpile(KERNEL)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    out = hostc.run(result.cuda, {"O": [9.0] * 4}, threads=4, scalars={"n": n}, workdir=tmp_path)
    assert out["O"] == want


@pytest.mark.parametrize("expr, expected", [
    ('T.IntImm("float32", 3)', (10, 26, "E0303")),
    ('T.FloatImm("float32", "x")', (10, 39, "E0305")),
])
def test_errors(expr, expected):
    result = transpile(KERNEL.replace('T.FloatImm("float32", 1.5)', expr))
    assert errors(result) == [expected], [(d.span.line, d.span.col, d.message) for d in result.diagnostics]


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_immediates_at_module_level(tmp_path):
    """`scale = T.FloatImm("float16", 1.5)` at module level (TIRx's tests write it so) is the same
    typed constant in the kernel: a float16 1.1 (1.0996...), multiplied in half precision."""
    text = KERNEL.replace("\n\n@T.prim_func", '\nSCALE = T.FloatImm("float16", 1.1)\nTHREE = T.IntImm("int64", 3)\n\n'
                                            "@T.prim_func")
    text = text.replace('T.FloatImm("float32", 1.5) + T.float32(T.IntImm("int64", 3))',
                        "T.float32(SCALE * T.float16(THREE))")
    result = transpile(text)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    out = hostc.run(result.cuda, {"O": [9.0] * 4}, threads=4, scalars={"n": 3}, workdir=tmp_path)
    assert out["O"] == [0.0] + [3.298828125] * 3  # float16(1.1) * 3 rounded to float16; 3.3 in float32
