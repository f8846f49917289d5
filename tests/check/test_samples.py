"""Positive tests: every sample checks clean, with neither errors nor warnings."""
from __future__ import annotations

from pathlib import Path

import pytest

from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

SAMPLES = sorted((Path(__file__).resolve().parents[2] / "samples").glob("*.tx"))


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_sample_checks_clean(path: Path):
    result = compile_source(SourceFile(path.name, path.read_text(encoding="utf-8")), until="check")
    assert [f"{d.span}: {d.code} {d.message}" for d in result.diagnostics] == []
    assert result.ok
