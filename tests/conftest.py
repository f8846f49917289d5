"""Shared fixtures: paths, a compile helper, and the --update-golden / --update-check-cases flags."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"


def pytest_configure(config):
    """The simulator's builds (`tirxc sim`, and `tirxc run` without a GPU, in subprocesses too) go to
    the tests' cache (build/test-cache/sim, tests/build_cache.py) for the whole run: a kernel is
    built once a run, and the suite writes nothing into the user's ~/.cache."""
    from tests.build_cache import cache_dir

    root = cache_dir()
    if root is not None:
        os.environ.setdefault("TIRXC_CACHE", str(root))


def pytest_collection_modifyitems(config, items):
    """The slowest files first, so that the parallel workers finish together (tests/schedule.py)."""
    from tests.schedule import slowest_files_first

    items[:] = slowest_files_first(items, ROOT)


def pytest_addoption(parser):
    parser.addoption("--update-golden", action="store_true", default=False,
                     help="rewrite tests/golden/*.cu from the current output instead of comparing")
    parser.addoption("--update-conformance", action="store_true", default=False,
                     help="rewrite tests/conformance/expected.json and docs/conformance.md from the current run")
    parser.addoption("--update-check-cases", action="store_true", default=False,
                     help="rewrite the diagnostic comments of the case files (tests/check/case_files.py) "
                          "from the actual output instead of comparing (review the diff like code)")


@pytest.fixture
def update_golden(request) -> bool:
    return request.config.getoption("--update-golden")


@pytest.fixture
def update_check_cases(request) -> bool:
    return bool(request.config.getoption("--update-check-cases"))


def transpile(text: str, name: str = "kernel.tx", **options):
    """Run the pipeline on text; returns the driver Result."""
    return compile_source(SourceFile(name, text), **options)


def errors(result) -> list[tuple[int, int, str]]:
    return [(d.span.line, d.span.col, d.code) for d in result.diagnostics if d.severity == "error"]


def has_nvcc() -> bool:
    return shutil.which("nvcc") is not None
