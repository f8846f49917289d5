"""The module's Python as Python runs it (issue 16): `**`, `int.bit_length()`, names rebound at
module level, `global` in a plain helper, `import` inside a helper, annotated module-level
assignments, `...` as a value, `typing`'s names, `and` / `or` decided by a constant before the operand after it. What the kernel computes, run on the host (tests/emit/hostc.py),
equals what Python gives for the same text."""
from __future__ import annotations

import pytest

from tests.conftest import transpile
from tests.emit import hostc

MODULE = """\
P = 2 ** 10 + (-3) ** 3 + 2 ** 0
NEG = int(2 ** -2 * 100)
BITS = (511).bit_length() * 100 + (-8).bit_length() * 10 + (0).bit_length()
ONES = (255).bit_count()
WHOLE = int((2.0).is_integer()) * 10 + int((2.5).is_integer())
SHAPE: tuple[int, ...] = (3, 4)
NOTHING = ...
N = 4
def read_n():
    return N
EARLY = read_n()
N = N + 1
def bump(by):
    global N
    if by:
        N = N * by
    return N
BUMPED = bump(10)
def floor_of(x):
    import math
    from functools import reduce
    return math.floor(x) + reduce(lambda a, b: a * b, (1, 2, 3))
FLOORED = floor_of(2.5)
def twice(x):
    return 2 * x
def twice(x):
    return 3 * x
from typing import Literal, Optional, cast, TYPE_CHECKING
import typing
AbDtype = Literal["fp8", "fp4"]
MAYBE: Optional[int] = cast(int, 3) + int(TYPE_CHECKING) + int(typing.TYPE_CHECKING)
OPT = None
DECIDED = int(OPT is not None and OPT <= 0) + int(OPT is None or OPT <= 0) * 10 + (0 and OPT[0]) * 100
"""

# the expressions stored, in order; the expected values are Python's (test_python_gives_them)
VALUES = ["P", "NEG", "BITS", "ONES", "WHOLE", "SHAPE[0] * 10 + SHAPE[1]", "int(NOTHING is ...)",
          "EARLY", "N", "BUMPED", "read_n()", "FLOORED", "twice(7)", "DECIDED", "MAYBE"]

KERNEL = """\
from tvm.script import tirx as T

%s
@T.prim_func
def k(A_ptr: T.handle, O_ptr: T.handle, F_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4,), "float32")
    O = T.match_buffer(O_ptr, (%d,), "int32")
    F = T.match_buffer(F_ptr, (3,), "float32")
    T.device_entry()
    tx = T.thread_id([1])
%s
    x = A[0]
    x **= 2.0
    F[0] = x
    F[1] = A[1] ** A[2]
    F[2] = T.float32(2.0) ** -1 + A[3] ** 0.5


N = 7


@T.prim_func
def later(O_ptr: T.handle):
    O = T.match_buffer(O_ptr, (1,), "int32")
    T.device_entry()
    tx = T.thread_id([1])
    O[0] = N
"""
A = [3.0, 2.0, 5.0, 16.0]


def kernel_text() -> str:
    stores = "\n".join(f"    O[{i}] = {value}" for i, value in enumerate(VALUES))
    return KERNEL % (MODULE, len(VALUES), stores)


def python_values() -> list:
    namespace: dict = {}
    exec(MODULE, namespace)  # (the test's own text, not a .tx file)
    return [eval(value, namespace) for value in VALUES]


def test_python_gives_them():
    assert python_values() == [1024 - 27 + 1, 25, 900 + 40 + 0, 8, 10, 34, 1, 4, 50, 50, 50, 2 + 6, 21, 10, 3]


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_values(tmp_path):
    result = transpile(kernel_text())
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    out = hostc.run(result.cuda, {"A": A, "O": [0] * len(VALUES), "F": [0.0] * 3}, threads=1, workdir=tmp_path)
    assert out["O"] == python_values()
    # `**` in a kernel is TIRx's power, `powf` over float32
    assert out["F"] == pytest.approx([9.0, 32.0, 0.5 + 4.0], rel=1e-6)


def test_a_kernel_sees_the_names_as_they_were_where_it_is_defined():
    """TVMScript parses a kernel when its decorator runs: `later`, after `N = 7`, sees 7; `k`, before
    it, saw the helper's 50."""
    result = transpile(kernel_text())
    assert result.ok
    later = result.cuda[result.cuda.index("later_kernel"):]
    assert "O_ptr[0] = 7;" in later


@pytest.mark.parametrize("source, expected", [
    ("X = 2 ** 5000", ("E0318", 5, "`**`: the integer would have more than 4096 bits (compile-time integers have at most 4096)")),
    ("X = 0 ** -1", ("E0306", 5, "division by zero: 0 raised to a negative power")),
    ("X = (-8) ** 0.5", ("E0306", 5, "a negative number raised to a fractional power is a complex number")),
    ("X = 10.0 ** 400", ("E0318", 5, "the constant is too large for a float")),
    ("X = (3).real", ("E0306", 5, "`int.real` is not supported yet")),
])
def test_constant_errors(source, expected):
    result = transpile("from tvm.script import tirx as T\n" + source + "\n")
    errors = [(d.code, d.span.line, d.span.col, d.message) for d in result.diagnostics if d.severity == "error"]
    assert errors == [(expected[0], 2, expected[1], expected[2])]



