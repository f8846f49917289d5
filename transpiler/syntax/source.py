"""Source text and spans: the only room that knows about lines and columns."""
from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from bisect import bisect_right
from functools import partial


class Span(namedtuple("Span", "file line col end_line end_col")):
    """A region of one source file; lines and columns are 1-based, end_col exclusive.

    An immutable value, compared and hashed by its fields: a named tuple, not
    a frozen dataclass, because every AST node has one and a tuple is made in
    a third of the time (and without importing `typing` for NamedTuple)."""

    __slots__ = ()

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"

    def to(self, other: "Span") -> "Span":
        """The span covering self and everything up to the end of other."""
        return Span(self.file, self.line, self.col, other.end_line, other.end_col)


# Span(...) without the named tuple's Python-level __new__: the parser makes one for every rule
# it reduces.
new_span = partial(tuple.__new__, Span)


@dataclass(frozen=True)
class DecodeProblem:
    """Why raw bytes could not be taken as source text, and where."""

    message: str
    line: int
    col: int


class SourceFile:
    """The text of one `.tx` file, normalised to LF line ends, with line lookup."""

    def __init__(self, name: str, text: str):
        # Normalised here as well as in from_bytes, so that text handed over
        # directly (tests, stdin decoded elsewhere) gets the same columns.
        if text.startswith("\ufeff"):
            text = text[1:]
        if "\r" in text:
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        self.name = name
        self.text = text
        starts = [0]
        index = text.find("\n")
        while index >= 0:
            starts.append(index + 1)
            index = text.find("\n", index + 1)
        self._line_starts = starts

    @classmethod
    def from_bytes(cls, name: str, data: bytes) -> tuple["SourceFile", DecodeProblem | None]:
        """Decode UTF-8 (a BOM is dropped, CRLF and CR become LF).

        Undecodable bytes are replaced so that later stages still have text to
        point at; the returned problem says where the first bad byte was.
        """
        if data.startswith(b"\xef\xbb\xbf"):
            data = data[3:]
        if data.startswith((b"\xff\xfe", b"\xfe\xff")):
            # A UTF-16 byte-order mark: say so rather than "invalid byte 0xff".
            text = data.decode("utf-8", errors="replace")
            return cls(name, text), DecodeProblem("the file is UTF-16 encoded; save it as UTF-8", 1, 1)
        problem = None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            prefix = data[: err.start].decode("utf-8", errors="replace")
            prefix = prefix.replace("\r\n", "\n").replace("\r", "\n")
            line = prefix.count("\n") + 1
            col = len(prefix) - (prefix.rfind("\n") + 1) + 1
            problem = DecodeProblem(f"invalid UTF-8 byte 0x{data[err.start]:02x}", line, col)
            text = data.decode("utf-8", errors="replace")
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        if problem is None and "\x00" in text:
            index = text.index("\x00")
            line = text.count("\n", 0, index) + 1
            col = index - (text.rfind("\n", 0, index) + 1) + 1
            problem = DecodeProblem("the file contains a NUL byte (is it a binary file?)", line, col)
        return cls(name, text), problem

    @property
    def line_count(self) -> int:
        count = len(self._line_starts)
        if self.text.endswith("\n"):
            count -= 1
        return max(count, 1)

    def line_text(self, line: int) -> str:
        if line < 1 or line > len(self._line_starts):
            return ""
        start = self._line_starts[line - 1]
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, col) of a character offset."""
        line = bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def span(self, line: int, col: int, end_line: int | None = None, end_col: int | None = None) -> Span:
        if end_line is None:
            end_line = line
        if end_col is None:
            end_col = col + 1
        return Span(self.name, line, col, end_line, end_col)

    def end_span(self) -> Span:
        """For errors at the end of input: just after the last character of the
        last line that has any, so the caret sits where something is missing
        rather than on an empty trailing line."""
        line = self.line_count
        while line > 1 and not self.line_text(line).strip():
            line -= 1
        col = len(self.line_text(line).rstrip()) + 1
        return Span(self.name, line, col, line, col + 1)
