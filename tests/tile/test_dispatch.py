"""The dispatch frame (transpiler/tile/): what it records, what `tirx info` prints, how it picks. The
CUDA of a lowered call (a commented block) is a case file: tests/tile/cases/dispatch/."""
from __future__ import annotations

import pytest

from transpiler import ir
from transpiler.cli import info
from transpiler.driver import compile_source
from transpiler.sema.check import check
from transpiler.diag.diagnostics import Diagnostics
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile
from transpiler.tile import registry as variants

HEAD = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx

@T.prim_func
def kernel(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (4, 6), "float32")
    B = T.match_buffer(B_ptr, (4, 6), "float32")
    T.device_entry()
    T.cta_id([1])
    lane = T.lane_id([32])
    warp = T.warp_id([4])
    T.thread_id([128])
    S = T.alloc_buffer((4, 6), "float32", scope="shared")
'''


def _source(body: str) -> SourceFile:
    return SourceFile.from_bytes("k.tx", (HEAD + body).encode())[0]


def _calls(body: str) -> list[ir.TileCall]:
    source = _source(body)
    diags = Diagnostics()
    module = check(parse(source, diags), source, diags)
    assert not diags.has_errors, diags.sorted()
    return [s for k in module.kernels for s in ir.all_stmts(k.body) if isinstance(s, ir.TileCall)]


def test_call_records_scope_operands_config_and_guards():
    call, = _calls("    if warp == 1:\n        if lane < 4:\n            Tx.warp.copy(S[0:2, :], A[2:4, :], vec_len=4)\n")
    assert call.op == "copy" and call.scope == "warp" and call.dispatch is None
    dst, src = call.operand("dst"), call.operand("src")
    assert dst.buffer.name == "S" and [e.value for e in dst.extents] == [2, 6]
    assert [e.value for e in src.starts] == [2, 0]
    assert call.option("vec_len") == 4 and call.option("missing", "x") == "x"
    assert [g.level for g in call.threads.guards] == ["warp", "thread"]
    assert [e.value for e in call.threads.block] == [128]


def test_scope_aliases_and_thread_scope():
    calls = _calls("    Tx.wg.copy(S, A)\n    Tx.warpgroup.copy(S, A)\n    Tx.copy(S, A)\n    Tx.thread.copy(S, A)\n")
    assert [c.scope for c in calls] == ["warpgroup", "warpgroup", "thread", "thread"]


def test_select_predicate_is_a_function_of_the_destination_coordinates():
    call, = _calls("    Tx.select(S, A, 0.0, lambda i, j: i * 10 + j < 12)\n")
    pred = call.operand("pred")
    assert isinstance(pred, ir.TileLambda) and len(pred.params) == 2
    i, j = pred.params
    env = {i.name: ir.IntImm(i.dtype, 1), j.name: ir.IntImm(j.dtype, 1)}
    substituted = ir.map_children(pred.body, lambda e: _subst(e, env))
    assert ir.is_const(_subst(substituted, env), 1)


def _subst(e, env):
    if isinstance(e, ir.Var):
        return env.get(e.name, e)
    if e.__class__ in ir.LEAVES:
        return e
    return ir.map_children(e, lambda x: _subst(x, env))


def test_guard_on_non_thread_value_does_not_narrow():
    call, = _calls("    if A[0, 0] > 0.0:\n        Tx.cta.copy(S, A)\n")
    assert call.threads.guards == ()


def test_info_lists_each_call_with_variant_and_reasons():
    result = compile_source(_source("    Tx.cta.copy(S, A)\n"))
    call, = info.report(result.program)["kernels"][0]["tile_calls"]
    assert (call["line"], call["col"], call["call"], call["operands"]) == (14, 5, "Tx.cta.copy", "S, A")
    chosen = [v for v in variants.VARIANTS["copy"] if v.name == call["variant"]][0]
    assert call["why"] == ("; ".join(c.says for c in chosen.when) or "applies to every call")
    text = info.render_text(info.report(result.program))
    assert f"line 14: Tx.cta.copy(S, A) -> {call['variant']}" in text


def test_forced_variant_is_the_only_one_tried():
    result = compile_source(_source("    Tx.cta.copy(S, A, dispatch=\"fallback\")\n"))
    assert not result.diagnostics
    record, = result.program.kernels[0].tile_dispatch
    assert record.variant == "fallback" and record.rejected == ()


def test_variants_are_tried_by_priority_then_name():
    for op, cases in variants.VARIANTS.items():
        keys = [(-v.priority, v.name) for v in cases]
        assert keys == sorted(keys), op


def test_duplicate_variant_names_are_refused():
    with pytest.raises(AssertionError):
        variants.variant("copy", "fallback")(lambda call, cx: None)
