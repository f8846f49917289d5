"""`tirxc sim --racecheck --synccheck` on wgmma's groups and fences and on the async proxy
(docs/sim.md, "wgmma groups", "Proxies"): the kernels of tests/sim/kernels/async_checks.tx each
report exactly the findings their comments name (`# finding CODE` where it is found, `# earlier
CODE` at the other place it names), and the correct ones none. One checked build of the file
serves every test."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.sim.test_checks import expected_findings, places
from transpiler import sim

FILE = Path(__file__).resolve().parent / "kernels" / "async_checks.tx"
CHECKED = sim.Options(racecheck=True, synccheck=True, jobs=1)



FOUND = expected_findings(FILE.read_text())
EXPECTED = {k: v for k, v in FOUND.items() if k.startswith("wgmma_")}
TMA_EXPECTED = {k: v for k, v in FOUND.items() if k.startswith("tma_")}


@pytest.fixture(scope="module")
def module():
    return sim.load(FILE, arch="sm_90a", options=CHECKED)


def _run(kernel):
    rng = np.random.default_rng(27)
    a = rng.integers(-8, 8, (64, 16)).astype(np.float16)
    bt = rng.integers(-8, 8, (8, 16)).astype(np.float16)
    d = np.zeros((64, 8), np.float32)
    try:
        kernel(a, bt, d)
    except sim.SimFindings as found:
        return found.diagnostics, None
    return [], (d, a.astype(np.float64) @ bt.astype(np.float64).T)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_kernel_reports_exactly_the_findings_its_comments_name(module, name):
    found, _ = _run(module.kernels[name])
    assert places(found) == EXPECTED[name], "\n".join(f"{d.code} {d.span.line}: {d.message}" for d in found)


@pytest.mark.parametrize("name", sorted(TMA_EXPECTED))
def test_each_tma_kernel_reports_exactly_the_findings_its_comments_name(module, name):
    a = np.arange(40 * 128, dtype=np.float32).reshape(40, 128)
    b = np.ones((16, 32), np.float32)
    try:
        module.kernels[name](a, b)
        found = []
    except sim.SimFindings as error:
        found = error.diagnostics
    assert places(found) == TMA_EXPECTED[name], "\n".join(f"{d.code} {d.span.line}: {d.message}" for d in found)


def test_the_correct_kernel_computes_the_product(module):
    _, (d, want) = _run(module.kernels["wgmma_waited"])
    np.testing.assert_array_equal(d, want)


def test_an_accumulator_read_names_the_wgmma_and_the_code_explains():
    from transpiler.diag.codes import CODES

    assert "wait_group" in CODES["E0824"][1] and "wgmma.fence" in CODES["E0825"][1]
    assert "fence.proxy.async" in CODES["E0826"][1] and "fence.mbarrier_init" in CODES["E0838"][1]
