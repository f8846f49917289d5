"""Data-driven checker tests: every `tests/check/cases/*.tx` file carries its
expected diagnostics as inline comments (see inline_expect.py for the format).

    pytest tests/check                          compare
    pytest tests/check --update-check-cases     rewrite the comments from the actual output
"""
from __future__ import annotations

from pathlib import Path

import pytest

from inline_expect import compare, parse, rewrite
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

CASES = Path(__file__).resolve().parent / "cases"
CASE_FILES = sorted(CASES.glob("*.tx"))


def check(path: Path, text: str):
    return compile_source(SourceFile(path.name, text), until="check").diagnostics


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.stem)
def test_case_file(path: Path, update_check_cases: bool):
    text = path.read_text(encoding="utf-8")
    expected = parse(text)
    diagnostics = check(path, text)
    if update_check_cases:
        new = rewrite(text, diagnostics)
        if new != text:
            path.write_text(new, encoding="utf-8")
        return
    missing, unexpected = compare(expected, diagnostics)
    if missing or unexpected:
        report = [f"{path.name}: the checker's diagnostics differ from the inline expectations"]
        report += ["  expected, not reported:"] + [f"    {i.describe()}" for i in missing] if missing else []
        if unexpected:
            report.append("  reported, not expected:")
            for a in unexpected:
                at = f" @{a.col}" if a.col is not None else ""
                report.append(f"    line {a.line}: # {a.kind} {a.code}{at}: {a.text}")
        report.append("  (after a deliberate change: pytest tests/check --update-check-cases, then review the diff)")
        pytest.fail("\n".join(report), pytrace=False)


def test_there_are_cases():
    assert len(CASE_FILES) >= 10


def test_every_case_file_expects_something():
    for path in CASE_FILES:
        assert parse(path.read_text(encoding="utf-8")), f"{path.name} has no expectations"
