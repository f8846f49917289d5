"""A step the parser takes often has its reductions compiled into one function
(transpiler/syntax/replay.py): the tree and the diagnostics must be those of the
reducers run one by one, broken statements (rolled back) included."""
from __future__ import annotations

from pathlib import Path

import pytest

from transpiler.diag.diagnostics import Diagnostics
from transpiler.syntax import ast, grammar, replay
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent.parent
BROKEN = """\
from tvm.script import tirx as T

@T.prim_func
def k(A: T.Buffer((8,), "float32")):
    T.device_entry()
    x = A[0] +
    A[1] = A[2] * (3
    A[4] = [5, 6][0]
    A[7] = f(a=1, a=2)
    for i in T.serial(3):
        A[i] = A[i] + 1.0
"""


def _parsed(texts, compile_after: int, monkeypatch):
    monkeypatch.setattr(replay, "COMPILE_AFTER", compile_after)
    grammar.compiled_grammar.cache_clear()
    try:
        out = []
        for name, text in texts:
            diags = Diagnostics()
            module = parse(SourceFile(name, text), diags)
            out.append((None if module is None else ast.dump(module),
                        [(d.code, d.message, d.span) for d in diags.items]))
        return out
    finally:
        grammar.compiled_grammar.cache_clear()


@pytest.mark.parametrize("sample", ["gemm_tx_hopper", "attention_hopper", "sgemm_tiled"])
def test_compiled_steps_build_the_same_tree(sample, monkeypatch):
    texts = [(sample, (ROOT / "samples" / f"{sample}.tx").read_text(encoding="utf-8")),
             ("broken.tx", BROKEN * 3)]
    assert _parsed(texts, 1, monkeypatch) == _parsed(texts, 10 ** 9, monkeypatch)
