"""The checker never raises: every input either checks or gets diagnostics.

Deterministic token-level mutations of the samples and the case files
(replace a token, drop it, copy another token over it, double it) are parsed,
and every mutant that parses is checked. A Python exception from the checker
is a bug; syntax errors and the parser's own problems are out of scope here.
"""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from transpiler.sema.check import check
from transpiler.diag.diagnostics import Diagnostics
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile

HERE = Path(__file__).resolve().parent
INPUTS = sorted((HERE.parents[1] / "samples").glob("*.tx")) + sorted((HERE / "cases").glob("*.tx"))
TOKEN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+\.\d+|\d+|\"[^\"\n]*\"|\S")
REPLACEMENTS = [
    "0", "-1", "2.5", "1024", "65536", "3000000000", "None", "True", "\"float16\"", "\"float32x4\"", "\"int8\"",
    "\"shared.dyn\"", "\"tmem\"", "\"local\"", "\"global\"", "\"\"", "(1, 2)", "[]", "()", "[0]", "T", "T.cuda",
    "T.int32", "T.let", "T.handle", "T.float32(1)", "tx", "A", "A.data", "A[0]", "A.view(-1)", "x", "n", "i",
    "-", "*", "/", "//", "[", "]", ",", ":", "1 // 0", "layout=None", "0.0",
]
MUTANTS_PER_SEED = 40


def mutants(seed: int):
    rng = random.Random(seed)
    for _ in range(MUTANTS_PER_SEED):
        path = rng.choice(INPUTS)
        text = path.read_text(encoding="utf-8")
        for _ in range(rng.randint(1, 3)):
            spans = [m.span() for m in TOKEN.finditer(text)]
            start, end = rng.choice(spans)
            roll = rng.random()
            if roll < 0.5:
                new = rng.choice(REPLACEMENTS)
            elif roll < 0.7:
                new = ""
            elif roll < 0.9:
                other = rng.choice(spans)
                new = text[other[0]:other[1]]
            else:
                new = text[start:end] * 2
            text = text[:start] + new + text[end:]
        yield path.name, text


@pytest.mark.parametrize("seed", range(6))
def test_checker_never_raises(seed: int):
    for name, text in mutants(seed):
        source = SourceFile(name, text)
        try:
            module = parse(source, Diagnostics())
        except Exception:  # the parser's robustness is tested elsewhere
            continue
        if module is None:
            continue
        try:
            check(module, source, Diagnostics())
        except Exception as err:  # pragma: no cover - the failure report
            pytest.fail(f"the checker raised {type(err).__name__}: {err}\n--- input ---\n{text}")
