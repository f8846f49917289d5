"""The inline-expectation cases of tests/cuda_helpers/cases/*.tx (format: tests/check/README.md)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.inline_expect import compare, parse
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

CASE_FILES = sorted((Path(__file__).resolve().parent / "cases").glob("*.tx"))


@pytest.mark.parametrize("path", CASE_FILES, ids=lambda p: p.stem)
def test_case_file(path: Path):
    text = path.read_text(encoding="utf-8")
    diagnostics = compile_source(SourceFile(path.name, text), until="check").diagnostics
    missing, unexpected = compare(parse(text), diagnostics)
    assert not missing and not unexpected, (
        [i.describe() for i in missing],
        [f"line {a.line}: # {a.kind} {a.code} @{a.col}: {a.text}" for a in unexpected])
