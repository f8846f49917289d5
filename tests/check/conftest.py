"""Options of the checker tests."""
from __future__ import annotations

import pytest


def pytest_addoption(parser):
    parser.addoption("--update-check-cases", action="store_true", default=False,
                     help="rewrite the inline expectations of tests/check/cases/*.tx from the checker's "
                          "actual output instead of comparing (review the diff like code)")


@pytest.fixture
def update_check_cases(request) -> bool:
    return bool(request.config.getoption("--update-check-cases", default=False))
