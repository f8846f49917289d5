"""Differential fuzzing of integer semantics: random expressions, mostly on 8- and
16-bit integers (tests/fuzz/arith.py), compiled by tirxc, run on the host by the
oracle (tests/hostrun/oracle.py), compared with TIRx's reference values -- loaded
from buffers and folded from constants alike. CI runs a fixed slice of seeds in one
batch (a few seconds); TIRXC_FUZZ_EXAMPLES=N runs N expressions. A failure is
shrunk (subtrees replaced by their operands, in batches) before it is reported.
"""
from __future__ import annotations

import os

import pytest

from tests.hostrun import oracle
from tests.hostrun.kernels import Probe, check_probes, explain
from tests.hostrun.reference import Expr, Lit

from .arith import probe_from_seed

EXAMPLES = int(os.environ.get("TIRXC_FUZZ_EXAMPLES", "0") or 0)
CI_PROBES = 60
BATCH = 200

pytestmark = pytest.mark.skipif(not oracle.available(), reason="g++ is not on PATH")


def _replacements(e: Expr):
    """Trees one step smaller: each operand of each node in place of the node."""
    kids = [c for c in e.children() if not isinstance(c, Lit) and c.dtype == e.dtype]
    yield from kids
    for i, child in enumerate(e.children()):
        for smaller in _replacements(child):
            yield _substitute(e, child, smaller)


def _substitute(e: Expr, old: Expr, new: Expr) -> Expr:
    import copy
    clone = copy.copy(e)
    for field in ("a", "b", "cond"):
        if getattr(clone, field, None) is old:
            setattr(clone, field, new)
    if getattr(clone, "more", None):
        clone.more = tuple((op, new if x is old else x) for op, x in clone.more)
    return clone


def shrink(probe: Probe, verdict, rounds: int = 6):
    """A smaller probe that still fails (one batch of candidates per round)."""
    for _ in range(rounds):
        candidates = []
        for smaller in _replacements(probe.expr):
            if smaller.dtype != probe.expr.dtype and probe.expr.dtype != "bool":
                continue
            candidates.append(Probe(probe.name, smaller, probe.rows, probe.counter_init, probe.may_reject))
        if not candidates:
            break
        failing = [v for v in check_probes(candidates[:60]) if v.problem is not None]
        if not failing:
            break
        verdict = min(failing, key=lambda v: len(v.source))
        probe = verdict.probe
    return probe, verdict


def failures(seeds: list[str]) -> list:
    out = []
    for start in range(0, len(seeds), BATCH):
        probes = [probe_from_seed(s) for s in seeds[start:start + BATCH]]
        out += [v for v in check_probes(probes) if v.problem is not None]
    return out


def _run(seeds: list[str]):
    failed = failures(seeds)
    if failed:
        first = failed[0]
        _, small = shrink(first.probe, first)
        names = sorted({f"{v.probe.name} ({v.variant})" for v in failed})
        pytest.fail(f"{len(names)} of {2 * len(seeds)} kernels disagree with TIRx semantics: {', '.join(names[:12])}"
                    f"{' ...' if len(names) > 12 else ''}\nthe first, shrunk: {explain(small)}")


def test_random_integer_expressions_match_the_reference():
    _run([f"ci:{i}" for i in range(EXAMPLES or CI_PROBES)])
