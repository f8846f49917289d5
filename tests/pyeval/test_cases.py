"""Data-driven tests of the Python level's diagnostics: every `tests/pyeval/cases/*.tx` and
`tests/classes/cases/*.tx` file
carries its expected diagnostics as inline comments, in the format of tests/check
(tests/check/inline_expect.py). To rewrite the comments after a deliberate change:

    .venv/bin/python tests/pyeval/test_cases.py     (then review the diff)
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "check"))
from inline_expect import compare, parse, rewrite  # noqa: E402
from transpiler.driver import compile_source  # noqa: E402
from transpiler.syntax.source import SourceFile  # noqa: E402

CASES = Path(__file__).resolve().parent / "cases"
# the Python level's cases, and those of classes and tirxc's library (tests/classes/cases)
CASE_FILES = sorted(CASES.glob("*.tx")) + sorted((CASES.parent.parent / "classes" / "cases").glob("*.tx"))


def check(path: Path, text: str):
    return compile_source(SourceFile(path.name, text), until="check").diagnostics


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: f"{p.parent.parent.name}-{p.stem}")
def test_case_file(path: Path):
    text = path.read_text(encoding="utf-8")
    missing, unexpected = compare(parse(text), check(path, text))
    assert not missing, [i.describe() for i in missing]
    assert not unexpected, [(a.line, a.kind, a.code, a.col, a.text) for a in unexpected]


def test_every_case_file_expects_something():
    assert CASE_FILES
    for path in CASE_FILES:
        assert parse(path.read_text(encoding="utf-8")), f"{path.name} has no expectations"


if __name__ == "__main__":
    for path in CASE_FILES:
        text = path.read_text(encoding="utf-8")
        new = rewrite(text, check(path, text))
        if new != text:
            path.write_text(new, encoding="utf-8")
            print("rewrote", path.name)
