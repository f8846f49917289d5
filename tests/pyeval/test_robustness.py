"""The Python level never makes the checker raise: token-level mutations of the pyeval test
kernels (the case files, the value and helper kernels) are parsed and checked; a Python exception
is a bug (syntax errors are out of scope). Same method as tests/check/test_robustness.py."""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from tests.pyeval.test_helpers import KERNEL as HELPERS
from tests.pyeval.test_values import ROWS, kernel
from transpiler.diag.diagnostics import Diagnostics
from transpiler.sema.check import check
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile

HERE = Path(__file__).resolve().parent
TEXTS = [p.read_text(encoding="utf-8") for p in sorted((HERE / "cases").glob("*.tx"))] + [HELPERS, kernel(ROWS)]
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+|\"[^\"\n]*\"|\S")
REPLACEMENTS = ["0", "-1", "2.5", "None", "True", "\"x\"", "f\"{1}\"", "f\"{A}\"", "(1, 2)", "[]", "()", "{}",
                "*", "**", "[i for i in range(3)]", "{k: 1 for k in 'ab'}", "range(2)", "len", "zip", "tx", "A",
                "A[0]", "T.meta_var", "fact", "tile", "idx", "add_into", "return", ",", ":", "(", ")", "x", "i"]


@pytest.mark.parametrize("seed", range(4))
def test_checker_never_raises(seed: int):
    rng = random.Random(seed)
    for _ in range(60):
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
            check(module, source, Diagnostics())
        except Exception as err:  # pragma: no cover - the failure report
            pytest.fail(f"the checker raised {type(err).__name__}: {err}\n--- input ---\n{text}")
