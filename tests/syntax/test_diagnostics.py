"""The diagnostic renderer: `FILE:LINE:COL: error[CODE]: message`, the source
line with carets under the span, notes and help, colour rules, --explain text."""
from __future__ import annotations

import io

import pytest

from transpiler.diag.codes import CODES
from transpiler.diag.diagnostics import Diagnostic, Diagnostics, Note, Renderer, explain, use_colour
from transpiler.syntax.source import SourceFile, Span

from ._util import parse_text


def render(text: str, colour: bool = False) -> str:
    _, diags = parse_text(text)
    return Renderer(SourceFile("t.tx", text), colour=colour).render_all(diags)


def one(text: str, code: str, message: str, line: int, col: int, end_line: int, end_col: int,
        notes=(), help=None) -> str:
    source = SourceFile("t.tx", text)
    diag = Diagnostic(code, "error", message, Span("t.tx", line, col, end_line, end_col), tuple(notes), help)
    return Renderer(source).render(diag)


def test_full_layout_of_a_syntax_error():
    assert render("x = 1\nif x = 1:\n    pass\n") == (
        "t.tx:2:6: error[E0100]: unexpected '=': assignment is a statement, not part of an expression\n"
        "  |\n"
        "2 | if x = 1:\n"
        "  |      ^\n"
        "  = help: did you mean `==`?\n"
        "\n"
        "t.tx: 1 error generated\n")


def test_underline_covers_the_whole_span():
    out = render("x = 0777 + 1\n")
    assert "1 | x = 0777 + 1\n  |     ^^^^\n" in out


def test_caret_after_the_end_of_the_line_where_something_is_missing():
    out = render("for i in range(3)\n    pass\n")
    assert "1 | for i in range(3)\n  |                  ^\n" in out


def test_note_with_its_own_snippet_and_help():
    out = render("x = [a,\n     (b}]\n")
    assert out == (
        "t.tx:2:8: error[E0104]: closing '}' does not match '('\n"
        "  |\n"
        "2 |      (b}]\n"
        "  |        ^\n"
        "t.tx:2:6: note: '(' opened here\n"
        "  |\n"
        "2 |      (b}]\n"
        "  |      ^\n"
        "  = help: write ')' here\n"
        "\n"
        "t.tx: 1 error generated\n")


def test_note_without_a_span():
    out = one("x = 1\n", "E0100", "problem", 1, 1, 1, 2, notes=[Note("some context")])
    assert out.splitlines()[-1] == "  = note: some context"


def test_several_errors_are_separated_and_counted():
    out = render("x = = 1\ny = $\n")
    assert out.count("error[") == 2
    assert "\n\nt.tx:2:5: error[E0101]" in out
    assert out.endswith("t.tx: 2 errors generated\n")


def test_warnings_are_counted_separately():
    source = SourceFile("t.tx", "x = 1\n")
    diags = [Diagnostic("E0100", "error", "bad", Span("t.tx", 1, 1, 1, 2)),
             Diagnostic("W0002", "warning", "unused", Span("t.tx", 1, 5, 1, 6))]
    out = Renderer(source).render_all(diags)
    assert "t.tx:1:5: warning[W0002]: unused" in out
    assert out.endswith("t.tx: 1 error and 1 warning generated\n")


def test_wide_gutter_for_long_line_numbers():
    text = "\n" * 11 + "x = $\n"
    assert "   |\n12 | x = $\n   |     ^\n" in render(text)


def test_multi_line_span_is_underlined_to_the_end_of_its_first_line():
    out = one("x = f(a,\n      b)\n", "E0100", "call", 1, 5, 2, 9)
    assert out.splitlines()[2:4] == ["1 | x = f(a,", "  |     ^^^^"]


def test_tabs_are_shown_as_one_space_so_carets_stay_aligned():
    out = render("if a:\n\tx = $\n")
    assert "2 |  x = $\n  |      ^\n" in out


def test_wide_characters_take_two_cells():
    out = render("s = '中文' + $\n")
    assert "1 | s = '中文' + $\n  |              ^\n" in out


def test_control_and_format_characters_cannot_reach_the_terminal():
    out = render("x = 1 \x1b[2J\n")
    assert "\x1b" not in out
    assert "1 | x = 1 \ufffd[2J\n  |       ^\n" in out
    out = render("x = 1 \u202e+ 2\n")
    assert "\u202e" not in out


def test_long_lines_show_a_window_around_the_span():
    text = "x = " + "a + " * 200 + "$ + " + "b + " * 200 + "c\n"
    out = render(text)
    line, marks = out.splitlines()[2:4]
    assert line.startswith("1 | ...") and line.endswith("...")
    assert len(line) < 140
    assert marks.index("^") == line.index("$")


def test_the_span_at_the_end_of_a_long_line_is_visible():
    text = "x = " + "a + " * 200 + "$\n"
    line, marks = render(text).splitlines()[2:4]
    assert line.endswith("$") and marks.index("^") == line.index("$")


def test_end_of_file_errors_sit_after_the_last_character():
    out = render("def f():\n\n\n")
    assert out.startswith("t.tx:1:9: error[E0106]: expected an indented block after the function definition "
                          "on line 1\n  |\n1 | def f():\n  |         ^\n")


def test_an_empty_source_line_still_gets_a_caret():
    out = one("\n", "E0100", "empty", 1, 1, 1, 2)
    assert out.splitlines()[1:] == ["  |", "1 |", "  | ^"]


# ---- colour --------------------------------------------------------------------------------------

def test_colour_only_when_asked():
    plain = render("x = $\n")
    coloured = render("x = $\n", colour=True)
    assert "\x1b[" not in plain
    assert "\x1b[1;31merror[E0101]\x1b[0m" in coloured
    assert "\x1b[1;31m^\x1b[0m" in coloured
    # Stripping the escapes gives the plain text back.
    import re
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain


class _Stream(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


def test_use_colour_follows_the_terminal_and_no_color(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert use_colour(_Stream(True)) is True
    assert use_colour(_Stream(False)) is False
    assert use_colour(object()) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert use_colour(_Stream(True)) is False
    monkeypatch.setenv("NO_COLOR", "")  # https://no-color.org: only a non-empty value counts
    assert use_colour(_Stream(True)) is True


# ---- codes ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_explains_itself(code):
    text = explain(code)
    title, paragraph = CODES[code]
    assert text == f"{code}: {title}\n\n{paragraph}\n"
    assert len(paragraph) > 40


def test_explain_unknown_and_lower_case():
    assert explain("E9999") is None
    assert explain("e0100") == explain("E0100")


def test_diagnostics_sort_in_source_order_and_keep_ties_in_order():
    diags = Diagnostics()
    diags.error("E0100", "third", Span("t", 3, 1, 3, 2))
    diags.error("E0100", "first", Span("t", 1, 5, 1, 6))
    diags.error("E0101", "also first", Span("t", 1, 5, 1, 6))
    diags.error("E0100", "second", Span("t", 2, 1, 2, 2))
    assert [d.message for d in diags.sorted()] == ["first", "also first", "second", "third"]


def test_unknown_codes_are_refused():
    with pytest.raises(ValueError):
        Diagnostic("E7777", "error", "x", Span("t", 1, 1, 1, 2))
