"""tcgen05.fence::before_thread_sync / ::after_thread_sync under `tirxc sim --racecheck` (docs/sim.md,
"Tensor memory"): a thread sync orders the tcgen05 operations of two threads only with the
before fence after the first and the after fence before the second. samples/tmem_manual.tx has
none (it is in the zero-findings runs); with both of its fences deleted (one build), the other
warps' tcgen05.st after the alloc and warp 0's dealloc after the other warps' tcgen05.ld are each
E0828, naming both lines."""
from __future__ import annotations

import numpy as np

from tests.conftest import SAMPLES
from transpiler import sim
from transpiler.syntax.source import SourceFile

AFTER_ALLOC, BEFORE_DEALLOC = 28, 41  # the fences of samples/tmem_manual.tx
ALLOC, STORE, LOAD, DEALLOC = 26, 35, 37, 45


def test_deleted_tcgen05_fences_are_reported_with_both_operations():
    lines = (SAMPLES / "tmem_manual.tx").read_text().splitlines()
    for number in (AFTER_ALLOC, BEFORE_DEALLOC):
        assert "tcgen05.fence" in lines[number - 1]
        lines[number - 1] = lines[number - 1][: len(lines[number - 1]) - len(lines[number - 1].lstrip())] + "pass"
    module = sim.load_source(SourceFile("tmem_manual.tx", "\n".join(lines) + "\n"), arch="sm_100a",
                             options=sim.Options(racecheck=True, synccheck=True, jobs=1))
    a = np.arange(128 * 8, dtype=np.uint32).reshape(128, 8)
    try:
        module.tmem_roundtrip(a, np.zeros_like(a))
        found = []
    except sim.SimFindings as findings:
        found = findings.diagnostics
    pairs = {(d.code, frozenset({d.span.line} | {n.span.line for n in d.notes if n.span is not None and n.span.line > 0}))
             for d in found}
    assert {code for code, _ in pairs} == {"E0828"}, [f"{d.code} {d.span.line}: {d.message}" for d in found]
    assert ("E0828", frozenset({ALLOC, STORE})) in pairs and ("E0828", frozenset({LOAD, DEALLOC})) in pairs, pairs
