"""The seeded-bug corpus (docs/sim.md, "Seeded bugs and the mutation score"): the mutants are
made as documented, the harness classifies them (checked here with a stand-in checker, so the
harness is tested before and apart from the real one), a seeded slice of the samples' mutants is
reported by the real checkers, and the new user's softmax is reported with the line of its copy
and of its read.

The slice is TIRXC_MUTANTS mutants (default 1, chosen with a fixed seed among the samples'
mutants the simulator runs; each launch cut to its first SLICE_BLOCKS blocks, one seed);
TIRXC_MUTANTS=all runs the whole corpus (the samples and every kernel the GPU tests run under
sim: `python -m tests.sim.mutants.score --all`). The tests that
need the checkers skip, saying so, while transpiler.sim has none."""
from __future__ import annotations

import ast
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sim.mutants import corpus, score
from tests.sim.mutants.mutate import KINDS, mutants, orders_nothing_after

HERE = Path(__file__).resolve().parent
SOFTMAX = HERE / "new_user_softmax.tx"
COPY_LINE, READ_LINE = 22, 26  # of new_user_softmax.tx: the Tx.cta.copy and the read of `tile`
MISSING = "    # here the barrier is missing\n"
SLICE_BLOCKS = 2  # blocks of each launch the CI slice runs (its races are within a block or two)
NO_CHECKERS = "checkers not available: transpiler.sim has no SimFindings / Options(racecheck=, synccheck=)"


def _softmax(fixed: bool) -> str:
    text = SOFTMAX.read_text(encoding="utf-8")
    assert MISSING in text
    return text.replace(MISSING, "    T.cuda.cta_sync()\n") if fixed else text


def _softmax_launch():
    import numpy as np

    x = np.random.default_rng(27).uniform(-1, 1, (8, 128)).astype(np.float32)
    return corpus.Launch.of("softmax", [x, np.zeros_like(x)])


def test_every_sample_gives_named_mutants_that_parse():
    kinds = set()
    for source in corpus.sample_sources():
        for m in mutants(source.name, source.text):
            kinds.add(m.kind)
            ast.parse(m.text)
            assert m.text != source.text and m.text.count("\n") == source.text.count("\n"), m.ident
            assert m.what in source.text.splitlines()[m.line - 1], m.ident
    assert kinds == set(KINDS)


def test_each_form_of_synchronisation_is_found():
    text = """\
@T.prim_func
def k(A: T.Buffer((4,), "float32")):
    T.cuda.cta_sync()
    T.ptx["bar.sync"](1, 64)
    T.ptx.fence.proxy.async_.shared__cta()
    T.ptx.cp.async_.commit_group()
    T.ptx.cp.async_.wait_group(0)
    while not T.ptx.mbarrier.try_wait(bar, 0):
        pass
    full.wait(stage, phase)
    if A[0] > 0:
        T.cuda.warp_sync()
"""
    found = [(m.line, m.kind) for m in mutants("k.tx", text)]
    assert found == [(3, "barrier"), (4, "barrier"), (5, "fence"), (6, "commit"), (6, "commit_wait"),
                     (7, "wait_group"), (8, "mbarrier_wait"), (8, "phase"), (10, "mbarrier_wait"),
                     (10, "phase"), (12, "barrier")]
    by = {(m.line, m.kind): m.text.splitlines() for m in mutants("k.tx", text)}
    assert by[(12, "barrier")][11] == "        pass"  # the block it leaves is not empty
    assert by[(8, "mbarrier_wait")][7:9] == ["    pass", ""]  # lines keep their numbers
    assert by[(10, "phase")][9] == "    full.wait(stage, (phase) ^ 1)"
    assert orders_nothing_after(text, 12, 9) and not orders_nothing_after(text, 3, 5)


class StandInFindings(RuntimeError):
    def __init__(self, diagnostics):
        super().__init__("stand-in finding")
        self.diagnostics = diagnostics


@pytest.fixture
def stand_in_checker(monkeypatch):
    """transpiler.sim with a stand-in checker: Options takes the checkers' fields, and a launch
    of a kernel without a barrier raises a finding naming the softmax's copy and read."""
    from types import SimpleNamespace

    from transpiler import sim
    from transpiler.sim.launch import SimKernel

    class CheckedOptions(sim.Options):  # the engine's own checkers stay off: the build is the plain one
        def __init__(self, racecheck=False, synccheck=False, schedules=1, **rest):
            super().__init__(**rest)
            self.schedules = schedules

    real, plain = SimKernel.__call__, sim.Options
    state = {"reports": True}

    def checked(kernel, *args, **kwargs):
        kwargs.pop("options", None)
        real(kernel, *args, options=plain(jobs=1), **kwargs)  # the engine's own checkers (if any) off
        if state["reports"] and "\n    T.cuda.cta_sync()\n" not in kernel._module.result.source.text:
            span = lambda line: SimpleNamespace(line=line, col=5)  # noqa: E731
            raise StandInFindings([SimpleNamespace(code="E0821", span=span(READ_LINE),
                                                   notes=(SimpleNamespace(span=span(COPY_LINE)),))])

    monkeypatch.setattr(sim, "SimFindings", StandInFindings, raising=False)
    monkeypatch.setattr(sim, "Options", CheckedOptions)
    monkeypatch.setattr(SimKernel, "__call__", checked)
    return state


