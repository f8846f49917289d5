"""The PTX cases: every `tests/ptx/cases/*.tx` file is one behaviour of the `T.ptx` checker or
its helpers, named by it, with its diagnostics inline and, for accepted calls, the CUDA lines
that show the behaviour as CHECK comments (the format: tests/check/case_files.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.case_files import case_files, case_id, check_case_file
from tests.ptx.snippet import FIRST, check

CASES = Path(__file__).resolve().parent / "cases"


@pytest.mark.parametrize("path", case_files(CASES), ids=case_id(CASES))
def test_case_file(path: Path, update_check_cases: bool):
    check_case_file(path, update_check_cases)


def test_snippet_body_starts_where_the_tests_expect():
    """tests/ptx/snippet.py's FIRST is the line of a snippet's first statement."""
    _, errs = check("A[tx] = undefined_name\n")
    assert [e[:2] for e in errs] == [(FIRST, 13)]
