"""The arithmetic PTX families: min / max (integer, packed, float,
half, three-input), div / rem, mul24 / mad24, sad, bfe / bfi / bfind / fns, dp4a / dp2a, testp,
copysign, shf, slct and set. Invalid spellings at their exact file:line:col; accepted calls
(upstream's spellings) through the whole checker; the architecture rows; ptxas compiles every
example in tests/ptx/test_nvcc.py's corpus."""
from __future__ import annotations

import pytest

from tests.ptx.snippet import FIRST, check, messages
from tests.ptx.test_forms_mma_qualifiers_async_stores_and_sink import _calls
from transpiler.target import ptx


def test_upstream_spellings_check():
    calls = _calls("""\
        f = T.alloc_local((4,), "float32")
        si = T.alloc_local((2,), "int32")
        T.ptx.max.f32(f[0], f[1], f[2])
        T.ptx.dp4a.s32.s32(si[0], si[1], A[2], A[3])
        T.ptx.div.approx.ftz.f32(f[0], f[0], f[3])
        T.ptx.div.s32(si[1], si[0], A[2])
        T.ptx.copysign.f32(f[1], f[0], f[2])
        T.ptx.testp.notanumber.f32(r[0], f[1])
        T.ptx.slct.ftz.b32.f32(r[1], r[1], r[2], f[0])
        T.ptx.shf.l.clamp.b32(r[2], r[2], r[3], T.uint32(4))
        T.ptx.bfi.b32(r[0], r[1], r[2], 3, 5)
        T.ptx.bfe.u32(r[0], r[1], 3, 5)
        T.ptx.set.lt.u32.s32(r[3], A[0], A[1])
    """, "sm_80", "tirx_ptx_")
    assert calls == ["tirx_ptx_max_f32", "tirx_ptx_dp4a_s32_s32", "tirx_ptx_div_approx_ftz_f32", "tirx_ptx_div_s32",
                     "tirx_ptx_copysign_f32", "tirx_ptx_testp_notanumber_f32", "tirx_ptx_slct_ftz_b32_f32",
                     "tirx_ptx_shf_l_clamp_b32", "tirx_ptx_bfi_b32", "tirx_ptx_bfe_u32", "tirx_ptx_set_lt_u32_s32"]


def test_three_input_max_is_a_second_form_of_sm100():
    forms = ptx.forms("max.f32")
    assert [len(f.operands) for f in forms] == [3, 4] and [f.min_arch for f in forms] == [75, 100]
    assert _calls('f = T.alloc_local((4,), "float32")\nT.ptx.max.f32(f[0], f[1], f[2], f[3])\n', "sm_100a",
                  "tirx_ptx_") == ["tirx_ptx_max_f32_v1"]
    _, errs = check("T.ptx.max.f32(f[0], f[1], f[2], f[3])\n", "sm_90a")
    assert errs == [(FIRST, 5, "E0320")]
    assert ptx.forms("max.abs.f32")[0].min_arch == 100


@pytest.mark.parametrize("mnemonic, arch", [
    ("max.relu.s32", 90), ("min.u16x2", 90), ("min.NaN.f32", 80), ("max.bf16x2", 80),
    ("min.xorsign.abs.f16", 86), ("max.s64", 75), ("fns.b32", 75), ("dp2a.hi.s32.u32", 75),
])
def test_architecture_rows(mnemonic, arch):
    assert ptx.lookup(mnemonic).min_arch == arch


def test_newer_min_max_is_refused_on_sm80():
    _, errs = check('si = T.alloc_local((2,), "int32")\nT.ptx.max.relu.s32(si[0], A[1], A[2])\n', "sm_80")
    assert errs == [(FIRST + 1, 5, "E0320")]


def test_dp4a_accumulates_in_u32_only_when_both_are_unsigned():
    assert [op.kind for op in ptx.lookup("dp4a.u32.u32").operands] == ["u32"] * 4
    assert [op.kind for op in ptx.lookup("dp4a.u32.s32").operands] == ["s32", "u32", "s32", "s32"]


# -- mma.sync: integer, f64, tf32, fp8, m8n8k4 ------------------------------------------------------------
@pytest.mark.parametrize("mnemonic, n_ops, arch", [
    ("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", 4 + 4 + 2 + 4, 80),
    ("mma.sync.aligned.m8n8k16.row.col.s32.u8.u8.s32", 2 + 1 + 1 + 2, 75),
    ("mma.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.s4.s32", 4 + 4 + 2 + 4, 80),
    ("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64", 2 + 1 + 1 + 2, 80),
    ("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64", 4 + 8 + 4 + 4, 90),
    ("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32", 4 + 2 + 1 + 4, 80),
    ("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32", 4 + 4 + 2 + 4, 89),
    ("mma.sync.aligned.m8n8k4.col.col.f32.f16.f16.f16", 8 + 2 + 2 + 4, 75),
])
def test_mma_sync_register_counts(mnemonic, n_ops, arch):
    instr = ptx.lookup(mnemonic)
    assert (len(instr.operands), instr.min_arch) == (n_ops, arch)


def test_integer_mma_call_checks():
    calls = _calls("""\
        d = T.alloc_local((4,), "int32")
        T.ptx.mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32(d[0], d[1], d[2], d[3], r[0], r[1], r[2], r[3], r[0],
                                                             r[1], d[0], d[1], d[2], d[3])
    """, "sm_80", "tirx_ptx_")
    assert calls == ["tirx_ptx_mma_sync_aligned_m16n8k32_row_col_s32_s8_s8_s32"]


# -- cnot, bmsk, szext, cvt.pack ---------------------------------------------------------------------------
def test_upstream_cnot_and_cvt_pack_spellings():
    calls = _calls("""\
        T.ptx.cnot.b32(r[0], r[1])
        T.ptx.cvt_pack.sat.u16.s32(r[1], T.int32(1), T.int32(2))
        T.ptx.cvt_pack.sat.u8.s32.b32(r[2], T.int32(1), T.int32(2), r[1])
        T.ptx.bmsk.clamp.b32(r[3], T.uint32(4), T.uint32(8))
    """, "sm_80", "tirx_ptx_")
    assert calls == ["tirx_ptx_cnot_b32", "tirx_ptx_cvt_pack_sat_u16_s32", "tirx_ptx_cvt_pack_sat_u8_s32_b32",
                     "tirx_ptx_bmsk_clamp_b32"]


def test_cvt_pack_c_goes_with_the_narrow_types():
    result, errs = check('T.ptx["cvt.pack.sat.u8.s32"](r[0], 1, 2)\n')
    assert errs == [(FIRST, 5, "E0603")]
    assert "the 8 / 4 / 2-bit ones take c" in messages(result)[0]
