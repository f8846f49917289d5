"""The error paths of the layout helpers and buffer views: `cases/*.tx` carry their expected
diagnostics inline (tests/check/inline_expect.py's format: code, line and column)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.check.inline_expect import compare, parse
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

CASES = Path(__file__).resolve().parent / "cases"


@pytest.mark.parametrize("path", sorted(CASES.glob("*.tx")), ids=lambda p: p.stem)
def test_case_file(path: Path):
    text = path.read_text(encoding="utf-8")
    diagnostics = compile_source(SourceFile(path.name, text), until="check").diagnostics
    missing, unexpected = compare(parse(text), diagnostics)
    assert not missing and not unexpected, (
        [f"expected, not reported: {i.describe()}" for i in missing] +
        [f"reported, not expected: {a.describe()}" for a in unexpected])