INDEXING = """\
from tvm.script import tirx as T

IDX = [1, 2]
PAIRS = ((0, 1), [1, 0])
_, SWAPPED = PAIRS
COPY = SWAPPED.copy()
COPY.append(5)
PICK = {"first": T.thread_id, "lane": T.lane_id}["first"]
BIGGER = max


@T.prim_func
def k(B_ptr: T.handle, O_ptr: T.handle):
    B = T.match_buffer(B_ptr, (2, 3), "int32")
    O = T.match_buffer(O_ptr, (6,), "int32")
    T.device_entry()
    tx = PICK([1])
    at = (1, 0)
    O[0] = B[at]
    O[1] = B[tuple(IDX)]
    O[2] = B[tuple([tx, 1])]
    O[3] = len(COPY) * 10 + len(SWAPPED)
    O[4] = BIGGER(3, 9)
    B[tuple(reversed(at))] = 7
    O[5] = B[0, 1]
"""


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_tuple_indices_lists_in_tuples_and_functions_as_values(tmp_path):
    """A tuple index is the indices written out (`B[at]` is `B[1, 0]`), as Python passes it to
    `__getitem__`; a list inside a tuple stays a list; a dialect function or builtin may be a
    module-level value."""
    result = transpile(INDEXING)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    out = hostc.run(result.cuda, {"B": [10, 11, 12, 13, 14, 15], "O": [0] * 6}, threads=1, workdir=tmp_path)
    assert out["O"] == [13, 15, 11, 32, 9, 7]


HOST_IF = """\
from tvm.script import tirx as T

WIDE = False


@T.prim_func
def k(A_ptr: T.handle, O_ptr: T.handle):
    if WIDE or len("ab") == 3:
        A = T.match_buffer(A_ptr, (6,), "int32")
    else:
        A = T.match_buffer(A_ptr, (3,), "int32")
    O = T.match_buffer(O_ptr, (1,), "int32")
    T.device_entry()
    tx = T.thread_id([1])
    O[0] = A.shape[0] * 10 + A[2]
"""


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_an_if_on_a_constant_before_device_entry_takes_its_branch(tmp_path):
    """TVMScript evaluates an `if` on a compile-time condition while parsing: only the taken
    branch's `T.match_buffer` binds the parameter (flashinfer's quantizers choose a scale layout so)."""
    result = transpile(HOST_IF)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    out = hostc.run(result.cuda, {"A": [1, 2, 3], "O": [0]}, threads=1, workdir=tmp_path)
    assert out["O"] == [33]


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_builtin_members_compare_by_identity(tmp_path):
    """`SwizzleMode` members (TIRx's Enum) and builtins compare as Python compares them: `==` and `is`
    are identity, so two spellings of one member are equal and two members are not."""
    text = """\
from tvm.script import tirx as T
from tvm.tirx.cuda.tile_primitive.tma_utils import SwizzleMode
import math
M = SwizzleMode.SWIZZLE_128B_ATOM
X = int(M == SwizzleMode.SWIZZLE_128B_ATOM) + int(M is SwizzleMode.SWIZZLE_128B_ATOM) * 10
Y = int(M != SwizzleMode.SWIZZLE_NONE) * 100 + int(math.gcd is math.gcd) * 1000 + int(M == 3) * 10000


@T.prim_func
def k(O: T.Buffer((1,), "int32")):
    T.device_entry()
    tx = T.thread_id([1])
    O[0] = X + Y
"""
    result = transpile(text)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    assert hostc.run(result.cuda, {"O": [0]}, threads=1, workdir=tmp_path)["O"] == [1111]


STDLIB = """\
import copy
import os
from os import environ
M = int(os.environ.get("TIRXC_TEST_M", "64"))
K = int(environ.get("TIRXC_TEST_K", "3")) + int(os.getenv("TIRXC_TEST_UNSET", "1"))
SHAPE = [1, [2, 3]]
DEEP = copy.deepcopy(SHAPE)
DEEP[1].append(4)
SHALLOW = copy.copy(SHAPE)
SHALLOW.append(9)
"""
STDLIB_VALUES = ["M", "K", "len(SHAPE[1]) * 10 + len(DEEP[1])", "len(SHAPE) * 10 + len(SHALLOW)"]


@pytest.mark.skipif(not hostc.available(), reason="g++ or the CUDA headers are missing")
def test_copy_and_the_environment(tmp_path, monkeypatch):
    """`copy.copy` / `copy.deepcopy` copy as Python does; `os.environ.get` / `os.getenv` read the
    environment tirxc runs in (a kernel file's specialization switch), the default without it."""
    monkeypatch.setenv("TIRXC_TEST_M", "128")
    monkeypatch.delenv("TIRXC_TEST_K", raising=False)
    monkeypatch.delenv("TIRXC_TEST_UNSET", raising=False)
    namespace: dict = {}
    exec(STDLIB, namespace)  # (the test's own text, not a .tx file)
    expected = [eval(v, namespace) for v in STDLIB_VALUES]
    assert expected == [128, 4, 23, 23]
    stores = "\n".join(f"    O[{i}] = {v}" for i, v in enumerate(STDLIB_VALUES))
    text = ("from tvm.script import tirx as T\n" + STDLIB + "\n\n@T.prim_func\ndef k(O: T.Buffer((4,), \"int32\")):\n"
            "    T.device_entry()\n    tx = T.thread_id([1])\n" + stores + "\n")
    result = transpile(text)
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    assert hostc.run(result.cuda, {"O": [0] * 4}, threads=1, workdir=tmp_path)["O"] == expected
