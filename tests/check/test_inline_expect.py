"""The inline-expectation format of the case files (inline_expect.py)."""
from __future__ import annotations

import pytest

from tests.check.inline_expect import CaseFileError, Item, compare, parse, rewrite, shorten
from transpiler.diag.diagnostics import Diagnostic, Note
from transpiler.syntax.source import Span


def span(line: int, col: int) -> Span:
    return Span("t.tx", line, col, line, col + 1)


def diag(line, col, code="E0300", message="unknown name `x`", notes=(), help=None, severity="error"):
    return Diagnostic(code, severity, message, span(line, col), tuple(notes), help)


def test_items_on_one_line():
    text = "x = y  # error E0300 @5: unknown name  # help E0300: did you mean\nz = 1  # note @1: first"
    assert parse(text) == [Item("error", 1, 5, "E0300", "unknown name"), Item("help", 1, None, "E0300", "did you mean"),
                           Item("note", 2, 1, None, "first")]


@pytest.mark.parametrize("line", ["x = 1  # error @5: no code", "x = 1  # error E0300: no column",
                                  "x = 1  # note E0300 @3:", "x = 1  # help E0300 @3: help has no column",
                                  "x = 1  # error: what"])
def test_malformed_expectations_are_errors(line):
    with pytest.raises(CaseFileError):
        parse(line)


def test_ordinary_comments_are_not_expectations():
    assert parse("# an ordinary comment\nx = 1  # the error is elsewhere\n") == []


def test_compare_sets_notes_and_helps():
    d = diag(1, 5, notes=[Note("first bound here", span(3, 2))], help="did you mean `y`?")
    ok = [Item("error", 1, 5, "E0300", "unknown"), Item("note", 3, 2, None, "first"),
          Item("help", 1, None, "E0300", "`y`")]
    assert compare(ok, [d]) == ([], [])
    missing, unexpected = compare(ok[:1], [d])  # the note is reported but not expected
    assert missing == [] and [a.kind for a in unexpected] == ["note"]
    missing, unexpected = compare(ok + [Item("help", 1, None, None, "`z`")], [d])
    assert missing == [Item("help", 1, None, None, "`z`")] and unexpected == []
    missing, unexpected = compare([Item("error", 1, 6, "E0300", "unknown")], [d])
    assert len(missing) == 1 and [a.col for a in unexpected] == [5, 2]


def test_rewrite_keeps_reviewed_fragments_and_helps():
    text = "x = y  # error E0300 @5: unknown  # help E0300: did you\nz = w\n"
    out = rewrite(text, [diag(1, 5, help="did you mean `q`?"), diag(2, 5, message="unknown name `w`")])
    assert out == "x = y  # error E0300 @5: unknown  # help E0300: did you\nz = w  # error E0300 @5: unknown name `w`\n"
    assert rewrite(out, []) == "x = y\nz = w\n"


def test_shorten_cuts_at_a_word():
    assert shorten("a b c", 10) == "a b c"
    assert shorten("the view ends at byte 516, past the end of `arena`", 30) == "the view ends at byte 516,"
