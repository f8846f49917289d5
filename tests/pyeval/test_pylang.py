"""Lambdas, mutable lists and sets, `str.format`, `*args` / `**kwargs` parameters, `A[*idx]` and
`view(dtype)` of a parameter buffer (issue 16): what compile-time evaluation computes equals what
Python gives for the same text, run on the host (tests/emit/hostc.py)."""
from __future__ import annotations

import subprocess
import textwrap

import pytest

from tests.conftest import has_nvcc, transpile
from tests.emit import hostc

A = [7, -3, 12, 5, 9, 4, -8, 2]

MODULE = """\
SQ = lambda x: x * x
ADD = lambda a, b=10: a + b
def total(*args, scale=1, **kw):
    return (sum(args) + 100 * len(kw)) * scale
def first_and_rest(first, *rest):
    return first * 10 + len(rest)
def kwonly(a, *, b, c=3):
    return a * 100 + b * 10 + c
def apply(f, xs):
    return [f(x) for x in xs]
def filled(n):
    out = []
    for i in range(n):
        out.append(i * i)
    out[0] = 9
    out[-1] += 1
    return out
def grow(xs, v):
    xs.append(v)
def table():
    d = {}
    d["a"] = 1
    d["b"] = [1, 2]
    d["b"].append(3)
    return d
NAME = "k{}_{n:>3}".format(4, n="x")
S = {3, 1, 3, 2}
EVENS = {i % 4 for i in range(10)}
BUILT = []
for i in range(3):
    BUILT.append(i * 10)
BUILT[0] = 5
TABLE = {}
TABLE["x"] = len(BUILT)
if len(BUILT) == 3:
    TABLE["y"] = 7
REPEAT = [0] * 3 + [1, 2]
"""

# (set-up lines of the kernel body, the expression stored, the value Python gives)
ROWS = [
    ("", "SQ(3) + ADD(1) + ADD(1, 2)", 9 + 11 + 3),
    ("f = lambda i: A[i] * 2", "f(2) + f(3)", A[2] * 2 + A[3] * 2),
    ("g = lambda *xs, **kw: len(xs) * 10 + len(kw)", "g(1, 2, 3, a=1)", 31),
    ("", "sum(apply(lambda v: v + 1, [1, 2, 3]))", 9),
    ("", "sum(apply(lambda v: A[v], (0, 1)))", A[0] + A[1]),
    ("", "total(1, 2, 3, scale=2, a=1, b=2)", (6 + 200) * 2),
    ("", "total() + first_and_rest(4, 5, 6, 7)", 43),
    ("", "kwonly(1, b=2) + kwonly(1, c=0, b=0)", 123 + 100),
    ("", "total(*[A[0], A[1]], **{'z': 1})", A[0] + A[1] + 100),
    ("xs = []\nys = xs\nxs.append(1)\nys.append(A[2])", "len(xs) * 1000 + xs[0] * 100 + xs[1]", 2000 + 100 + A[2]),
    ("zs = [1, 2]\nzs.extend((3, 4))\nzs.insert(0, 5)", "zs.pop() * 100 + zs.pop(0) * 10 + len(zs)", 400 + 50 + 3),
    ("ws = [[1], [2]]\nws[1].append(7)\nw = ws[1]\nw.append(8)", "sum(ws[1]) + len(ws)", 17 + 2),
    ("vs = [3, 1, 2]\nvs.sort()\nvs.reverse()\nvs.remove(2)", "vs[0] * 10 + vs[1] + vs.index(1) * 100", 31 + 100),
    ("us = [1, 2]\ngrow(us, 5)", "len(us) * 10 + us[-1]", 35),
    ("", "sum(filled(4)) + filled(3)[0]", 9 + 1 + 4 + 10 + 9),
    ("", "table()['a'] + sum(table()['b']) + len(table())", 1 + 6 + 2),
    ("cs = [1, 2]\nds = cs.copy()\nds.append(3)\nes = cs[:]\nes.append(4)", "len(cs) * 100 + len(ds) * 10 + len(es)", 233),
    ("", "len(S) * 100 + sorted(S)[0] * 10 + len(EVENS)", 300 + 10 + 4),
    ("s2 = set()\ns2.add(1)\ns2.add(1)\ns2.update([2, 3])\ns2.discard(3)", "len(s2) + int(s2.issubset({1, 2, 5})) * 10", 12),
    ("", "len({1, 1.0, True, None, None}) + int(1 in [True]) * 10", 12),
    ("", "int([1] in [[1]]) + int((1,) in [[1]]) * 10 + [[2], (2,)].index((2,)) * 100", 101),
    ("", "len({1, 2}.union({2, 3})) * 10 + len({1, 2}.intersection([2, 3])) + len(set((1, 1, 2)))", 30 + 1 + 2),
    ("", "len(NAME) + int(NAME == 'k4_  x') * 100", 6 + 100),
    ("", "len('ab' * 3) + len(2 * '-') * 10 + len('x' * 0) * 100", 26),
    ("", "len('{0}-{0}-{1!r}'.format(12, 'a'))", len('{0}-{0}-{1!r}'.format(12, 'a'))),
    ("", "int(f'{[1, 2]}' == '[1, 2]') + int('{}'.format([3]) == '[3]') * 10 + int(str((1,)) == '(1,)') * 100"
         " + int(str([1]) == '[1]') * 1000", 1111),
    ("", "int(isinstance([1], list)) + int(isinstance((1,), list)) * 10 + int(isinstance(S, set)) * 100", 101),
    ("", "int(callable(SQ)) + int(callable(3)) * 10", 1),
    ("idx = (2,)", "A[*idx] + A[*[1]]", A[2] + A[1]),
    ("", "sum(BUILT) + TABLE['x'] * 100 + TABLE['y'] * 1000", 35 + 300 + 7000),
    ("", "int('x' in TABLE) + int(3 not in S) * 10 + int('bc' in 'abcd') * 100 + int(2 in [1, 2]) * 1000"
         " + int((1, 2) in [(1, 2)]) * 10000", 1 + 0 + 100 + 1000 + 10000),
    ("rs = [A[0]] * 2 + [A[1]]", "len(REPEAT) * 100 + sum(REPEAT) + len((1, 2) * 3) * 1000 + sum(rs)",
     500 + 3 + 6000 + 2 * A[0] + A[1]),
]

