"""The GEMM course in older spellings (course/*.tx): each step is read with one note naming its
spelling and nothing else, migrates to a file in today's spelling that transpiles to the same CUDA
byte for byte (and migrates to itself), and its CUDA compiles with nvcc for sm_100a."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import has_nvcc, transpile
from tests.nvcc_batch import compile_many
from transpiler.driver import migrate_source
from transpiler.syntax.source import SourceFile

COURSE = sorted((Path(__file__).parent / "course").glob("step*.tx"))
ARCH = "sm_100a"


def _migrated(path: Path) -> str:
    reading = migrate_source(SourceFile(path.name, path.read_text(encoding="utf-8")))
    assert not reading.stop and reading.migrated, [d.message for d in reading.diagnostics]
    return reading.text


@pytest.mark.parametrize("path", COURSE, ids=[p.stem for p in COURSE])
def test_step_reads_with_one_note_and_migrates_to_the_same_cuda(path):
    text = path.read_text(encoding="utf-8")
    old = transpile(text, path.name, arch=ARCH)
    assert [(d.severity, d.code) for d in old.diagnostics] == [("note", "W0005")], \
        [(d.span.line, d.code, d.message) for d in old.diagnostics]
    new_text = _migrated(path)
    new = transpile(new_text, path.name, arch=ARCH)
    assert new.diagnostics == [], [(d.span.line, d.code, d.message) for d in new.diagnostics]
    assert new.cuda == old.cuda
    again = migrate_source(SourceFile(path.name, new_text))
    assert not again.migrated and again.text == new_text


def test_the_course_has_its_steps():
    assert len(COURSE) >= 1


NVCC_FLAGS = ("-std=c++17", f"-arch={ARCH}", "-Werror", "all-warnings")


@pytest.fixture(scope="module")
def compiled_steps():
    """{step: (return code, nvcc output)}: every step's CUDA by as few nvcc runs as their includes
    allow (tests/nvcc_batch.py; a failing batch falls back to each file alone)."""
    sources = {path.stem: transpile(path.read_text(encoding="utf-8"), path.name, arch=ARCH).cuda for path in COURSE}
    return compile_many(sources, NVCC_FLAGS)


@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("path", COURSE, ids=[p.stem for p in COURSE])
def test_step_compiles_with_nvcc(path, compiled_steps):
    code, output = compiled_steps[path.stem]
    assert code == 0, output
