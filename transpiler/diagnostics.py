"""Diagnostics as data, and the one renderer that turns them into text."""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from .codes import CODES
from .source import SourceFile, Span


@dataclass(frozen=True)
class Note:
    message: str
    span: Span | None = None


@dataclass(frozen=True)
class Diagnostic:
    code: str
    severity: str  # "error" or "warning"
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
    matches = difflib.get_close_matches(name, sorted(set(candidates)), n=1, cutoff=0.6)
    return f"did you mean `{matches[0]}`?" if matches else None


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
        line_text = self.source.line_text(span.line).replace("\t", " ")
        width = len(str(span.line))
        start = max(span.col, 1)
        if span.end_line == span.line:
            end = max(span.end_col, start + 1)
        else:
            end = max(len(line_text) + 1, start + 1)
        end = min(end, max(len(line_text) + 1, start + 1))
        gutter = " " * width + " |"
        marks = " " * (start - 1) + "^" * (end - start)
        return [self._paint(gutter, "bold"),
                self._paint(f"{span.line} |", "bold") + (" " + line_text if line_text else ""),
                self._paint(gutter, "bold") + " " + self._paint(marks, style)]

    def render(self, diag: Diagnostic) -> str:
        head = self._paint(f"{diag.severity}[{diag.code}]", diag.severity)
        lines = [f"{diag.span}: {head}: {self._paint(diag.message, 'bold')}"]
        lines += self.snippet(diag.span, diag.severity if diag.severity == "warning" else "caret")
        for note in diag.notes:
            if note.span is None:
                lines.append(f"  = {self._paint('note', 'note')}: {note.message}")
            else:
                lines.append(f"{note.span}: {self._paint('note', 'note')}: {note.message}")
                lines += self.snippet(note.span, "note")
        if diag.help:
            lines.append(f"  = {self._paint('help', 'help')}: {diag.help}")
        return "\n".join(lines)

    def render_all(self, diags: Sequence[Diagnostic]) -> str:
        parts = [self.render(d) for d in diags]
        errors = sum(1 for d in diags if d.severity == "error")
        warnings = len(diags) - errors
        summary = []
        if errors:
            summary.append(f"{errors} error{'s' if errors != 1 else ''}")
        if warnings:
            summary.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
        if summary:
            parts.append(f"{self.source.name}: " + " and ".join(summary) + " generated")
        return "\n\n".join(parts) + "\n"


def explain(code: str) -> str | None:
    entry = CODES.get(code.upper())
    if entry is None:
        return None
    title, text = entry
    return f"{code.upper()}: {title}\n\n{text}\n"


def errors_markdown() -> str:
    """docs/errors.md, generated from the code table."""
    out = ["# tirxc diagnostic codes", "",
           "Generated by `python -m transpiler.codes` from `transpiler/codes.py`; do not edit by hand.",
           "`tirxc --explain CODE` prints one entry.", ""]
    for code, (title, text) in CODES.items():
        out += [f"## {code}: {title}", "", text, ""]
    return "\n".join(out)
