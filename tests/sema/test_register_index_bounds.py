"""A register array indexed by a run-time value (transpiler/sema/memory/register_bounds.py): an
index whose values surely leave the extent is an error (E0528), one that only may is a warning
(W0507), and an index kept inside by a loop bound, a test, a `%` or an early `return` is silent."""
from __future__ import annotations

import pytest

from tests.conftest import transpile

HEAD = '''from tvm.script import tirx as T

@T.prim_func
def kernel(A_ptr: T.handle, n: T.int32):
    A = T.match_buffer(A_ptr, (256,), "float32")
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([256])
    R = T.alloc_buffer((8,), "float32", scope="local")
    for i in range(8):
        R[i] = A[i]
'''


def _codes(body: str):
    result = transpile(HEAD + body)
    return [(d.severity, d.code) for d in result.diagnostics], result


@pytest.mark.parametrize("body", [
    "    A[tx] = R[tx]\n",                                        # a thread id over the block
    "    for j in range(4):\n        R[j * 3] = 1.0\n",            # a loop variable, scaled
    "    for j in range(9):\n        R[j] = 1.0\n",                # one iteration too many
    "    lane: T.let = tx % 32\n    A[tx] = R[lane]\n",            # through a T.let
    "    if tx < 16:\n        A[tx] = R[tx]\n",                    # a test that keeps too much
    "    for j in range(2):\n        A[tx] = R[tx // 32 + j]\n",    # a sum of independent values
    "    A[tx] = R[tx % 16 - 8]\n",                                # below zero
])
def test_an_index_that_surely_leaves_the_array_is_an_error(body):
    codes, result = _codes(body)
    assert codes == [("error", "E0528")]
    diag = result.diagnostics[0]
    assert "outside dimension 0 of `R` (extent 8)" in diag.message and "no bounds check" in diag.help


def test_the_error_names_the_value_outside_and_the_range():
    _, result = _codes("    A[tx] = R[tx]\n")
    assert result.diagnostics[0].message.startswith("the index takes the value 255 (its values lie between 0 and 255)")


@pytest.mark.parametrize("body", [
    "    A[tx] = R[tx % 8 + tx % 4]\n",                            # one thread id twice: an upper bound
    "    for j in range(0, 16, 2):\n        R[j // 2 + 1] = 1.0\n",  # a loop with a step
    "    if n > 4:\n        return\n    A[tx] = R[tx // 16]\n",  # after an early return
])
def test_an_index_that_only_may_leave_the_array_is_a_warning(body):
    codes, result = _codes(body)
    assert codes == [("warning", "W0507")]
    assert result.ok


@pytest.mark.parametrize("body", [
    "    A[tx] = R[tx % 8]\n",
    "    A[tx] = R[tx & 7]\n",
    "    A[tx] = R[tx // 32]\n",
    "    if tx < 8:\n        A[tx] = R[tx]\n",
    "    if tx >= 8:\n        return\n    A[tx] = R[tx]\n",
    "    for j in range(16):\n        if j >= 8:\n            break\n        R[j] = 0.0\n",
    "    for j in range(16):\n        if j < 8:\n            R[j] = 0.0\n",
    "    A[tx] = T.if_then_else(tx < 8, R[tx], 0.0)\n",
    "    A[tx] = R[n]\n",                                         # a parameter: no known range
    "    if tx < 8 and n > 0:\n        A[tx] = R[tx]\n",
])
def test_an_index_kept_inside_or_of_unknown_range_is_silent(body):
    codes, _ = _codes(body)
    assert codes == []
