"""Expected CUDA fragments in a case file, FileCheck-style (the matcher; tests/check/case_files.py runs it).

A directive is a whole-line comment of the case file:

    # CHECK: fragment        a later line of the CUDA contains fragment
    # CHECK-NEXT: fragment   the line right after the previous match contains it
    # CHECK-SAME: fragment   the previous match's line contains it, after that match
    # CHECK-NOT: fragment    no line between the previous match and the next one
                             (the end of the CUDA when none follows) contains it
    # ARCH: sm_100a          the target architecture of the file (default: tirxc's)

Directives are matched in file order, each on a line of the output after the
previous match (CHECK-SAME: on its line, further right). Fragments are literal text; runs of white space count as one
space on both sides, so indentation and spacing around the fragment do not matter.

A long argument list is written as a list form, `{{ITEM for NAME in FIRST..LAST}}`: the ITEMs for
NAME = FIRST, FIRST + 1, ... LAST (inclusive), NAME replaced as a whole word, joined by ", ":

    # CHECK: ld_16x256b_x8_b32({{frag_ptr[i] for i in 0..31}}, tmem_addr_ptr[0]);

states all 32 registers in order, where spelling them out would hide the call in a 400-column line.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

LIST_FORM = re.compile(r"\{\{(?P<item>.+?) for (?P<name>[A-Za-z_]\w*) in (?P<first>-?\d+)\.\.(?P<last>-?\d+)\}\}")
DIRECTIVE = re.compile(r"^\s*#\s*(?P<kind>CHECK(?:-[A-Z]+)?|ARCH)\b\s*(?P<colon>:?)\s*(?P<text>.*?)\s*$")
KINDS = ("CHECK", "CHECK-NEXT", "CHECK-SAME", "CHECK-NOT")
CONTEXT = 10  # output lines shown after the place a failed search started


class CheckFileError(Exception):
    """A malformed directive."""


@dataclass(frozen=True)
class Check:
    kind: str  # CHECK CHECK-NEXT CHECK-SAME CHECK-NOT
    line: int  # in the case file
    fragment: str

    def describe(self) -> str:
        return f"line {self.line}: # {self.kind}: {self.fragment}"


@dataclass(frozen=True)
class Directives:
    checks: tuple[Check, ...]
    arch: str | None


def is_directive(line: str) -> bool:
    return DIRECTIVE.match(line) is not None


def expand(fragment: str) -> str:
    """fragment with each list form `{{ITEM for NAME in FIRST..LAST}}` written out."""
    def items(form: re.Match) -> str:
        first, last = int(form["first"]), int(form["last"])
        if last < first:
            raise CheckFileError(f"an empty list form: {form[0]}")
        word = re.compile(rf"\b{form['name']}\b")
        return ", ".join(word.sub(str(n), form["item"]) for n in range(first, last + 1))
    expanded = LIST_FORM.sub(items, fragment)
    if "{{" in expanded and " for " in expanded:
        raise CheckFileError(f"a list form is `{{{{ITEM for NAME in FIRST..LAST}}}}`: {fragment}")
    return expanded


def parse(text: str) -> Directives:
    checks, arch = [], None
    for number, line in enumerate(text.split("\n"), start=1):
        match = DIRECTIVE.match(line)
        if match is None:
            continue
        kind, body = match["kind"], match["text"]
        if not match["colon"] or not body:
            raise CheckFileError(f"line {number}: a directive is `# {kind}: text`: {line.strip()}")
        if kind == "ARCH":
            if arch is not None:
                raise CheckFileError(f"line {number}: a second `# ARCH:`")
            arch = body
        elif kind not in KINDS:
            raise CheckFileError(f"line {number}: unknown directive `{kind}` (known: {', '.join(KINDS)}, ARCH)")
        elif kind in ("CHECK-NEXT", "CHECK-SAME") and not any(c.kind != "CHECK-NOT" for c in checks):
            raise CheckFileError(f"line {number}: {kind} needs a CHECK before it")
        elif kind == "CHECK-SAME" and checks[-1].kind == "CHECK-NOT":
            raise CheckFileError(f"line {number}: CHECK-SAME right after a CHECK-NOT")
        else:
            try:
                checks.append(Check(kind, number, expand(body)))
            except CheckFileError as error:
                raise CheckFileError(f"line {number}: {error}") from None
    return Directives(tuple(checks), arch)


def _norm(text: str) -> str:
    return " ".join(text.split())


def match(checks, output: str, name: str = "the case file") -> list[str]:
    """The failure report, one line an entry; empty when every directive holds."""
    lines = output.split("\n")
    norm = [_norm(line) for line in lines]
    pos, last, pending = 0, None, []  # first line the next match may take; (check, index) of the last match
    column = 0  # where a CHECK-SAME may start on the last match's line

    def window(start: int) -> list[str]:
        shown = [f"    {i + 1:5} | {lines[i]}" for i in range(start, min(start + CONTEXT, len(lines)))]
        return shown or ["    (the end of the output)"]

    def after() -> str:
        return "the start of the output" if last is None else \
            f"output line {last[1] + 1} (the match of {last[0].describe()})"

    def refuted(nots, stop: int) -> list[str]:
        for check in nots:
            frag = _norm(check.fragment)
            hit = next((i for i in range(pos, stop) if frag in norm[i]), None)
            if hit is not None:
                until = "the end of the output" if stop == len(lines) else f"output line {stop + 1}"
                return [f"{name}, {check.describe()}",
                        f"  found at output line {hit + 1}, between {after()} and {until}:",
                        f"    {hit + 1:5} | {lines[hit]}"]
        return []

    for check in checks:
        if check.kind == "CHECK-NOT":
            pending.append(check)
            continue
        frag = _norm(check.fragment)
        if check.kind == "CHECK-SAME":
            found = norm[last[1]].find(frag, column)
            if found < 0:
                return [f"{name}, {check.describe()}",
                        f"  not on {after()} after column {column + 1}:",
                        f"    {last[1] + 1:5} | {lines[last[1]]}"]
            last, column = (check, last[1]), found + len(frag)
            continue
        if check.kind == "CHECK-NEXT":
            hit = pos if pos < len(lines) and frag in norm[pos] else None
            if hit is None:
                return [f"{name}, {check.describe()}",
                        f"  not on the line after {after()}; the output from there:"] + window(pos)
        else:
            hit = next((i for i in range(pos, len(lines)) if frag in norm[i]), None)
            if hit is None:
                return [f"{name}, {check.describe()}",
                        f"  not found after {after()}; the output from there:"] + window(pos)
        failure = refuted(pending, hit)
        if failure:
            return failure
        pending, last, pos = [], (check, hit), hit + 1
        column = norm[hit].find(frag) + len(frag)
    return refuted(pending, len(lines))
