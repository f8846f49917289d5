"""E0904 (no variant takes a tile call): one note per variant naming the operand or layout it
refused, and a help naming the variant that came closest (the most of its conditions met, in
order) with the condition it still needs (transpiler/tile/explain.py)."""
from __future__ import annotations

from tests.conftest import transpile

HEAD = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx

@T.prim_func
def kernel(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 6), "float32")
    B = T.match_buffer(B_ptr, (4, 6), "float32")
    T.device_entry()
    T.cta_id([1])
    lane = T.lane_id([32])
    T.thread_id([32])
    S = T.alloc_buffer((4, 6), "float32", scope="shared")
    H = T.alloc_buffer((4, 6), "float16", scope="shared")
'''


def _e0904(body: str, **options):
    result = transpile(HEAD + body, **options)
    found = [d for d in result.diagnostics if d.code == "E0904"]
    assert len(found) == 1, result.diagnostics
    return found[0]


def test_each_variants_note_names_the_operands_it_refused():
    diag = _e0904("    Tx.warp.copy(B[0:2, :], S[0:3, 0:6])\n")
    assert [n.message for n in diag.notes] == [
        f"variant `{name}`: dst has extents (2, 6) and src (3, 6)" for name in ("gmem_smem", "ldstmatrix", "reg",
                                                                              "fallback")]


def test_the_help_names_the_closest_variant_and_the_condition_it_needs():
    diag = _e0904("    Tx.warp.copy(B[0:2, :], S[0:3, 0:6])\n")
    assert diag.help.startswith("`gmem_smem` came closest; it applies when dst and src have the same dtype and the "
                                "same non-unit extents")
    assert diag.help.endswith("docs/tile-primitives.md, ## copy, lists each variant's conditions")


def test_a_dtype_mismatch_is_the_condition_the_help_names():
    diag = _e0904("    Tx.warp.copy(H, S)\n")
    assert "dst is float16 and src is float32" in diag.notes[0].message
    assert "it applies when dst and src have the same dtype" in diag.help


def test_a_call_under_a_thread_test_is_told_to_leave_the_if():
    diag = _e0904("    if lane < 4:\n        Tx.warp.exp(S, S)\n")
    assert all("an enclosing `if` depends on thread-level ids" in n.message for n in diag.notes)
    assert "only part of the warp" in diag.help and "move the call out of it" in diag.help
    assert "## elementwise" in diag.help


def test_the_help_points_at_the_section_of_the_ops_family():
    diag = _e0904("    Tx.warp.sum(B[0:4, 0:1], S)\n")
    assert "## reductions" in diag.help
