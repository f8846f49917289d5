"""The short, seeded fuzz runs of CI (a few seconds) and the regression inputs.

The long campaign is `python -m tests.fuzz.campaign` (docs/reliability.md);
these are small deterministic slices of it: Hypothesis drives the
grammar-aware generator with `derandomize=True`, the mutation fuzzer runs
fixed seeds, and every file in tests/fuzz/regressions/ (each one a finding of
a campaign, minimised) must pass the invariants of harness.check_input.
Set TIRXC_FUZZ_EXAMPLES to run more examples locally.
"""
from __future__ import annotations

import os
import random
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from .generate import kernel_files, random_kernel_file
from .harness import RECURSION_LIMIT, Finding, check_input, nvcc_available, nvcc_check, seed_texts
from .mutate import mutant

HERE = Path(__file__).resolve().parent
REGRESSIONS = sorted((HERE / "regressions").glob("*.tx"))
OPEN = sorted((HERE / "open").glob("*.tx"))  # findings not fixed yet: each file says why and where
EXAMPLES = int(os.environ.get("TIRXC_FUZZ_EXAMPLES", "0") or 0)
sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))  # as cli.main; before Hypothesis runs


def _assert_ok(result, text: str) -> None:
    if isinstance(result, Finding):
        pytest.fail(f"{result}\n{result.detail}\n--- input ---\n{text}")


@settings(max_examples=EXAMPLES or 100, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(kernel_files())
def test_generated_kernels_keep_the_invariants(text):
    _assert_ok(check_input(text), text)


def test_generated_kernels_are_mostly_accepted():
    """The generator is useful only if most of its files get through the checker and
    lowering (their `.cu` is what nvcc sees); a drop means it fell behind the checker."""
    outcomes = [check_input(random_kernel_file(random.Random(f"ci:{i}"))) for i in range(40)]
    for result in outcomes:
        assert not isinstance(result, Finding), str(result)
    accepted = sum(1 for r in outcomes if r.accepted)
    assert accepted >= 16, f"only {accepted} of 40 generated files were accepted"


@pytest.mark.parametrize("seed", range(4))
def test_mutants_keep_the_invariants(seed):
    seeds = seed_texts()
    for i in range(EXAMPLES or 150):
        name, text = mutant(random.Random(f"ci-{seed}:{i}"), seeds)
        _assert_ok(check_input(text, name="mutant.tx"), text)


def _expected(text: str) -> str | None:
    """A regression file's first line may say `# expect: accepted` or `# expect: E0321[, ...]`."""
    first = text.split("\n", 1)[0]
    return first.split(":", 1)[1].strip() if first.startswith("# expect:") else None


@pytest.mark.parametrize("path", REGRESSIONS, ids=lambda p: p.stem)
def test_regression_inputs(path):
    text = path.read_text(encoding="utf-8")
    result = check_input(text, name=path.name)
    _assert_ok(result, text)
    _assert_ok(check_input(text, name=path.name, line_info=True), text)
    expected = _expected(text)
    if expected == "accepted":
        assert result.accepted, result.codes
    elif expected:
        assert not result.accepted and set(result.codes) == {c.strip() for c in expected.split(",")}, \
            result.codes


@pytest.mark.nvcc
@pytest.mark.skipif(not nvcc_available(), reason="nvcc is not on PATH")
def test_accepted_regression_inputs_compile_with_nvcc():
    cudas = []
    for path in REGRESSIONS:
        result = check_input(path.read_text(encoding="utf-8"), name=path.name, line_info=True)
        if not isinstance(result, Finding) and result.accepted:
            cudas.append((path.name, result.cuda))
    with ThreadPoolExecutor(max_workers=2) as pool:
        messages = list(pool.map(lambda item: nvcc_check(item[1]), cudas))
    for (name, cuda), message in zip(cudas, messages):
        assert message is None, f"{name}: {message}"


@pytest.mark.nvcc
@pytest.mark.skipif(not nvcc_available(), reason="nvcc is not on PATH")
def test_generated_cuda_compiles_with_nvcc():
    """A sample of accepted generated files: their `.cu` compiles (nvcc, no -Werror:
    warnings about the generated program's own arithmetic are the program's)."""
    texts = []
    i = 0
    while len(texts) < 4:
        result = check_input(random_kernel_file(random.Random(f"nvcc:{i}")))
        i += 1
        assert not isinstance(result, Finding), str(result)
        if result.accepted:
            texts.append(result.cuda)
    with ThreadPoolExecutor(max_workers=2) as pool:
        messages = list(pool.map(nvcc_check, texts))
    for cuda, message in zip(texts, messages):
        assert message is None, f"{message}\n--- .cu ---\n{cuda}"


@pytest.mark.nvcc
@pytest.mark.skipif(not nvcc_available(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("path", OPEN, ids=lambda p: p.stem)
@pytest.mark.xfail(strict=True, reason="an open finding (see the file's header and docs/reliability.md): "
                                       "move the file to regressions/ once it passes")
def test_open_findings(path):
    text = path.read_text(encoding="utf-8")
    result = check_input(text, name=path.name)
    _assert_ok(result, text)
    assert result.accepted, result.codes
    message = nvcc_check(result.cuda)
    assert message is None, message
