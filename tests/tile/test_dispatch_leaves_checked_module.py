"""Dispatch returns a new module and writes nothing back into the checked one (tile/dispatch.py):
no body, parameter list, name table or storage alignment of the checked module changes, for
every sample and every `.tx` case of the tile tests (the other tile tests check the same on
their own kernels: conftest.py). A variant that is tried and refused leaves nothing behind."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.tile.checked_snapshot import snapshot
from transpiler.diag.diagnostics import Diagnostics
from transpiler.driver import compile_source
from transpiler.sema.check import check
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile
from transpiler.tile import registry
from transpiler.tile.dispatch import dispatch_module
from transpiler.tile.registry import Decline

ROOT = Path(__file__).resolve().parents[2]
CASES = sorted([*ROOT.glob("samples/*.tx"), *ROOT.glob("tests/check/cases/tile*.tx"),
                *ROOT.glob("tests/conformance/tile_primitives-*.tx")])


def _checked(source: SourceFile, arch: str | None):
    diags = Diagnostics()
    module = parse(source, diags)
    return (check(module, source, diags, arch=arch) if module is not None and not diags.has_errors else None), diags


@pytest.mark.parametrize("arch", [None, "sm_90a", "sm_100a"])
@pytest.mark.parametrize("path", CASES, ids=lambda p: str(p.relative_to(ROOT)))
def test_dispatch_leaves_the_checked_module_as_it_was(path, arch):
    source = SourceFile(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
    checked, diags = _checked(source, arch)
    if checked is None or diags.has_errors:
        pytest.skip("not a checked module on this architecture")
    before = snapshot(checked)
    dispatch_module(checked, diags)
    assert snapshot(checked) == before


KERNEL = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx

@T.prim_func
def kernel(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8,), "float32")
    T.device_entry()
    T.cta_id([1])
    T.thread_id([1])
    S = T.alloc_buffer((8,), "float32", scope="shared")
    Tx.copy(S, A)
'''


def test_a_refused_variant_leaves_no_raised_alignment_behind(monkeypatch):
    raised = []

    def raise_then_refuse(call, cx):
        storage = call.operand("dst").buffer.storage
        cx.raise_alignment(storage, 512)
        raised.append(storage)
        raise Decline("refused after raising the alignment")

    refusing = registry.Variant("copy", "raise_then_refuse", 1000, (), raise_then_refuse)
    monkeypatch.setitem(registry.VARIANTS, "copy", [refusing, *registry.VARIANTS["copy"]])
    source = SourceFile("k.tx", KERNEL)
    checked, diags = _checked(source, None)
    dispatched = dispatch_module(checked, diags)
    storage, = raised
    assert not diags.has_errors and storage.align < 512
    kernel, = dispatched.kernels
    assert storage not in kernel.raised_align
    record, = kernel.tile_dispatch
    assert record.rejected[0] == ("raise_then_refuse", "refused after raising the alignment")
    assert "alignas(512)" not in compile_source(source).cuda