def test_harness_counts_a_reported_mutant_as_killed_and_an_unreported_change_as_a_miss(stand_in_checker):
    source = corpus.Source("new_user_softmax fixed", _softmax(fixed=True), [_softmax_launch()])
    checked = score.checkers()
    assert checked is not None and checked[0].schedules == score.SCHEDULES
    [killed] = score.score_source(source, checked)
    assert (killed.kind, killed.status, killed.line) == ("barrier", "killed", 23)
    assert killed.detail == f"E0821 at {READ_LINE}:5, {COPY_LINE}"
    assert score.table([killed], True)["score"] == "1/1 = 100.0 %"
    stand_in_checker["reports"] = False  # the mutant's result changes (it reads poison) but nothing reports it
    [missed] = score.score_source(source, checked)
    assert missed.status == "MISS" and missed.detail == "the outputs differ"
    assert score.table([missed], True)["score"] == "0/1 = 0.0 %"


def test_harness_without_checkers_says_so_and_still_sees_the_change():
    source = corpus.Source("new_user_softmax fixed", _softmax(fixed=True), [_softmax_launch()])
    [changed] = score.score_source(source, None)
    assert changed.status == "changed"
    summary = score.table([changed], False)
    assert summary["score"] == "checkers not available" and summary["by_kind"] == {"barrier": {"changed": 1}}


def test_survivors_are_equivalent_only_with_a_reason():
    text = "@T.prim_func\ndef k():\n    T.cuda.cta_sync()\n    f()\n    T.cuda.cta_sync()\n"
    [first, last] = mutants("k.tx", text)
    same = [("values", b"")]
    assert score._classify(last, corpus.Source("k.tx", text), same, same, True)[0] == "equivalent"
    status, why = score._classify(first, corpus.Source("k.tx", text), same, same, True)
    assert status == "survived" and "no recorded reason" in why


def _real_checkers():
    checked = score.checkers()
    if checked is None:
        pytest.skip(NO_CHECKERS)
    return checked


def test_new_user_softmax_is_reported_with_the_copy_and_the_read():
    import numpy as np

    from transpiler import sim
    from transpiler.syntax.source import SourceFile

    options, findings = _real_checkers()
    launch = _softmax_launch()
    module = sim.load_source(SourceFile("new_user_softmax.tx", _softmax(fixed=False)), options=options)
    with pytest.raises(findings) as caught:
        module.softmax(*launch.arguments())
    lines = set()
    for d in caught.value.diagnostics:
        lines |= {d.span.line} | {n.span.line for n in d.notes if getattr(n, "span", None) is not None}
    assert {COPY_LINE, READ_LINE} <= lines, [str(d.message) for d in caught.value.diagnostics]
    fixed = sim.load_source(SourceFile("new_user_softmax.tx", _softmax(fixed=True)), options=options)
    x, y = launch.arguments()
    fixed.softmax(x, y)  # no finding
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def _apart_in_the_last_run() -> set:
    """The mutants the last full run (bench/results/) counted apart (not simulated ...): the slice
    skips them without transpiling their originals again."""
    results = corpus.ROOT / "bench" / "results"
    found = set()
    for path in sorted(results.glob("mutants*.json")):
        found |= {m["ident"] for m in json.loads(path.read_text(encoding="utf-8"))["mutants"]
                  if m["status"] in score.APART}
    return found


def test_a_seeded_slice_of_the_mutants_is_reported(tmp_path):
    setting = os.environ.get("TIRXC_MUTANTS", "1")
    _real_checkers()
    if setting == "all":
        report = tmp_path / "score.json"
        done = subprocess.run([sys.executable, "-m", "tests.sim.mutants.score", "--all", "--json", str(report)],
                              cwd=corpus.ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        wrong = [m for m in json.loads(report.read_text())["mutants"]
                 if m["status"] in ("MISS", "survived", "original reported")]
        assert not wrong, "\n".join(f"{m['status']}: {m['ident']} ({m['what']}): {m['detail']}" for m in wrong)
        return
    apart = _apart_in_the_last_run()
    pool = [(s, m.ident) for s in corpus.sample_sources() for m in mutants(s.name, s.text) if m.ident not in apart]
    random.Random(27).shuffle(pool)
    outcomes, refused = [], set()
    for source, ident in pool:  # the first mutants, in this order, of kernels the simulator runs
        if len(outcomes) == int(setting):
            break
        if source.name not in refused:
            [got] = score.score_source(source, score.checkers(SLICE_BLOCKS), seeds=(0,),
                                       select=lambda m, ident=ident: m.ident == ident)
            if got.status == "not simulated":
                refused.add(source.name)
            else:
                outcomes.append(got)
    wrong = [o for o in outcomes if o.status in ("MISS", "survived", "original reported")]
    assert not wrong, "\n".join(f"{o.status}: {o.ident} ({o.what}): {o.detail}" for o in wrong)


def test_a_seeded_slice_of_the_cluster_kernels_mutants_is_reported():
    """The kernels that launch clusters: TIRXC_CLUSTER_MUTANTS mutants (default 1) of the small
    cluster kernels (corpus.SMALL_CLUSTER_KERNELS, launched with sim's own arguments, one cluster);
    `score --clusters` scores them all with the cluster samples and GPU tests (docs/sim.md)."""
    count = int(os.environ.get("TIRXC_CLUSTER_MUTANTS", "1"))
    _real_checkers()
    pool = []
    for name in corpus.SMALL_CLUSTER_KERNELS:
        source = corpus.Source(name, (corpus.ROOT / name).read_text(encoding="utf-8"))
        assert corpus.launches_clusters(source.text), name
        pool += [(source, m.ident) for m in mutants(source.name, source.text)]
    random.Random(27).shuffle(pool)
    outcomes = []
    for source, ident in pool[:count]:
        [got] = score.score_source(source, score.checkers(SLICE_BLOCKS), seeds=(0,),
                                   select=lambda m, ident=ident: m.ident == ident)
        outcomes.append(got)
    wrong = [o for o in outcomes if o.status not in ("killed", "equivalent")]
    assert not wrong, "\n".join(f"{o.status}: {o.ident} ({o.what}): {o.detail}" for o in wrong)
