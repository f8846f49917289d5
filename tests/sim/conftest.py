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
