"""Every sample case of the GPU tests (tests/gpu/cases.py) under `tirxc sim`, against the same
NumPy oracle and tolerances: a sample the simulator runs must give the GPU test's answer and
launch configuration; one it cannot run yet must be refused by name (E0810), never run
approximately."""
from __future__ import annotations

import resource

import pytest

from tests.gpu.cases import PARAMS, make_args
from tests.sim.host import on_host, sample_module
from transpiler import sim

# docs/sim.md: every GPU-test kernel at its test size in under 10 s on a 2-core machine; measured
# as the simulator's CPU time (all its threads), which other load on the machine does not inflate
SECONDS = 10.0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@pytest.mark.parametrize("case_id, case, size", PARAMS, ids=[p[0] for p in PARAMS])
def test_sample_matches_its_numpy_oracle_or_is_refused_by_name(case_id, case, size):
    module = sample_module(case["sample"])
    if isinstance(module, sim.SimLoadError):
        codes = {d.code for d in module.result.diagnostics if d.severity == "error"}
        assert codes == {"E0810"}, str(module)
        assert "not supported yet by tirxc sim" in str(module)
        return
    kernel = module.kernels[case["kernel"]]
    args = make_args(case, size)
    bases, passed = on_host(args, case)
    declared = case["launch"](args)
    pad = lambda t: tuple(t) + (1,) * (3 - len(t))  # noqa: E731
    assert kernel.launch_config(*passed) == (pad(declared["grid"]), pad(declared["block"]),
                                             declared["dyn_shared_bytes"])
    module.executable()  # the build is not the run's time
    started = _children_cpu()
    kernel(*passed)
    assert _children_cpu() - started < SECONDS
    after = [bases[i] if i in bases else arg for i, arg in enumerate(args)]
    case["check"](args, after)
