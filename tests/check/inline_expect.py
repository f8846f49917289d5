"""Inline expectations for the checker's data-driven tests (tests/check/cases/).

A case file is an ordinary `.tx` file. Each diagnostic the checker must report
is written as a trailing comment on the line it points at:

    x = A[0, 0, 0]   # error E0506 @9: has 2 dimensions

    item      := '#' KIND [CODE] ['@' COL] ':' FRAGMENT
    KIND      := error | warning | note | help
    CODE      := the diagnostic's code; for `note` and `help` the code of the
                 diagnostic they belong to, which may be left out
                 (`# note @5: first defined here`)
    COL       := 1-based column of the span's start (required for error,
                 warning and notes that have a span; absent for help, and for
                 notes without a span, which are written on the line of
                 their diagnostic)
    FRAGMENT  := text that must occur in the message (in the help text for
                 `help`)

Several items may follow each other on one line. Errors, warnings and notes
are compared as complete sets: every diagnostic and every note the checker
reports must be expected, and every expectation must be reported. `help`
items are optional: when written, the diagnostic's help must contain the
fragment.

Whole-line `# CHECK...:` and `# ARCH:` comments are not items: they state the
expected CUDA (filecheck.py).

`rewrite` regenerates the items of a file from actual diagnostics; fragments
of expectations that still match are kept (they are reviewed text), other
diagnostics get the start of their message, and `help` items are kept where
they still hold.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from tests.check.filecheck import is_directive

_HEAD = r"#\s*(?:error|warning|note|help)(?:\s+[EW]\d{4})?(?:\s+@\d+)?\s*:"
ITEM = re.compile(r"#\s*(?P<kind>error|warning|note|help)(?:\s+(?P<code>[EW]\d{4}))?(?:\s+@(?P<col>\d+))?\s*:\s*"
                  r"(?P<fragment>.*?)\s*(?=" + _HEAD + "|$)")
# Something that looks like an expectation but is not well-formed: an error in the case file.
LOOKS_LIKE = re.compile(r"#\s*(error|warning|note|help)\b")
START = re.compile(r"\s*" + _HEAD)


@dataclass(frozen=True)
class Item:
    kind: str  # error warning note help
    line: int
    col: int | None
    code: str | None  # None: a note or help of any diagnostic
    fragment: str

    def render(self) -> str:
        code = f" {self.code}" if self.code else ""
        at = f" @{self.col}" if self.col is not None else ""
        return f"# {self.kind}{code}{at}: {self.fragment}"

    def describe(self) -> str:
        return f"line {self.line}: {self.render()}"


class CaseFileError(Exception):
    """A malformed expectation comment."""


def parse(text: str) -> list[Item]:
    items = []
    for number, line in enumerate(text.split("\n"), start=1):
        if is_directive(line):  # an expected CUDA fragment (filecheck.py), whatever its text
            continue
        start = START.search(line)
        if start is None:
            comment = _comment_start(line)
            if comment is not None and LOOKS_LIKE.search(line, comment):
                raise CaseFileError(f"line {number}: malformed expectation: {line.strip()}")
            continue
        tail = line[start.start():]
        pos = 0
        for match in ITEM.finditer(tail):
            if tail[pos:match.start()].strip():
                raise CaseFileError(f"line {number}: cannot read expectation text {tail[pos:match.start()]!r}")
            pos = match.end()
            kind, col = match["kind"], match["col"]
            if kind in ("error", "warning") and (col is None or match["code"] is None):
                raise CaseFileError(f"line {number}: an {kind} expectation needs its code and `@column`")
            if kind == "help" and col is not None:
                raise CaseFileError(f"line {number}: a help expectation has no column")
            if not match["fragment"]:
                raise CaseFileError(f"line {number}: expectation without a message fragment")
            items.append(Item(kind, number, int(col) if col else None, match["code"], match["fragment"]))
        if tail[pos:].strip():
            raise CaseFileError(f"line {number}: cannot read expectation text {tail[pos:]!r}")
    return items


def _comment_start(line: str) -> int | None:
    """Index of the `#` that starts a comment, ignoring `#` inside simple string literals."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            return i
    return None


# -- actual diagnostics as items ---------------------------------------------------------------

@dataclass(frozen=True)
class Actual:
    """One reported diagnostic, note or help, with the full text it must match."""
    kind: str
    line: int
    col: int | None
    code: str
    text: str

    def key(self):
        return (self.kind, self.line, self.col, self.code)

    def matches(self, item: Item) -> bool:
        code = self.code if item.code is None else item.code
        return (item.kind, item.line, item.col, code) == self.key() and item.fragment in self.text


def actuals(diagnostics) -> list[Actual]:
    """Diagnostics, their notes and their help texts, in report order."""
    out = []
    for d in diagnostics:
        out.append(Actual(d.severity, d.span.line, d.span.col, d.code, d.message))
        if d.help:
            out.append(Actual("help", d.span.line, None, d.code, d.help))
        for note in d.notes:
            if note.span is None:
                out.append(Actual("note", d.span.line, None, d.code, note.message))
            else:
                out.append(Actual("note", note.span.line, note.span.col, d.code, note.message))
    return out


def compare(expected: list[Item], diagnostics) -> tuple[list[Item], list[Actual]]:
    """(expected items not reported, reported diagnostics/notes not expected).

    Help texts are only compared where a `help` item asks for one."""
    pending = list(actuals(diagnostics))
    missing = []
    # match the expectations with the longest fragments first, so that a short
    # fragment cannot steal the diagnostic that only a longer one fits
    for item in sorted(expected, key=lambda i: -len(i.fragment)):
        hit = next((a for a in pending if a.matches(item)), None)
        if hit is None:
            missing.append(item)
        else:
            pending.remove(hit)
    unexpected = [a for a in pending if a.kind != "help"]
    missing.sort(key=lambda i: (i.line, i.col or 0))
    return missing, unexpected


def shorten(text: str, limit: int) -> str:
    """A prefix of the message, cut at a word boundary: enough to recognise it, short enough to read."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[:cut if cut > limit // 2 else limit]


def rewrite(text: str, diagnostics) -> str:
    """The case text with every line's expectation items regenerated from diagnostics."""
    old = parse(text)
    unused = list(old)
    per_line: dict[int, list[Item]] = {}
    for actual in actuals(diagnostics):
        kept = next((i for i in unused if actual.matches(i)), None)
        if kept is not None:
            unused.remove(kept)
            per_line.setdefault(actual.line, []).append(kept)
        elif actual.kind != "help":
            fragment = shorten(actual.text, 40 if actual.kind == "note" else 64)
            per_line.setdefault(actual.line, []).append(
                Item(actual.kind, actual.line, actual.col, actual.code, fragment))
    lines = text.split("\n")
    outside = [n for n in per_line if not 1 <= n <= len(lines)]
    if outside:
        raise CaseFileError(f"diagnostics point at lines {outside}, outside the file")
    for number, line in enumerate(lines, start=1):
        start = START.search(line)
        items = per_line.get(number)
        if start is None and not items:
            continue
        code = line[:start.start()].rstrip() if start else line.rstrip()
        lines[number - 1] = code + ("  " + "  ".join(i.render() for i in items) if items else "")
    return "\n".join(lines)
