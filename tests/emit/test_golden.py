"""Golden CUDA: every sample's `.cu` is compared with the reviewed file in
tests/golden/<stem>.cu. `make golden-check` runs this file; after an intended
change of the output, regenerate with

    .venv/bin/python -m pytest -q tests/emit/test_golden.py --update-golden

and review the diff of tests/golden/ like code before committing it.
"""
from __future__ import annotations

import difflib

import pytest

from tests.conftest import ROOT, SAMPLES
from transpiler.driver import compile_file

GOLDEN = ROOT / "tests" / "golden"
SAMPLE_FILES = sorted(SAMPLES.glob("*.tx"))


def generate(path) -> str:
    # The name as `make samples` passes it (relative), so the header reads the same.
    result = compile_file(f"samples/{path.name}", path.read_bytes())
    assert result.ok, "\n".join(f"{d.span.line}:{d.span.col} {d.code} {d.message}" for d in result.diagnostics)
    return result.cuda


@pytest.mark.parametrize("sample", SAMPLE_FILES, ids=lambda p: p.stem)
def test_golden(sample, update_golden):
    actual = generate(sample)
    golden = GOLDEN / f"{sample.stem}.cu"
    if update_golden:
        golden.parent.mkdir(parents=True, exist_ok=True)
        if not golden.exists() or golden.read_text(encoding="utf-8") != actual:
            golden.write_text(actual, encoding="utf-8", newline="\n")
        return
    assert golden.exists(), (f"no golden file {golden.relative_to(ROOT)}; create it with "
                             f"`pytest tests/emit/test_golden.py --update-golden` and review it")
    expected = golden.read_text(encoding="utf-8")
    if actual != expected:
        diff = "".join(difflib.unified_diff(
            expected.splitlines(keepends=True), actual.splitlines(keepends=True),
            fromfile=f"tests/golden/{golden.name} (reviewed)", tofile=f"samples/{sample.name} (generated now)"))
        pytest.fail(f"generated CUDA differs from the golden file:\n{diff}\n"
                    f"If the change is intended, rerun with --update-golden and review the diff.", pytrace=False)


def test_every_golden_has_a_sample():
    """A golden file whose sample was removed or renamed is stale."""
    stems = {p.stem for p in SAMPLE_FILES}
    stale = sorted(p.name for p in GOLDEN.glob("*.cu") if p.stem not in stems)
    assert not stale, f"golden files without a sample: {stale}"


def test_samples_exist():
    assert len(SAMPLE_FILES) >= 10, "the samples folder looks empty"
