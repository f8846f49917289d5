"""Text edits on a source file: the migration is a set of replacements of character ranges of the
file's own text (never a re-printing of its tree), so comments, blank lines and the author's layout
stay as they were; and the map from a position of the rewritten text back to the original one, so
that a diagnostic about a migrated file points into the file the user wrote."""
from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, replace

from transpiler.syntax.source import SourceFile, Span


@dataclass(frozen=True)
class Edit:
    """Replace text[start:end] (character offsets of the original) by `text`."""
    start: int
    end: int
    text: str


class Offsets:
    """Between (line, col) positions and character offsets of one text."""

    def __init__(self, text: str):
        self.text = text
        self.starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]

    def at(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col - 1

    def line_start(self, line: int) -> int:
        return self.starts[line - 1]

    def line_end(self, line: int) -> int:
        """The offset of the line's newline (or the end of the text)."""
        end = self.text.find("\n", self.starts[line - 1])
        return len(self.text) if end < 0 else end

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1] + 1


def settle(edits: list[Edit]) -> tuple[list[Edit], list[tuple[Edit, Edit]]]:
    """The edits to apply, in order: one inside another's range is dropped (a renamed alias or a
    re-indented line inside a replaced header); two that partly overlap are returned as a conflict."""
    kept: list[Edit] = []
    conflicts = []
    for edit in sorted(edits, key=lambda e: (e.start, -e.end, e.text)):
        if kept and edit.start < kept[-1].end:
            if edit.end > kept[-1].end:
                conflicts.append((kept[-1], edit))
            continue
        if kept and edit == kept[-1]:
            continue
        kept.append(edit)
    return kept, conflicts


def apply(text: str, edits: list[Edit]) -> str:
    """text with settled edits applied."""
    out, at = [], 0
    for edit in edits:
        out.append(text[at:edit.start])
        out.append(edit.text)
        at = edit.end
    out.append(text[at:])
    return "".join(out)


class PositionMap:
    """Positions of the rewritten text -> positions of the original (a position inside a
    replacement maps to the start of what it replaced)."""

    def __init__(self, original: SourceFile, rewritten: SourceFile, edits: list[Edit]):
        self.name = original.name
        self.old = Offsets(original.text)
        self.new = Offsets(rewritten.text)
        self.pieces = []  # (new start, new end, old start, old end), in order
        shift = 0
        for edit in edits:
            start = edit.start + shift
            self.pieces.append((start, start + len(edit.text), edit.start, edit.end))
            shift += len(edit.text) - (edit.end - edit.start)
        self.new_starts = [p[0] for p in self.pieces]

    def offset(self, new: int) -> int:
        i = bisect_right(self.new_starts, new) - 1
        if i < 0:
            return new
        new_start, new_end, old_start, old_end = self.pieces[i]
        if new < new_end:
            return old_start
        return old_end + (new - new_end)

    def span(self, span: Span | None) -> Span | None:
        if span is None or span.file != self.name:
            return span
        line, col = self.old.position(self.offset(self.new.at(span.line, span.col)))
        end_line, end_col = self.old.position(max(self.offset(self.new.at(span.end_line, span.end_col)),
                                                  self.old.at(line, col) + 1))
        return Span(span.file, line, col, end_line, end_col)

    def diagnostic(self, diag):
        notes = tuple(replace(n, span=self.span(n.span)) for n in diag.notes)
        return replace(diag, span=self.span(diag.span), notes=notes)
