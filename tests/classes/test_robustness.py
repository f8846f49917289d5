"""Classes and the library never make the checker raise: token-level mutations of the class test
kernels and case files are parsed and checked; a Python exception is a bug (syntax errors are
out of scope). Same method as tests/pyeval/test_robustness.py."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from tests.classes.test_hostrun import KERNEL as CLASSES, PIPELINE_STATE
from tests.classes.test_library import BARRIERS
from tests.classes.test_schedulers import KERNEL as SCHEDULERS
from transpiler.diag.diagnostics import Diagnostics
from transpiler.sema.check import check
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile

HERE = Path(__file__).resolve().parent
TEXTS = [p.read_text(encoding="utf-8") for p in sorted((HERE / "cases").glob("*.tx"))] + [
    CLASSES, PIPELINE_STATE, BARRIERS, SCHEDULERS]
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+|\"[^\"\n]*\"|\S")
REPLACEMENTS = ["0", "-1", "None", "True", "\"x\"", "(1, 2)", "[]", "self", "self.n", "super()", "super",
                "Counter", "Fancy", "MBarrier", "TMABar", "PipelineState", "WarpRole", "GroupMajor3D", "pool",
                "tx", "A", "A[0]", "is", "is not", "raise", "raise ValueError", "class", "@T.meta_class",
                "@T.inline", "@staticmethod", "@property", "__init__", "return", ",", ":", "(", ")", ".", "x"]


@pytest.mark.parametrize("seed", range(4))
def test_checker_never_raises(seed: int):
    rng = random.Random(seed)
    for _ in range(50):
        text = rng.choice(TEXTS)
        for _ in range(rng.randint(1, 3)):
            spans = [m.span() for m in TOKEN.finditer(text)]
            start, end = rng.choice(spans)
            roll = rng.random()
            new = rng.choice(REPLACEMENTS) if roll < 0.6 else "" if roll < 0.8 else \
                text[slice(*rng.choice(spans))]
            text = text[:start] + new + text[end:]
        source = SourceFile("mutant.tx", text)
        module = parse(source, Diagnostics())
        if module is None:
            continue
        try:
            check(module, source, Diagnostics(), arch="sm_100a")
        except Exception as err:  # pragma: no cover - the failure report
            pytest.fail(f"the checker raised {type(err).__name__}: {err}\n--- input ---\n{text}")
