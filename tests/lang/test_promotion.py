"""Operands of different dtypes are promoted as TIRx's BinaryOpMatchTypes promotes them (docs/design.md,
decision 7): the wider of two integers or two floats, a float over an integer, the unsigned one of a
signed and an unsigned integer of one width. The kernel runs on the host (tests/emit/hostc.py); the
expected values are what the promoted C arithmetic gives, written out with Python."""
from __future__ import annotations

import pytest

from tests.conftest import transpile
from tests.emit import hostc
from transpiler.target.dtypes import parse_dtype, promoted

KERNEL = """\
from tvm.script import tirx as T


@T.prim_func
def k(O_ptr: T.handle, F_ptr: T.handle, n: T.int32, q: T.int64, u: T.uint32, s: T.int8, f: T.float32, h: T.float16):
    O = T.match_buffer(O_ptr, (4,), "int64")
    F = T.match_buffer(F_ptr, (2,), "float32")
    T.device_entry()
    tx = T.thread_id([1])
    O[0] = n * q
    O[1] = T.int64(u + n)
    O[2] = T.int64(s * n)
    O[3] = T.int64(n < q)
    F[0] = f + h
    F[1] = T.float32(n + f)
"""
N, Q, U, S = 100_000, 3_000_000_000, 5, -3


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_promoted_arithmetic(tmp_path):
    result = transpile(KERNEL)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    out = hostc.run(result.cuda, {"O": [0] * 4, "F": [0.0] * 2}, threads=1, workdir=tmp_path,
                    scalars={"n": N, "q": Q, "u": U, "s": S, "f": 1.5, "h": 0.25})
    # n * q in int64 (in int32 it would wrap); u + n in uint32; s * n in int32 (the wider)
    assert out["O"] == [N * Q, (U + N) % 2**32, S * N, 1]
    assert out["F"] == [1.75, 100001.5]


@pytest.mark.parametrize("a, b, want", [
    ("int32", "int64", "int64"), ("int64", "int32", "int64"), ("uint8", "uint32", "uint32"),
    ("int32", "uint32", "uint32"), ("uint32", "int32", "uint32"), ("int64", "uint32", "int64"),
    ("int8", "float16", "float16"), ("float32", "float16", "float32"), ("float16", "bfloat16", "float16"),
    ("bool", "int32", "int32"), ("float32x4", "float32", None), ("handle", "int64", None),
])
def test_the_promotion_table(a, b, want):
    got = promoted(parse_dtype(a), parse_dtype(b))
    assert (str(got) if got is not None else None) == want
