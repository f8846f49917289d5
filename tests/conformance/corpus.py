"""Run tirxc over the conformance corpus and compare with the recorded statuses.

An entry of the corpus names its source (SOURCES): a kernel of the TIRx documentation, a
kernel of one of TVM's tests, a construct as a production-library kernel writes it, or a
construct case. Each `tests/conformance/*.tx` file is a documentation kernel and starts with
two header lines, and a third where the upstream TIRx parser rejects the page's text as well
(read from its source):

    # conformance: <page>.rst, code block <n>, lines <first>-<last>
    # category: <category>
    # upstream: <why TIRx rejects it too>

The other entries are the case files of tests/sema/cases that carry, in their leading
comments (after an `# ARCH:` line, if any),

    # source: <tvm-test | library | construct> <repository@commit> <path> [(what)]
    # category: <category>

and are compiled for their `# ARCH:` (a case file with error items is not an entry: it tests
refusals, not conformance).

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

# the kinds of source an entry names, in the order the report lists them
SOURCES = {
    "docs": "kernels of the TIRx documentation (docs/tirx at the pinned commit), in tests/conformance/",
    "tvm-test": "kernels of TVM's own tests (apache/tvm tests/python), as construct cases",
    "library": "constructs as production-library kernels write them (mlc-ai/TIRx-kernels), as construct cases",
    "construct": "construct cases of TIRx's own definitions (its script builder, op tables and passes)",
}
CASES = CORPUS.parent / "sema" / "cases"

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
_CASE_SOURCE = re.compile(r"^# source: (?P<kind>[\w-]+) (?P<reference>.+)$")
_CASE_ARCH = re.compile(r"^# ARCH: (sm_\w+)$", re.M)
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
    kind: str = "docs"   # the kind of source (SOURCES)
    reference: str = ""  # a case's source: repository@commit, path and what

    @property
    def lines(self) -> int:
        return 3 if self.upstream else 2

    @property
    def source(self) -> str:
        return f"{self.page}, {self.block} ({self.first}-{self.last})" if self.kind == "docs" else self.reference


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

    @property
    def link(self) -> str:
        """The entry's file, relative to docs/."""
        return f"../tests/conformance/{self.file}" if self.header.kind == "docs" else f"../tests/{self.file}"


def files() -> list[Path]:
    """The documentation kernels."""
    return sorted(CORPUS.glob("*.tx"))


def case_entries() -> list[Path]:
    """The case files of tests/sema/cases that name their source (case_header)."""
    return [p for p in sorted(CASES.glob("*.tx")) if case_header(p.read_text(encoding="utf-8")) is not None]


def entry_names() -> list[str]:
    """Every entry's key in expected.json: a documentation kernel's file name, a case's path
    below tests/."""
    return [p.name for p in files()] + [f"sema/cases/{p.name}" for p in case_entries()]


def case_header(text: str) -> Header | None:
    """A case file's `# source:` and `# category:` lines (None without them, or with error items)."""
    lines = text.split("\n", 4)
    at = 1 if lines and lines[0].startswith("# ARCH:") else 0
    source = _CASE_SOURCE.match(lines[at]) if len(lines) > at else None
    category = _CATEGORY.match(lines[at + 1]) if len(lines) > at + 1 else None
    if not source or not category or "# error " in text:
        return None
    return Header(source["kind"], 0, 0, 0, category["category"], kind=source["kind"],
                  reference=source["reference"])


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
    case = path.parent == CASES
    head = case_header(text) if case else header(text, path.name)
    key = f"sema/cases/{path.name}" if case else path.name
    arch = _CASE_ARCH.search(text) if case else None
    try:
        result = compile_source(SourceFile(path.name, text), until="launcher", launcher_name=module_name(path.stem),
                                arch=arch.group(1) if arch else None)
    except Exception as err:  # noqa: BLE001 - a crash is recorded, and test_no_crashes fails on it
        return Outcome(key, head, "crash", (), f"{type(err).__name__}: {err}")
    errors = [d for d in result.diagnostics if d.severity == "error"]
    if errors:
        return Outcome(key, head, "fail", tuple(f"{d.span.line}:{d.span.col} {d.code}" for d in errors),
                       f"{errors[0].code} {errors[0].message}")
    arch = _ARCH.search(result.cuda or "")
    return Outcome(key, head, "pass", (), "", arch.group(1) if arch else None, result.cuda)


def run_all() -> list[Outcome]:
    return [run_file(path) for path in files() + case_entries()]


def record(outcomes: list[Outcome]) -> dict:
    """The table of expected.json: per file, its category, status and errors."""
    table = {}
    for o in outcomes:
        entry = {"category": o.header.category, "status": o.status}
        if o.header.kind != "docs":
            entry["source"] = f"{o.header.kind} {o.header.reference}"
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
