"""The PTX table as data: every example spelling is a valid form, helper names are unique,
invalid spellings say why, the wgmma shape domains, the arch guards, and docs/ptx.md is
current. (ptxas judges the rendered helpers in test_nvcc.py.)"""
from __future__ import annotations

import pytest

from tests.conftest import ROOT
from transpiler.target import ptx
from transpiler.target.arch import guard_condition
from transpiler.target.ptx.docs import markdown


def test_every_example_is_a_valid_form_of_its_own_family():
    for family in ptx.FAMILIES:
        assert family.examples, family.pattern
        for mnemonic in family.examples:
            forms = ptx.forms(mnemonic)
            assert isinstance(forms, list) and forms, (mnemonic, forms)
            assert ptx.family_of(mnemonic) is family, mnemonic


def test_helper_names_are_unique_per_form():
    names = {}
    for mnemonic in ptx.EXAMPLES:
        for instr in ptx.forms(mnemonic):
            for variant in (instr, ptx.predicated(instr), ptx.predicated(instr, True)):
                assert names.setdefault(variant.helper, (mnemonic, variant.operands)) == (mnemonic, variant.operands)


def test_forms_of_one_mnemonic_differ_in_count_or_roles():
    for mnemonic in ptx.EXAMPLES:
        shapes = [tuple((op.role, op.kind if op.role != "addr" else "") for op in f.operands) for f in ptx.forms(mnemonic)]
        assert len(set(shapes)) == len(shapes), mnemonic


@pytest.mark.parametrize("mnemonic, reason", [
    ("ld.acquire.global.b32", "`.acquire` needs a scope"),
    ("ld.global.add.u32", "ld takes no operation"),
    ("st.acquire.gpu.global.b32", "st has no `.acquire`"),
    ("red.global.u32", "red needs an operation"),
    ("ld.global.nc.acquire.gpu.b32", "`.nc` is a weak global load"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.f16", "B's type does not go with A's"),
    ("wgmma.mma_async.sync.aligned.m64n8k8.f32.bf16.bf16", "bf16 inputs take k16"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f16.bf16.bf16", "bf16 inputs accumulate in f32"),
    ("wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8", "no m64n40 shape for s8"),
    ("wgmma.mma_async.sync.aligned.m64n264k16.f32.f16.f16", "no m64n264 shape for f16"),
    ("wgmma.mma_async.sync.aligned.m64n8k32.f32.s8.s8", "s8 inputs accumulate in s32"),
    ("tcgen05.ld.sync.aligned.16x256b.x64.b32", "16x256b repeats at most x32"),
    ("tcgen05.mma.cta_group::1.kind::f16.block_scale", "kind::f16 has no block scaling"),
    ("mma.sync.aligned.m16n8k16.row.col.f32.f16.bf16.f32", "A and B have one type"),
])
def test_invalid_spellings_say_why(mnemonic, reason):
    assert ptx.forms(mnemonic).startswith(reason)


def test_unknown_spellings_match_no_family():
    assert ptx.forms("wgmma.mma_sync.aligned") is None
    assert ptx.lookup("bogus.op") is None


def test_wgmma_shapes_and_register_counts():
    for n in range(8, 257, 8):
        ss, rs = ptx.forms(f"wgmma.mma_async.sync.aligned.m64n{n}k16.f32.bf16.bf16")
        assert [op.role for op in ss.operands].count("inout") == n // 2
        assert len(ss.operands) == n // 2 + 7 and len(rs.operands) == n // 2 + 9
        f16 = ptx.forms(f"wgmma.mma_async.sync.aligned.m64n{n}k16.f16.f16.f16")[0]
        assert [op.role for op in f16.operands].count("inout") == n // 4
        tf32 = ptx.forms(f"wgmma.mma_async.sync.aligned.m64n{n}k8.f32.tf32.tf32")[0]
        assert [op.name for op in tf32.operands[n // 2:]] == ["a_desc", "b_desc", "scale_d", "scale_a", "scale_b"]
    ints = ptx.forms("wgmma.mma_async.sync.aligned.m64n64k32.s32.u8.s8")
    assert [op.name for op in ints[0].operands[32:]] == ["a_desc", "b_desc", "scale_d"]


def test_arch_specific_helpers_trap_outside_their_targets():
    source = ptx.lookup("wgmma.fence.sync.aligned").source()
    assert "#ifdef TIRX_HAS_WGMMA\n" in source and "__trap();" in source
    fence = ptx.lookup("wgmma.fence.sync.aligned")
    assert ptx.guard_definitions([fence.helper, "tirx_floordiv"], {fence.helper: fence}) == [
        ("wgmma", "TIRX_HAS_WGMMA", "defined(__CUDA_ARCH_FEAT_SM90_ALL)")]
    assert guard_condition("memory") == ""
    assert "__trap" not in ptx.lookup("ld.global.b32").source()
    tcgen05 = guard_condition("tcgen05")
    assert "__CUDA_ARCH_FEAT_SM100_ALL" in tcgen05 and "__CUDA_ARCH_FAMILY_SPECIFIC__ == 1000" in tcgen05
    assert "__CUDA_ARCH_FEAT_SM90_ALL" not in tcgen05


def test_docs_page_is_current():
    page = ROOT / "docs" / "ptx.md"
    assert page.read_text(encoding="utf-8") == markdown(), \
        "docs/ptx.md is stale: run `.venv/bin/python -m transpiler.target.ptx.docs > docs/ptx.md`"