HEAD = """\
from tvm.script import tirx as T

%s
@T.prim_func
def k(A_ptr: T.handle, O_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8,), "int32")
    O = T.match_buffer(O_ptr, (%d,), "int32")
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
    return HEAD % (MODULE, len(rows)) + textwrap.indent("\n".join(body), "    ") + "\n"


def test_python_gives_the_expected_values():
    """The expected values are Python's: the same set-up and expressions, run by Python."""
    namespace: dict = {"A": A}
    exec(MODULE, namespace)  # (the test's own text, not a .tx file)
    for setup, value, expected in ROWS:
        local = dict(namespace)
        exec(setup, local)
        assert eval(value.replace("A[*idx]", "A[idx[0]]").replace("A[*[1]]", "A[1]"), local) == expected, value


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_values(tmp_path):
    result = transpile(kernel(ROWS))
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    out = hostc.run(result.cuda, {"A": A, "O": [0] * len(ROWS)}, threads=1, workdir=tmp_path)
    assert out["O"] == [r[2] for r in ROWS]


STORES = """\
from tvm.script import tirx as T

@T.prim_func
def k(A_ptr: T.handle, O_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 4), "int32")
    O = T.match_buffer(O_ptr, (8,), "int32")
    T.device_entry()
    bx = T.cta_id([1])
    tx = T.thread_id([1])
    at = (1, 2)
    A[*at] = 5
    A[*[3], 0] += 7
    h = O.view("int16")
    h[1] = T.int16(-1)
    h[4] = T.int16(3)
    b = O.view("uint8")
    b[12] = T.uint8(1)
"""


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_star_stores_and_parameter_views(tmp_path):
    """`A[*idx] = v` stores where `A[idx[0], idx[1]] = v` would; a narrower view of a parameter
    buffer writes its bytes (little-endian), and the parameter is no longer `const`."""
    result = transpile(STORES)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    assert "const int* __restrict__ O_ptr" not in result.cuda
    out = hostc.run(result.cuda, {"A": [0] * 16, "O": [0] * 8}, threads=1, workdir=tmp_path)
    assert out["A"][1 * 4 + 2] == 5 and out["A"][3 * 4] == 7
    assert out["O"][0] == -65536 and out["O"][2] == 3 and out["O"][3] == 1


def test_wider_view_of_a_parameter_is_not_supported_yet():
    text = STORES.replace('O.view("int16")', 'O.view("int64")')
    result = transpile(text)
    assert [(d.code, d.span.line, d.span.col) for d in result.diagnostics] == [("E0518", 13, 9)]


REINTERPRET = """\
from tvm.script import tirx as T

@T.prim_func
def k(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "uint64")):
    T.device_entry()
    tx = T.thread_id([4])
    S = T.alloc_local((4,), "float32")
    B[tx] = T.reinterpret("uint64", S.ptr_to([tx])) - T.reinterpret("uint64", S.data) \\
        + T.reinterpret("uint64", A.data) - T.reinterpret("uint64", T.address_of(A[0]))
"""


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_reinterpret_of_a_pointer_is_its_address(tmp_path):
    result = transpile(REINTERPRET)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    out = hostc.run(result.cuda, {"A": [0.0] * 4, "B": [7] * 4}, threads=4, workdir=tmp_path)
    assert out["B"] == [0, 4, 8, 12]  # byte distances between the addresses


def test_reinterpret_of_a_pointer_needs_a_64_bit_integer():
    result = transpile(REINTERPRET.replace('T.reinterpret("uint64", S.data)', 'T.reinterpret("uint32", S.data)'))
    assert [(d.code, d.span.line, d.span.col) for d in result.diagnostics] == [("E0303", 8, 69)]  # at the dtype


NVCC_KERNELS = """\
from tvm.script import tirx as T

@T.prim_func
def pointers(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "uint64"), C: T.Buffer((64,), "uint32")):
    T.device_entry()
    tx = T.thread_id([64])
    S = T.alloc_shared((64,), "float32")
    B[tx] = T.reinterpret("uint64", S.ptr_to([tx])) - T.reinterpret("uint64", S.data) \\
        + T.cast(T.reinterpret("int64", A.data), "uint64") * T.uint64(0)
    h = C.view("float16")
    h[tx * 2] = T.float16(1.0)
    b = A.view("uint8")
    C[tx] = T.uint32(b[tx * 4])

@T.prim_func
def legacy(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, 4), "float32")
    B = T.match_buffer(b, (n, 4), "float32")
    with T.launch_thread("blockIdx.x", n) as bx, T.launch_thread("threadIdx.x", 4) as tx:
        B[bx, tx] = A[bx, tx] * T.float32(2.0)
"""


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
def test_new_constructs_compile_warning_free(tmp_path):
    result = transpile(NVCC_KERNELS)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    cu = tmp_path / "k.cu"
    cu.write_text(result.cuda)
    done = subprocess.run(["nvcc", "-arch=sm_80", "-std=c++17", "-Werror", "all-warnings", "-c", str(cu),
                           "-o", str(tmp_path / "k.o")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr + result.cuda
