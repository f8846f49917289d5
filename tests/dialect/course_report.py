"""The conformance page's section on the older spellings (docs/conformance.md, written by
tests/conformance/report.py): each step of the GEMM course, the spelling tirxc read it as, and
whether it transpiles for sm_100a to the same CUDA as its migration."""
from __future__ import annotations

from pathlib import Path

from tests.conftest import transpile
from transpiler.dialect.spellings import SPELLINGS
from transpiler.driver import migrate_source
from transpiler.syntax.source import SourceFile

COURSE = Path(__file__).parent / "course"


def _outcome(path: Path) -> tuple[str, str]:
    text = path.read_text(encoding="utf-8")
    reading = migrate_source(SourceFile(path.name, text))
    if reading.stop or not reading.migrated:
        return "-", "not read as an older spelling"
    old = transpile(text, path.name, arch="sm_100a")
    new = transpile(reading.text, path.name, arch="sm_100a")
    if not old.ok or not new.ok:
        first = next(d for d in old.diagnostics + new.diagnostics if d.severity == "error")
        return SPELLINGS[reading.era], f"fails: {first.code}"
    return SPELLINGS[reading.era], "pass, same CUDA" if old.cuda == new.cuda else "pass, different CUDA"


def section() -> list[str]:
    """The markdown lines of the section."""
    rows = [(p, *_outcome(p)) for p in sorted(COURSE.glob("step*.tx"))]
    passed = sum(status == "pass, same CUDA" for _, _, status in rows)
    out = ["", "## Older spellings: a GEMM course", "",
           "A ten-step tcgen05 GEMM course of tirxc's own, written in TIRx's older spellings",
           "([older-spellings.md](older-spellings.md)) as such a course's students write them",
           "(`tests/dialect/course/`): each step is read with one note naming its spelling,",
           "transpiled for sm_100a, migrated by `tirxc migrate`, and the migration transpiled",
           "again; `tests/dialect/test_course.py` also compiles each with nvcc.", "",
           f"**{passed}/{len(rows)} steps pass with the same CUDA after migration.**", "",
           "| step | read as | status |", "|---|---|---|"]
    out += [f"| [{p.name}](../tests/dialect/course/{p.name}) | {era} | {status} |" for p, era, status in rows]
    return out
