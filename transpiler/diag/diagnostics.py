"""Diagnostics as data, and the one renderer that turns them into text."""
from __future__ import annotations

import os
import unicodedata
from dataclasses import dataclass
from collections.abc import Iterable, Sequence

from transpiler.diag.codes import CODES
from transpiler.syntax.source import SourceFile, Span


@dataclass(frozen=True)
class Note:
    message: str
    span: Span | None = None


@dataclass(frozen=True)
class Diagnostic:
    code: str
    severity: str  # "error", "warning" or "note" (a fact worth saying, e.g. the spelling a file was read in)
    message: str
    span: Span
    notes: tuple[Note, ...] = ()
    help: str | None = None

    def __post_init__(self):
        if self.code not in CODES:
            raise ValueError(f"diagnostic code {self.code} is not in the code table")


class Diagnostics:
    """Collects every problem of one file; stages add to it and carry on."""

    def __init__(self) -> None:
        self.items: list[Diagnostic] = []

    def error(self, code: str, message: str, span: Span, *, notes: Sequence[Note] = (), help: str | None = None) -> None:
        self.items.append(Diagnostic(code, "error", message, span, tuple(notes), help))

    def warning(self, code: str, message: str, span: Span, *, notes: Sequence[Note] = (), help: str | None = None) -> None:
        self.items.append(Diagnostic(code, "warning", message, span, tuple(notes), help))

    @property
    def has_errors(self) -> bool:
        return any(d.severity == "error" for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        """Source order; ties keep the order in which they were found."""
        return sorted(self.items, key=lambda d: (d.span.line, d.span.col))


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """A `did you mean` help text for an unknown name, or None."""
    import difflib  # only on an error path: not worth its import time on every run

    matches = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean `{matches[0]}`?" if matches else None


SNIPPET_WIDTH = 120  # characters of a source line shown at most
SNIPPET_CONTEXT = 40  # characters shown before the span when a line is cut


def _shown(char: str) -> str:
    """How a source character is printed in a snippet."""
    if char == "\t":
        return " "
    if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co"):
        return "\ufffd"
    return char


def _plain(text: str) -> str:
    """A message as printed: characters that could drive the terminal or start a new
    line (controls, format characters, line separators; they reach messages through
    strings of the file, e.g. a failed assertion's message) are shown escaped."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)


def _width(text: str) -> int:
    """Terminal cells taken by text (wide East Asian characters take two)."""
    cells = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        cells += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return cells


_COLOURS = {"error": "\x1b[1;31m", "warning": "\x1b[1;33m", "note": "\x1b[1;36m", "help": "\x1b[1;32m",
            "bold": "\x1b[1m", "caret": "\x1b[1;31m", "reset": "\x1b[0m"}


def use_colour(stream) -> bool:
    """Colour only on a terminal and never when NO_COLOR is set."""
    if os.environ.get("NO_COLOR", "") != "":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Renderer:
    """Renders diagnostics as `file:line:col: error[CODE]: message` plus a caret snippet."""

    def __init__(self, source: SourceFile, colour: bool = False):
        self.source = source
        self.colour = colour

    def _paint(self, text: str, style: str) -> str:
        if not self.colour:
            return text
        return f"{_COLOURS[style]}{text}{_COLOURS['reset']}"

    def snippet(self, span: Span, style: str = "caret") -> list[str]:
        """The source line of a span and a row of carets under the span.

        Columns are characters, but carets are placed by display width (CJK
        characters take two cells), tabs show as one space so that columns stay
        aligned, control and format characters show as U+FFFD so that a file
        cannot drive the terminal, and a line longer than SNIPPET_WIDTH shows
        only a window around the span.
        """
        raw = self.source.line_text(span.line)
        start = max(span.col, 1) - 1  # 0-based, inclusive
        end = span.end_col - 1 if span.end_line == span.line else len(raw)  # 0-based, exclusive
        # The caret may sit one past the last character (something is missing there).
        end = min(max(end, start + 1), max(len(raw), start + 1))
        lo, hi = 0, len(raw)
        if len(raw) > SNIPPET_WIDTH:
            lo = max(0, start - SNIPPET_CONTEXT)
            hi = min(len(raw), max(end, lo + SNIPPET_WIDTH))
            if hi - lo > SNIPPET_WIDTH:  # a long span: show its start
                hi = lo + SNIPPET_WIDTH
                end = min(end, hi)
        shown = "".join(_shown(c) for c in raw[lo:hi])
        before = "..." if lo > 0 else ""
        after = "..." if hi < len(raw) else ""
        pad = _width(before) + _width("".join(_shown(c) for c in raw[lo:start]))
        marked = "".join(_shown(c) for c in raw[start:end])
        carets = "^" * max(1, _width(marked))
        width = len(str(span.line))
        gutter = " " * width + " |"
        text = before + shown + after
        return [self._paint(gutter, "bold"),
                self._paint(f"{span.line} |", "bold") + (" " + text if text else ""),
                self._paint(gutter, "bold") + " " + " " * pad + self._paint(carets, style)]

    def render(self, diag: Diagnostic) -> str:
        head = self._paint(f"{diag.severity}[{diag.code}]", diag.severity)
        lines = [f"{_plain(str(diag.span))}: {head}: {self._paint(_plain(diag.message), 'bold')}"]
        lines += self.snippet(diag.span, diag.severity if diag.severity in ("warning", "note") else "caret")
        for note in diag.notes:
            if note.span is None:
                lines.append(f"  = {self._paint('note', 'note')}: {_plain(note.message)}")
            else:
                lines.append(f"{_plain(str(note.span))}: {self._paint('note', 'note')}: {_plain(note.message)}")
                lines += self.snippet(note.span, "note")
        if diag.help:
            lines.append(f"  = {self._paint('help', 'help')}: {_plain(diag.help)}")
        return "\n".join(lines)

    def render_all(self, diags: Sequence[Diagnostic]) -> str:
        parts = [self.render(d) for d in diags]
        errors = sum(1 for d in diags if d.severity == "error")
        notes = sum(1 for d in diags if d.severity == "note")
        warnings = len(diags) - errors - notes
        summary = []
        if errors:
            summary.append(f"{errors} error{'s' if errors != 1 else ''}")
        if warnings:
            summary.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
        if notes and summary:  # (a note alone needs no summary line)
            summary.append(f"{notes} note{'s' if notes != 1 else ''}")
        if summary:
            parts.append(f"{_plain(self.source.name)}: " + " and ".join(summary) + " generated")
        return "\n\n".join(parts) + "\n"


def explain(code: str) -> str | None:
    entry = CODES.get(code.upper())
    if entry is None:
        return None
    title, text = entry
    return f"{code.upper()}: {title}\n\n{text}\n"
