"""Helper functions (sema/library/macros.py): plain `def` helpers evaluated at compile time and
`@T.inline` / `@T.macro` device helpers inlined at each call, checked by running the kernel on
the host (tests/emit/hostc.py) against the values Python gives for the same computation."""
from __future__ import annotations

import pytest

from tests.conftest import transpile
from tests.emit import hostc

pytestmark = pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")

A = [7, -3, 12, 5, 9, 4, -8, 2]

KERNEL = '''\
from tvm.script import tirx as T


def tile(m, n=8):
    """a docstring"""
    for i in range(3):
        if i == 1:
            continue
        m = m * 2
    return (m, n)


def fact(k):
    if k <= 1:
        return 1
    return k * fact(k - 1)


def idx(i, j):
    return i * 4 + j


def stats(values):
    lo, hi = values[0], values[0]
    for v in values:
        lo, hi = min(lo, v), max(hi, v)
    table = {}
    table["span"] = hi - lo
    return table


SHAPE = tile(4)
SPAN = stats((3, -2, 9))["span"]


@T.inline
def add_into(acc, x):
    acc[0] = acc[0] + x


@T.macro
def twice_into(buf, v):
    t = v * 2
    buf[1] = buf[1] + t


@T.inline
def apply(fn, buf, v):
    fn(buf, v)


@T.inline
def expr_helper(i, j):
    t: T.let = i ^ j
    return t * 4 + j


@T.inline
def rec_sum(buf, n):
    if n > 0:
        buf[2] = buf[2] + buf[n]
        rec_sum(buf, n - 1)


@T.prim_func
def k(A_ptr: T.handle, O_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8,), "int32")
    O = T.match_buffer(O_ptr, (12,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([1])
    t = 100

    @T.inline
    def sees_kernel(k0, k1=3):
        O[3] = A[k0] + A[k1] + tx + late

    late = 1000
    O[0] = 0
    O[1] = 0
    O[2] = 0
    add_into(O, A[3])
    add_into(O, A[4])
    twice_into(O, A[5])
    apply(twice_into, O, 7)
    rec_sum(O, 3)
    sees_kernel(1)
    O[4] = SHAPE[0] + SHAPE[1] * 100
    O[5] = fact(5)
    O[6] = A[idx(1, 2)]
    O[7] = expr_helper(A[0], 3) + expr_helper(A[1], 5)
    O[8] = SPAN + t
    O[9] = idx(A[0], A[1])
'''


def test_helpers_compute_what_python_does(tmp_path):
    result = transpile(KERNEL)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    out = hostc.run(result.cuda, {"A": A, "O": [0] * 12}, threads=1, workdir=tmp_path)["O"]
    o1 = A[5] * 2 + 14
    # rec_sum(O, 3): O[2] += O[3] (0), O[2] += O[2] (0), O[2] += O[1]
    expected = [A[3] + A[4], o1, o1, A[1] + A[3] + 0 + 1000,
                16 + 800, 120, A[6], ((A[0] ^ 3) * 4 + 3) + ((A[1] ^ 5) * 4 + 5), 11 + 100, A[0] * 4 + A[1], 0, 0]
    assert out == expected


def test_inlined_locals_get_fresh_c_names():
    """Two inlinings of one helper declare two locals; neither captures the caller's `t`."""
    result = transpile(KERNEL)
    assert result.ok
    cuda = result.cuda
    assert "int t_ptr_1[1];" in cuda and "int t_ptr_2[1];" in cuda  # the macro's `t`, once per call
    assert "int t = A_ptr[0] ^ 3;" in cuda and "int t_1 = A_ptr[1] ^ 5;" in cuda  # expr_helper's `t`
    assert "O_ptr[8] = 11 + t_ptr[0];" in cuda  # the kernel's own `t`, untouched by the inlinings
