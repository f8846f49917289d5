"""`tirxc sim --racecheck --synccheck` on clusters (docs/sim.md, "Clusters under the checkers"): the
kernels of tests/sim/kernels/cluster_checks.tx (clusters of two CTAs) each report exactly the
findings their comments name, with both places of a race: a DSMEM store and the other CTA's read
with no cluster barrier between them, or only a relaxed one (E0827), a remote arrive before the
store it should publish (E0827), a store into a CTA before it is known to run (E0842) or after it
may have exited (E0840), a cluster barrier a CTA never reaches (E0839), a remote arrive on a
barrier whose init was not fenced for the cluster (E0841); the correct kernels have none, under
several schedules too. One build of the file serves every test."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.sim.test_checks import expected_findings, findings_of, places
from transpiler import sim

FILE = Path(__file__).resolve().parent / "kernels" / "cluster_checks.tx"
EXPECTED = expected_findings(FILE.read_text())
CHECKED = sim.Options(racecheck=True, synccheck=True, jobs=1)


@pytest.fixture(scope="module")
def module():
    return sim.load(FILE, options=CHECKED, arch="sm_90a")


def _arguments():
    x = np.random.default_rng(27).standard_normal((4, 32)).astype(np.float32)
    return x, np.zeros_like(x)


def _findings(kernel, options=None) -> list:
    return findings_of(kernel, _arguments(), options)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_cluster_kernel_reports_exactly_the_findings_its_comments_name(module, name):
    found = _findings(module.kernels[name])
    assert places(found) == EXPECTED[name], "\n".join(f"{d.code} {d.span.line}: {d.message}" for d in found)


def test_a_race_between_ctas_names_both_blocks():
    from transpiler.sim.findings import diagnostics, Layout

    line = "R E0827 3 4 1 0 0 5 0 5 s 8 -1 r w"  # block 1's read; block 0's write; `mine` element 2
    layout = Layout(image=(), shared=(("mine", 0, 128, 4),), block=(32, 1, 1))
    (race,) = diagnostics([line.split()], [], layout)
    notes = " | ".join(n.message for n in race.notes)
    assert "between the CTAs of a cluster" in race.message
    assert "by block 0, thread (5, 0, 0)" in notes and "block (1, 0, 0)" in notes and "`mine` element 2" in notes


def test_correct_cluster_kernels_have_no_findings_under_other_schedules(module):
    options = sim.Options(racecheck=True, synccheck=True, jobs=1, schedules=3, seed=5)
    for name in ("dsmem_synced", "dsmem_relaxed_fenced", "remote_arrive"):
        x, y = _arguments()
        module.kernels[name](x, y, options=options)
        got = y if name != "remote_arrive" else y[0::2]  # (CTA 0 of each cluster reads what CTA 1 sent)
        want = x[[1, 0, 3, 2]] if name != "remote_arrive" else x[1::2]
        assert np.array_equal(got, want), name
