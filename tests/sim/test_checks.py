"""`tirxc sim --racecheck --synccheck` (docs/sim.md, "Race checking", "Barrier protocols") on the
hand-written racy and correct kernels of tests/sim/kernels/checks.tx: each kernel's findings are
exactly the ones its comments name (`# finding CODE` on the line a finding is at, `# earlier
CODE` on the earlier access of a race), with both places of a race; the correct kernels have
none, under several schedules too. One build of the file serves every test."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tests.sim.test_cli_sim import tirxc
from transpiler import sim

FILE = Path(__file__).resolve().parent / "kernels" / "checks.tx"
TEXT = FILE.read_text()
CHECKED = sim.Options(racecheck=True, synccheck=True, jobs=1)


def expected_findings(text: str) -> dict[str, set]:
    """kernel -> {(code, line)} from a file's `# finding` / `# earlier` comments."""
    out, kernel = {}, None
    for number, line in enumerate(text.splitlines(), 1):
        head = re.match(r"def (\w+)\(", line)
        if head:
            kernel = head.group(1)
            out[kernel] = set()
        mark = re.search(r"# (?:finding|earlier) (E08\d\d)", line)
        if mark and kernel:
            out[kernel].add((mark.group(1), number))
    return out


EXPECTED = expected_findings(TEXT)


@pytest.fixture(scope="module")
def module():
    return sim.load(FILE, options=CHECKED)


def _arguments():
    rng = np.random.default_rng(27)
    return rng.standard_normal((2, 128)).astype(np.float32), np.zeros((2, 128), np.float32)


def places(diagnostics) -> set:
    """(code, line) of each finding and of each place its notes name."""
    out = set()
    for d in diagnostics:
        out.add((d.code, d.span.line))
        out |= {(d.code, n.span.line) for n in d.notes if n.span is not None and n.span.line > 0}
    return out


def findings_of(kernel, arguments, options=None) -> list:
    """The checkers' findings of one checked run of kernel (none when it passes)."""
    try:
        kernel(*arguments, options=options)
    except sim.SimFindings as found:
        return found.diagnostics
    return []


def _findings(kernel, options=None) -> list:
    return findings_of(kernel, _arguments(), options)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_kernel_reports_exactly_the_findings_its_comments_name(module, name):
    found = _findings(module.kernels[name])
    assert places(found) == EXPECTED[name], "\n".join(f"{d.code} {d.span.line}: {d.message}" for d in found)


def test_a_race_names_both_places_the_threads_and_the_element(module):
    (race,) = _findings(module.kernels["softmax_unsynced"])
    assert race.code == "E0820" and "data race on shared memory" in race.message
    notes = " | ".join(n.message for n in race.notes)
    assert "(warp 0, lane" in notes and "`tile` element" in notes and "block (0, 0, 0)" in notes
    assert {race.span.line, race.notes[0].span.line} == {19, 20}  # the copy's line and the read's


def test_correct_kernels_have_no_findings_under_other_schedules(module):
    options = sim.Options(racecheck=True, synccheck=True, jobs=1, schedules=3, seed=5)
    for name in ("softmax_synced", "mbarrier_message", "cp_async_waited"):
        x, y = _arguments()
        module.kernels[name](x, y, options=options)
        assert np.array_equal(y[:, :64], x[:, 63::-1]) or name == "softmax_synced"  # what thread order computes


def test_without_checks_the_racy_kernel_just_runs(module):
    x, y = _arguments()
    module.kernels["softmax_unsynced"](x, y, options=sim.Options())
    assert np.isfinite(y).all()


def test_the_command_prints_findings_as_diagnostics_and_exits_1():
    done = tirxc("sim", FILE, "--kernel", "softmax_unsynced", "--racecheck", "--synccheck")
    assert done.returncode == 1, done.stderr
    assert "error[E0820]" in done.stderr and "checks.tx:20:" in done.stderr and "checks.tx:19:" in done.stderr
    assert done.stderr.count("error[E0820]") == 1
