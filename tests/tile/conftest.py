"""Every tile test also checks that dispatch leaves the checked module as it was: the module is
snapshotted (checked_snapshot.py) before and after `dispatch_module`, which returns a new one."""
from __future__ import annotations

import pytest

from tests.tile.checked_snapshot import snapshot
from transpiler.tile import dispatch


@pytest.fixture(autouse=True)
def dispatch_leaves_the_checked_module(monkeypatch):
    original = dispatch.dispatch_module

    def checked_dispatch(module, diags):
        before = snapshot(module)
        dispatched = original(module, diags)
        assert snapshot(module) == before, "dispatch changed the checked module in place"
        return dispatched

    monkeypatch.setattr(dispatch, "dispatch_module", checked_dispatch)
