"""Data-driven checker tests: every `tests/check/cases/*.tx` file carries its
expected diagnostics as inline comments (the format: inline_expect.py; the runner:
case_files.py).

    pytest tests/check                          compare
    pytest tests/check --update-check-cases     rewrite the comments from the actual output
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.case_files import case_files, check_case_file
from tests.check.inline_expect import parse

CASES = Path(__file__).resolve().parent / "cases"
CASE_FILES = case_files(CASES)


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.stem)
def test_case_file(path: Path, update_check_cases: bool):
    check_case_file(path, update_check_cases)


def test_there_are_cases():
    assert len(CASE_FILES) >= 10


def test_every_case_file_expects_something():
    for path in CASE_FILES:
        assert parse(path.read_text(encoding="utf-8")), f"{path.name} has no expectations"
