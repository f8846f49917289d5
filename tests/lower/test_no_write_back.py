"""Lowering writes nothing back into the module dispatch returned: array names, alignments and
read-only flags are settled on lowering's own copies of the storage (lower/expressions.py own),
so a snapshot of everything reachable from the module is the same before and after lowering,
for every sample, every `.tx` case of the checker tests that compiles and every tile case file."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.tile.checked_snapshot import snapshot
from transpiler.diag.diagnostics import Diagnostics
from transpiler.lower.lower import lower
from transpiler.sema.check import check
from transpiler.syntax.parse import parse
from transpiler.syntax.source import SourceFile
from transpiler.tile.dispatch import dispatch_module

ROOT = Path(__file__).resolve().parents[2]
CASES = sorted([*ROOT.glob("samples/*.tx"), *ROOT.glob("tests/check/cases/*.tx"),
                *ROOT.glob("tests/tile/cases/**/*.tx"), *ROOT.glob("tests/conformance/tile_primitives-*.tx")])


def _dispatched(source: SourceFile, arch: str | None):
    diags = Diagnostics()
    module = parse(source, diags)
    if module is None or diags.has_errors:
        return None, diags
    checked = check(module, source, diags, arch=arch)
    if diags.has_errors:
        return None, diags
    return dispatch_module(checked, diags), diags


@pytest.mark.parametrize("arch", [None, "sm_100a"])
@pytest.mark.parametrize("path", CASES, ids=lambda p: str(p.relative_to(ROOT)))
def test_lowering_leaves_the_dispatched_module_as_it_was(path, arch):
    source = SourceFile(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))
    module, diags = _dispatched(source, arch)
    if module is None or diags.has_errors:
        pytest.skip("does not compile on this architecture")
    before = snapshot(module)
    program = lower(module, diags)
    assert snapshot(module) == before, "lowering changed the module in place"
    assert program.kernels or not module.kernels


def test_lowering_settles_names_alignment_and_readonly_on_its_own_storage():
    source = SourceFile("k.tx", KERNEL)
    module, diags = _dispatched(source, None)
    kernel, = module.kernels
    a, b = (p.buffer.storage for p in kernel.params)
    program = lower(module, diags)
    assert not diags.has_errors
    lowered_a = program.kernels[0].spec.params[0].buffer.storage
    assert lowered_a.readonly and not a.readonly and lowered_a is not a
    assert not b.readonly


KERNEL = '''from tvm.script import tirx as T

@T.prim_func
def kernel(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (8,), "float32")
    B = T.match_buffer(B_ptr, (8,), "float32")
    T.device_entry()
    T.cta_id([1])
    tx = T.thread_id([8])
    B[tx] = A[tx]
'''
