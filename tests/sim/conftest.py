"""tirxc sim's tests: skipped without a host C++ compiler or NumPy. Compiled simulators are
cached under the tests' build cache (build/test-cache/sim, or $TIRXC_TEST_CACHE), so a rerun of
an unchanged kernel skips g++."""
from __future__ import annotations

import os
import shutil

import pytest

from tests.build_cache import DEFAULT

try:
    import numpy  # noqa: F401
    _NUMPY = True
except ImportError:
    _NUMPY = False


def pytest_collection_modifyitems(config, items):
    reason = None if _NUMPY else "tirxc sim needs NumPy"
    if shutil.which(os.environ.get("TIRXC_SIM_CXX", "g++")) is None:
        reason = "tirxc sim needs a host C++ compiler (g++)"
    if reason is None:
        return
    for item in items:
        if "tests/sim/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session", autouse=True)
def sim_cache():
    """TIRXC_CACHE for the session: the simulator keeps its builds in `<it>/sim`."""
    setting = os.environ.get("TIRXC_TEST_CACHE")
    root = None if setting == "off" else (setting or str(DEFAULT))
    old = os.environ.get("TIRXC_CACHE")
    if root is not None:
        os.environ["TIRXC_CACHE"] = root
    yield
    if root is not None:
        if old is None:
            os.environ.pop("TIRXC_CACHE", None)
        else:
            os.environ["TIRXC_CACHE"] = old


def checked_options():
    """With TIRXC_SIM_CHECK=N set, every simulated GPU test runs under --racecheck --synccheck and
    N schedules (docs/sim.md), so a finding fails it: the full zero-findings run over the GPU-test
    kernels (tests/sim/test_checks_zero_findings.py runs a slice of the samples in CI)."""
    from transpiler import sim

    schedules = os.environ.get("TIRXC_SIM_CHECK")
    if not schedules:
        return None
    return sim.Options(racecheck=True, synccheck=True, schedules=int(schedules))


@pytest.fixture(scope="session")
def launcher_for():
    """As tests/gpu's fixture: launcher_for(stem, text=None) -> the module of samples/<stem>.tx or of
    `text`, here the simulated one; a kernel the simulator cannot run yet skips with its E0810."""
    from tests.conftest import SAMPLES
    from transpiler import sim
    from transpiler.syntax.source import SourceFile

    cache = {}

    def load(stem: str, text: str | None = None):
        if stem not in cache:
            source = SourceFile(f"{stem}.tx", text if text is not None else (SAMPLES / f"{stem}.tx").read_text())
            try:
                options = checked_options()
                cache[stem] = sim.load_source(source, options=options)
            except sim.SimLoadError as err:
                cache[stem] = err
        module = cache[stem]
        if isinstance(module, sim.SimLoadError):
            refusals = [d.message for d in module.result.diagnostics if d.code == "E0810"]
            if refusals:
                pytest.skip(refusals[0])
            raise AssertionError(str(module))
        return module

    return load
