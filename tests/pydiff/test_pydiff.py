"""The CI slice of the differential tester: 200 programs of a fixed seed (about 20 s), each
computed by CPython and by tirxc (tests/pydiff/harness.py).

Every signature the slice shows outside the refusals by name ("not supported") is listed in
KNOWN_FAILURES with what it is; the list is empty, as the evaluator agrees with CPython on the
slice. The test fails when a signature appears that is not listed (a new difference or wrong
error) and when a listed one no longer appears (it was fixed: delete its entry, so that the
list only ever shrinks)."""
from __future__ import annotations

import pytest

from . import campaign

SEED = 26
PROGRAMS = 200

# signature -> what differs (a value, or an error on a program CPython runs)
KNOWN_FAILURES: dict[str, str] = {}


@pytest.fixture(scope="module")
def slice_signatures() -> dict[str, int]:
    outcomes, signatures, hidden, probes = campaign.campaign(PROGRAMS, SEED)
    assert outcomes["invalid"] == 0, "the harness failed on a generated program"
    return {s: count for s, (count, first) in signatures.items() if not s.startswith("refused")}


def test_no_new_difference(slice_signatures):
    new = sorted(set(slice_signatures) - set(KNOWN_FAILURES))
    assert not new, ("new differences between tirxc's evaluator and CPython (run `python -m "
                     "tests.pydiff.campaign --programs 200 --seed 26` for minimised examples):\n  " + "\n  ".join(new))


def test_known_failures_still_fail(slice_signatures):
    gone = sorted(set(KNOWN_FAILURES) - set(slice_signatures))
    assert not gone, "fixed (delete these from KNOWN_FAILURES):\n  " + "\n  ".join(gone)
