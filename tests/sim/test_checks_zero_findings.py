"""Zero findings of `tirxc sim --racecheck --synccheck` on the sample cases of the GPU tests
(tests/gpu/cases.py), with the same answers as without the checks: in CI a seeded slice of the
cases, all of them with TIRXC_SIM_CHECK_ALL=1 (docs/sim.md gives the full run's result). The
GPU-test kernels under tests/sim/gpu run checked with TIRXC_SIM_CHECK=N (tests/sim/conftest.py)."""
from __future__ import annotations

import os
import random

import pytest

from tests.gpu.cases import PARAMS, make_args
from tests.conftest import SAMPLES
from tests.sim.host import on_host
from transpiler import sim

SLICE = 2  # cases in CI: each is one build of a checked simulator
CASES = PARAMS if os.environ.get("TIRXC_SIM_CHECK_ALL") else random.Random(27).sample(
    [p for p in PARAMS if p[1]["sample"] in ("block_reduce", "warp_reduce", "smem_demo", "dyn_smem_views")], SLICE)
CHECKED = sim.Options(racecheck=True, synccheck=True, schedules=2)
_MODULES: dict = {}


@pytest.mark.parametrize("case_id, case, size", CASES, ids=[p[0] for p in CASES])
def test_sample_case_has_no_findings_and_its_answer(case_id, case, size):
    stem = case["sample"]
    if stem not in _MODULES:
        try:
            _MODULES[stem] = sim.load(SAMPLES / f"{stem}.tx", options=CHECKED)
        except sim.SimLoadError as refused:  # E0810: what the simulator cannot run yet
            _MODULES[stem] = refused
    module = _MODULES[stem]
    if isinstance(module, sim.SimLoadError):
        pytest.skip(str(module))
    args = make_args(case, size)
    bases, passed = on_host(args, case)
    module.kernels[case["kernel"]](*passed)  # SimFindings would fail the test with the findings
    case["check"](args, [bases[i] if i in bases else arg for i, arg in enumerate(args)])
