"""Which threads run a tile-primitive call (transpiler/tile/reach.py): a call at a wider scope that
only part of the scope reaches is refused (E0906); a thread-scope copy that every thread runs with
the same operands is warned about (W0901); the legitimate forms stay silent."""
from __future__ import annotations

import pytest

from tests.conftest import transpile

HEAD = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx

@T.prim_func
def kernel(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 32), "float32")
    B = T.match_buffer(B_ptr, (4, 32), "float32")
    T.device_entry()
    bx = T.cta_id([4])
    warp = T.warp_id([8])
    lane = T.lane_id([32])
    tx = T.thread_id([256])
    S = T.alloc_buffer((4, 32), "float32", scope="shared")
'''


def _diags(body: str):
    result = transpile(HEAD + body)
    return [(d.severity, d.code) for d in result.diagnostics], result


@pytest.mark.parametrize("guard", ["if tx < 128:", "if lane == 0:", "if tx % 2 == 0:"])
def test_a_cta_copy_under_a_thread_test_is_refused(guard):
    codes, result = _diags(f"    {guard}\n        Tx.cta.copy(S[0:4, 0:32], A[0:4, 0:32])\n")
    assert codes == [("error", "E0906")]
    diag = result.diagnostics[0]
    assert "only part of its CTA" in diag.message and "thread-level" in diag.message
    assert "move it out of the `if`" in diag.help


def test_a_warp_copy_under_a_lane_test_is_refused_and_under_a_warp_test_is_not():
    codes, _ = _diags("    if lane < 16:\n        Tx.warp.copy(S[0:4, 0:32], A[0:4, 0:32])\n")
    assert codes == [("error", "E0906")]
    codes, _ = _diags("    if warp == 0:\n        Tx.warp.copy(S[0:4, 0:32], A[0:4, 0:32])\n")
    assert codes == []


def test_a_reduction_at_cta_scope_under_a_thread_test_is_refused_by_its_variants():
    codes, _ = _diags("    if tx < 64:\n        Tx.cta.sum(S[0:4, 0:1], S[0:4, 0:32])\n")
    assert codes == [("error", "E0904")]  # its variants refuse it themselves, naming the `if`


def test_a_test_on_a_uniform_value_leaves_the_whole_cta():
    codes, _ = _diags("    if bx < 2:\n        Tx.cta.copy(S[0:4, 0:32], A[0:4, 0:32])\n")
    assert codes == []


def test_a_thread_scope_copy_every_thread_repeats_is_warned_about():
    codes, result = _diags("    Tx.copy(S[0:4, 0:32], A[0:4, 0:32])\n")
    assert codes == [("warning", "W0901")]
    diag = result.diagnostics[0]
    assert "all 256 threads of the CTA" in diag.message and "if tx == 0" in diag.help
    assert result.ok  # a warning: the output is still written


def test_the_repeated_copy_warning_names_the_warps_a_warp_test_keeps():
    codes, result = _diags("    if warp == 1:\n        Tx.copy(B[0:4, 0:32], A[0:4, 0:32])\n")
    assert codes == [("warning", "W0901")]
    assert "every thread of each warp" in result.diagnostics[0].message


def test_a_uniform_loop_variable_and_let_keep_the_operands_the_same():
    body = ("    row: T.let = bx % 4\n"
            "    for i in range(2):\n"
            "        Tx.copy(S[row, i * 16:i * 16 + 16], A[row, i * 16:i * 16 + 16])\n")
    codes, _ = _diags(body)
    assert codes == [("warning", "W0901")]


@pytest.mark.parametrize("body", [
    "    if tx == 0:\n        Tx.copy(S[0:4, 0:32], A[0:4, 0:32])\n",             # one thread
    "    if T.cuda.elect_sync():\n        Tx.copy(S[0:4, 0:32], A[0:4, 0:32])\n",  # one thread per warp
    "    Tx.copy(S[tx // 64, tx % 32:tx % 32 + 1], A[tx // 64, tx % 32:tx % 32 + 1])\n",  # its own element
    "    i: T.let = tx // 64\n    Tx.copy(S[i, 0:32], A[i, 0:32])\n",             # through a let
    "    for r in range(tx // 64, 4, 4):\n        Tx.copy(S[r, 0:32], A[r, 0:32])\n",  # a per-thread loop
    "    R = T.alloc_buffer((32,), \"float32\", scope=\"local\")\n    Tx.copy(R[0:32], A[0, 0:32])\n",
    "    Tx.cta.copy(S[0:4, 0:32], A[0:4, 0:32])\n",                               # the whole CTA shares it
])
def test_the_forms_that_are_meant_stay_silent(body):
    codes, _ = _diags(body)
    assert codes == []
