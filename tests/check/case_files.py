"""The runner of the case files (tests/check/cases, tests/tile/cases, tests/ptx/cases): a `.tx` file
that carries its expectations next to its code.

    x = A[0, 0, 0]  # error E0506 @9: has 2 dimensions       a diagnostic (inline_expect.py)
    # CHECK: // Tx.warp.copy(Sm, A): gmem_smem                 a line of the CUDA (filecheck.py)
    # CHECK-NEXT: ...   # CHECK-NOT: ...   # ARCH: sm_100a

The diagnostics are compared as a complete set (a file without items must transpile
without any); the CHECK directives, in file order, against the generated CUDA. A file
without CHECK directives runs only up to the checker (and tile dispatch), one with them
through the whole pipeline.

    pytest tests/check tests/tile tests/ptx                        compare
    pytest tests/check tests/tile tests/ptx --update-check-cases   rewrite the diagnostic comments

The update mode rewrites only the diagnostic items (review its diff like code);
CHECK lines are written by hand: pick the lines that show the behaviour the file
is named after, not the whole output.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.check import filecheck
from tests.check.inline_expect import compare, parse, rewrite
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile


def case_files(folder: Path) -> list[Path]:
    """Every `.tx` below folder, in a stable order."""
    return sorted(folder.rglob("*.tx"))


def case_id(folder: Path):
    return lambda path: path.relative_to(folder).with_suffix("").as_posix()


def run(path: Path, text: str):
    directives = filecheck.parse(text)
    until = "cuda" if directives.checks else "check"
    return directives, compile_source(SourceFile(path.name, text), until=until, arch=directives.arch)


def check_case_file(path: Path, update: bool = False) -> None:
    """Fail the calling test with a readable report when the file's expectations do not hold."""
    text = path.read_text(encoding="utf-8")
    expected = parse(text)
    directives, result = run(path, text)
    if update:
        new = rewrite(text, result.diagnostics)
        if new != text:
            path.write_text(new, encoding="utf-8")
        return
    missing, unexpected = compare(expected, result.diagnostics)
    if missing or unexpected:
        report = [f"{path.name}: the diagnostics differ from the inline expectations"]
        report += ["  expected, not reported:"] + [f"    {i.describe()}" for i in missing] if missing else []
        if unexpected:
            report.append("  reported, not expected:")
            for a in unexpected:
                at = f" @{a.col}" if a.col is not None else ""
                report.append(f"    line {a.line}: # {a.kind} {a.code}{at}: {a.text}")
        report.append("  (after a deliberate change: pytest <its folder> --update-check-cases, then review the diff)")
        pytest.fail("\n".join(report), pytrace=False)
    if directives.checks:
        if result.cuda is None:
            pytest.fail(f"{path.name}: CHECK lines, but no CUDA was generated", pytrace=False)
        failure = filecheck.match(directives.checks, result.cuda, path.name)
        if failure:
            pytest.fail("\n".join(failure), pytrace=False)
