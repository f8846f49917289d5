"""The diagnostic code table: every code the checker reports is explained."""
from __future__ import annotations

import re
from pathlib import Path

from transpiler.diag.codes import CODES
from transpiler.diag.diagnostics import explain

SOURCES = sorted((Path(__file__).resolve().parents[2] / "transpiler").rglob("*.py"))
CODE = re.compile(r"[\"']([EW]\d{4})[\"']")


def test_every_reported_code_is_in_the_table():
    used = {(path.name, code) for path in SOURCES for code in CODE.findall(path.read_text(encoding="utf-8"))}
    assert [f"{name}: {code}" for name, code in sorted(used) if code not in CODES] == []


def test_every_code_has_a_title_and_an_explanation():
    for code, (title, text) in CODES.items():
        assert re.fullmatch(r"[EW]\d{4}", code)
        assert title and text.endswith((".", ")", "`")), code
        assert explain(code).startswith(f"{code}: {title}")
