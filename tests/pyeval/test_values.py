"""The Python level of a `.tx` file (evaluator/core.py, pyeval_builtins.py): what compile-time
evaluation computes equals what the kernel stores, run on the host (tests/emit/hostc.py).
Each row is one statement `O[k] = <expression>` after some set-up lines, and the value
Python itself gives for the same text (computed here, over the same inputs)."""
from __future__ import annotations

import textwrap

import pytest

from tests.conftest import transpile
from tests.emit import hostc

A = [7, -3, 12, 5, 9, 4, -8, 2]

# (set-up lines of the kernel body, the expression stored, the value Python gives)
ROWS = [
    ("", "T.max(*[A[i] for i in range(2)])", max(A[0], A[1])),
    ("", "T.min(*(A[2], A[3]))", min(A[2], A[3])),
    ("", "sum(A[i] for i in range(4))", sum(A[:4])),
    ("xs = [A[i] * 2 for i in range(8) if i % 2 == 0]", "xs[1] + xs[-1]", A[2] * 2 + A[6] * 2),
    ("", "len([A[i] for i in range(8) if i > 2])", 5),
    ("t = (*[1, 2], 3)", "t[2] + len(t)", 6),
    ("", "SQUARES[4] + len(SQUARES)", 16 + 5),
    ("", "D['a'] * D['b']", 12),
    ("", "sum(i * v for i, v in enumerate((5, 6, 7)))", 20),
    ("", "min(SQUARES[1:]) + max(*SQUARES)", 1 + 16),
    ("s = 'hello'[1:4]", "len(s) + len(s[::2])", 3 + 2),
    ("kp, kHi = A[0] % 2, A[0] // 2", "kp * 100 + kHi", (A[0] % 2) * 100 + A[0] // 2),
    ("m = T.meta_var(A[1] + 1)", "m * 2", (A[1] + 1) * 2),
    ("a, *rest, b = range(6)", "a + len(rest) * 10 + b * 100", 0 + 40 + 500),
    ("(p, q), r = (A[2], A[3]), 4", "p - q + r", A[2] - A[3] + 4),
    ("", "sum(x * y for x, y in zip(SQUARES, (1, 1, 2)))", 0 + 1 + 8),
    ("", "int(all(v >= 0 for v in SQUARES)) + 2 * int(any(v > 20 for v in SQUARES))", 1),
    ("", "sorted((3, 1, 2), reverse=True)[0] * 10 + tuple(reversed(SQUARES))[0]", 30 + 16),
    ("", "T.max(*[A[i] for i in [j * 3 for j in range(2)]])", max(A[0], A[3])),
    ("", "int(isinstance(SQUARES, tuple)) + int(isinstance(3, int)) + abs(-4) + int('12')", 0 + 1 + 4 + 12),
    ("u, v = 1, A[5]\nu2, v2 = v, u", "u2 * 10 + v2", A[5] * 10 + 1),
    ("w1, w2 = A[0], A[1]\nw1, w2 = w2, w1", "w1 * 1000 + w2", A[1] * 1000 + A[0]),
    ("A2 = [0, 0]\nO[30], O[31] = A[2], A[3]", "O[30] - O[31] + SHAPE[0] + len(DT) + len(REST)", A[2] - A[3] + 32 + 7 + 2),
    ("", "len({k: v for k, v in D.items()}) + len(dict(x=1, y=2)) * 10 + D.get('z', 7) * 100", 2 + 20 + 700),
    ("", "sum(D.values()) + len(', '.join(D.keys())) * 10 + (1, 2, 1).count(1) * 100", 7 + 40 + 200),
    ("", "len('a,b,c'.split(',')) + (3, 4, 5).index(5) * 10 + int('AB'.lower() == 'ab') * 100", 3 + 20 + 100),
    ("", "len(f'{len(SQUARES)}:{D[\"a\"]:>3}')", 5),
    ("", "math.prod(SQUARES[1:]) + gcd(12, 18) * 1000 + math.gcd(8, 12, 20) * 10000", 576 + 6000 + 40000),
    ("", "int(math.log2(64)) + math.ceil(2.5) * 10 + math.floor(-2.5) * 100 + math.isqrt(50) * 1000", 6 + 30 - 300 + 7000),
    ("", "functools.reduce(lambda a, b: a * b, (4, 8, 2)) + reduce(lambda a, b: a - b, [1, 2, 3], 10) * 100", 64 + 400),
    ("", "int(math.pi * 1000) + int(math.isfinite(math.inf)) * 10000", 3141),
    ("", "functools.reduce(operator.mul, SQUARES[1:], 1) + operator.floordiv(-7, 2) * 1000", 576 - 4000),
    ("", "tvm.DataType('float16').bits + DataType('int8').itemsize * 100 + tvm.runtime.DataType('float32x4').lanes * 1000",
     16 + 100 + 4000),
]

HEAD = """\
import functools
import math
import operator
import tvm
from functools import reduce
from tvm.runtime import DataType
from math import gcd
from tvm.script import tirx as T

SQUARES = [i * i for i in range(5)]
D = {"a": 3, **{"b": 4}}
SHAPE, (DT, *REST) = (32, 32), ("float32", 1, 2)

@T.prim_func
def k(A_ptr: T.handle, O_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8,), "int32")
    O = T.match_buffer(O_ptr, (%d + 32,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([1])
"""


def kernel(rows) -> str:
    body = []
    for k, (setup, value, _) in enumerate(rows):
        if setup:
            body += setup.split("\n")
        body.append(f"O[{k}] = {value}")
    return HEAD % len(rows) + textwrap.indent("\n".join(body), "    ") + "\n"


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_values(tmp_path):
    rows = ROWS
    result = transpile(kernel(rows))
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    out = hostc.run(result.cuda, {"A": A, "O": [0] * (len(rows) + 32)}, threads=1, workdir=tmp_path)
    assert out["O"][:len(rows)] == [r[2] for r in rows]
