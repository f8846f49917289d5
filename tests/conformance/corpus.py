"""Run tirxc over the conformance corpus and compare with the recorded statuses.

Each `tests/conformance/*.tx` file starts with two header lines, and a third
where the upstream TIRx parser rejects the page's text as well (read from its source):

    # conformance: <page>.rst, code block <n>, lines <first>-<last>
    # category: <category>
    # upstream: <why TIRx rejects it too>

`run_all()` compiles every file in-process through `transpiler.driver`, up to the
launcher; `record()` turns the outcomes into the table kept in `expected.json`
(status and the errors' `line:col CODE`, per file). Regenerate the table and
docs/conformance.md with `python -m tests.conformance.report` or
`pytest tests/conformance --update-conformance`.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

CORPUS = Path(__file__).resolve().parent
EXPECTED = CORPUS / "expected.json"

CATEGORIES = {
    "basics": "threads, buffers, control flow: the native-CUDA chapter's core",
    "memory": "shared memory, the dynamic arena, registers, scalars",
    "layout": "`TileLayout`s over threads and registers",
    "ptx": "backend intrinsics (`T.ptx.*`, warp shuffles)",
    "python-level": "parse-time Python: `@T.jit`, classes, helper objects",
    "ir-listing": "lowered IR as the pages print it (`T.launch_thread`, `T.call_packed`)",
    "tile-primitive": "`Tx.*` tile primitives and the layouts they dispatch on",
}

_SOURCE = re.compile(r"^# conformance: (?P<page>\S+\.rst), code block (?P<block>\d+), lines (?P<first>\d+)-(?P<last>\d+)$")
_CATEGORY = re.compile(r"^# category: (?P<category>[\w-]+)$")
UPSTREAM = "# upstream: "
_ARCH = re.compile(r"// Minimum architecture: (sm_\w+)")
ADDED = re.compile(r"#\s*added(:.*)?$")
HOST = "# host:"


@dataclass(frozen=True)
class Header:
    page: str
    block: int
    first: int
    last: int
    category: str
    upstream: str = ""   # why upstream TIRx rejects the text too, when it does

    @property
    def lines(self) -> int:
        return 3 if self.upstream else 2


@dataclass(frozen=True)
class Outcome:
    file: str                      # e.g. "native_basics-cuda-first_kernel__1.tx"
    header: Header
    status: str                    # "pass", "fail" or "crash"
    diagnostics: tuple[str, ...]   # "line:col CODE" of each error, in order
    first_error: str               # the first error's message ("" when it passes)
    min_arch: str | None = None    # from the generated CUDA, when it passes
    cuda: str | None = None

    @property
    def stem(self) -> str:
        return self.file[:-len(".tx")]


def files() -> list[Path]:
    return sorted(CORPUS.glob("*.tx"))


def header(text: str, name: str = "?") -> Header:
    lines = text.split("\n", 3)
    source, category = _SOURCE.match(lines[0]), _CATEGORY.match(lines[1]) if len(lines) > 1 else None
    if not source or not category:
        raise ValueError(f"{name}: the first two lines must be the `# conformance:` and `# category:` headers")
    upstream = lines[2][len(UPSTREAM):] if len(lines) > 2 and lines[2].startswith(UPSTREAM) else ""
    return Header(source["page"], int(source["block"]), int(source["first"]), int(source["last"]),
                  category["category"], upstream)


def module_name(stem: str) -> str:
    return "docs_" + re.sub(r"\W", "_", stem)


def run_file(path: Path) -> Outcome:
    text = path.read_text(encoding="utf-8")
    head = header(text, path.name)
    try:
        result = compile_source(SourceFile(path.name, text), until="launcher", launcher_name=module_name(path.stem))
    except Exception as err:  # noqa: BLE001 - a crash is recorded, and test_no_crashes fails on it
        return Outcome(path.name, head, "crash", (), f"{type(err).__name__}: {err}")
    errors = [d for d in result.diagnostics if d.severity == "error"]
    if errors:
        return Outcome(path.name, head, "fail", tuple(f"{d.span.line}:{d.span.col} {d.code}" for d in errors),
                       f"{errors[0].code} {errors[0].message}")
    arch = _ARCH.search(result.cuda or "")
    return Outcome(path.name, head, "pass", (), "", arch.group(1) if arch else None, result.cuda)


def run_all() -> list[Outcome]:
    return [run_file(path) for path in files()]


def record(outcomes: list[Outcome]) -> dict:
    """The table of expected.json: per file, its category, status and errors."""
    table = {}
    for o in outcomes:
        entry = {"category": o.header.category, "status": o.status}
        if o.diagnostics:
            entry["errors"] = list(o.diagnostics)
        if o.status == "crash":
            entry["crash"] = o.first_error
        table[o.file] = entry
    return table


def dump(table: dict) -> str:
    """One key per line and sorted, so a regenerated table diffs line by line."""
    return json.dumps(table, indent=2, sort_keys=True) + "\n"


def load_expected() -> dict:
    return json.loads(EXPECTED.read_text(encoding="utf-8")) if EXPECTED.exists() else {}


def page_text(text: str) -> str:
    """What a corpus file holds of its page: without the headers and the added lines,
    with the host-code comments restored, dedented (a wrapped fragment comes out as shown)."""
    import textwrap
    kept = []
    for line in text.split("\n")[header(text).lines:]:
        if ADDED.search(line):
            continue
        if line.startswith(HOST):
            line = line[len(HOST) + 1:] if line.startswith(HOST + " ") else ""
        kept.append(line)
    return textwrap.dedent("\n".join(kept)).strip("\n")
