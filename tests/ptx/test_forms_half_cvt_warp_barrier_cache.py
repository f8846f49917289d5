"""Half-precision arithmetic, general cvt, and the warp / barrier / cache odds and ends
(activemask, match.sync, f32 redux.sync, bar.red, getctarank, ldu, prefetchu, applypriority,
discard, st.bulk, mbarrier `.noComplete` and pending_count). Invalid spellings at their exact
file:line:col; accepted calls through the whole checker; ptxas compiles every example in
tests/ptx/test_nvcc.py's corpus."""
from __future__ import annotations

import pytest

from tests.ptx.snippet import FIRST, check, messages
from tests.ptx.test_forms_mma_qualifiers_async_stores_and_sink import COMPILED, _calls
from transpiler.target import ptx


def test_half_and_cvt_calls_check():
    calls = _calls("""\
        h = T.alloc_local((4,), "float16")
        f = T.alloc_local((2,), "float32")
        si = T.alloc_local((1,), "int32")
        T.ptx.fma.rn.f16(h[0], h[1], h[2], h[3])
        T.ptx.add.f16x2(r[0], r[1], r[2])
        T.ptx.setp.lt.f16x2(r[0], r[1], r[2], r[3])
        T.ptx.cvt.rn.f16.f32(h[1], f[0])
        T.ptx.cvt.rzi.s32.f32(si[0], f[1])
        T.ptx.cvt.f32.f16(f[0], h[2])
    """, "sm_80", "tirx_ptx_")
    assert calls == ["tirx_ptx_fma_rn_f16", "tirx_ptx_add_f16x2", "tirx_ptx_setp_lt_f16x2", "tirx_ptx_cvt_rn_f16_f32",
                     "tirx_ptx_cvt_rzi_s32_f32", "tirx_ptx_cvt_f32_f16"]
    # both halves' predicates land in integer registers
    assert "tirx_p|tirx_q" in ptx.helper_source("tirx_ptx_setp_lt_f16x2", COMPILED)


def test_bf16_arithmetic_rows():
    assert ptx.lookup("add.bf16").min_arch == 90 and ptx.lookup("fma.rn.bf16").min_arch == 80
    assert ptx.lookup("cvt.rn.bf16.f32").min_arch == 80 and ptx.lookup("cvt.f32.bf16").min_arch == 80  # (ptxas)
    assert ptx.lookup("cvt.ftz.f32.bf16").min_arch == 90 and ptx.lookup("cvt.f64.bf16").min_arch == 90
    _, errs = check('h = T.alloc_local((2,), "bfloat16")\nT.ptx.add.bf16(h[0], h[1], h[1])\n', "sm_80")
    assert errs == [(FIRST + 1, 5, "E0320")]


def test_warp_and_barrier_calls_check():
    calls = _calls("""\
        T.ptx.activemask.b32(r[0])
        T.ptx.match.all.sync.b32(r[1], r[2], A[0], r[0])
        T.ptx.bar.red.popc.u32(r[3], 0, tx < 5)
        T.ptx.barrier.red.and_.pred(r[3], 1, 128, r[2])
        T.ptx.ldu.global_.v2.b32(r[0], r[1], A.ptr_to([0]))
    """, "sm_90a", "tirx_ptx_")
    assert calls == ["tirx_ptx_activemask_b32", "tirx_ptx_match_all_sync_b32_v1", "tirx_ptx_bar_red_popc_u32",
                     "tirx_ptx_barrier_red_and_pred_v1", "tirx_ptx_ldu_global_v2_b32"]


def test_f32_redux_is_sm100a():
    instr = ptx.lookup("redux.sync.max.abs.NaN.f32")
    assert (instr.min_arch, instr.suffix) == (100, "a")
    _, errs = check("T.ptx.redux.sync.min.f32(f[0], f[1], 0xFFFFFFFF)\n", "sm_90a")
    assert errs == [(FIRST, 5, "E0320")]


def test_st_bulk_initval_is_zero():
    result, errs = check('T.ptx["st.bulk.weak.shared::cta"](bar.ptr_to([0]), U[0], 1)\n', "sm_100a")
    assert errs == [(FIRST, 62, "E0605")]
    assert "(initval) is 1" in messages(result)[0]


def test_no_complete_arrive_writes_the_state():
    calls = _calls("""\
        bar = T.alloc_shared((1,), "uint64")
        st = T.alloc_local((1,), "uint64")
        T.ptx.mbarrier.arrive.noComplete.shared__cta.b64(st[0], bar.ptr_to([0]), 2)
        T.ptx.mbarrier.pending_count.b64(r[0], st[0])
    """, "sm_90a", "tirx_ptx_")
    assert calls == ["tirx_ptx_mbarrier_arrive_noComplete_shared__cta_b64", "tirx_ptx_mbarrier_pending_count_b64"]


# -- fp8 / fp6 / fp4 / ue8m0 conversions -----------------------------------------------------------------
def test_narrow_conversions_are_sm100a_except_fp8_from_f16x2():
    assert ptx.lookup("cvt.rn.satfinite.e4m3x2.f16x2").min_arch == 89
    for mnemonic in ("cvt.rn.satfinite.e2m1x2.f32", "cvt.rn.f16x2.e2m3x2", "cvt.rz.ue8m0x2.f32", "cvt.rs.f16x2.f32"):
        instr = ptx.lookup(mnemonic)
        assert (instr.min_arch, instr.suffix) == (100, "a")
    # the fp4 pair is a .b8 in PTX: staged through a .b8 register into a 16-bit one
    assert "cvt.u16.u8 %0, tirx_b;" in ptx.lookup("cvt.rn.satfinite.e2m1x2.f32").source()
    calls = _calls("""\
        f = T.alloc_local((2,), "float32")
        h = T.alloc_local((1,), "uint16")
        T.ptx.cvt.rn.satfinite.e2m1x2.f32(h[0], f[0], f[1])
        T.ptx.cvt.rn.f16x2.e2m1x2(r[0], h[0])
    """, "sm_100a", "tirx_ptx_")
    assert calls == ["tirx_ptx_cvt_rn_satfinite_e2m1x2_f32", "tirx_ptx_cvt_rn_f16x2_e2m1x2"]


def test_tensor_reduction_store_operands():
    instr = ptx.lookup("cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group")
    assert [op.name for op in instr.operands] == ["tensor_map", "c0", "c1", "src"] and instr.min_arch == 90
    hinted = ptx.lookup("cp.reduce.async.bulk.tensor.3d.global.shared::cta.xor.bulk_group.L2::cache_hint")
    assert hinted.operands[-1].name == "cache_policy"


def test_arrive_drop_has_the_arrive_forms():
    drop = ptx.forms("mbarrier.arrive_drop.shared::cta.b64")
    plain = ptx.forms("mbarrier.arrive.shared::cta.b64")
    assert [[op.name for op in f.operands] for f in drop] == [[op.name for op in f.operands] for f in plain]
    calls = _calls("""\
        bar = T.alloc_shared((1,), "uint64")
        T.ptx.mbarrier.arrive_drop.shared__cta.b64(bar.ptr_to([0]))
        T.ptx.ex2.approx.ftz.bf16x2(r[0], r[1])
        g = T.alloc_local((1,), "float32")
        T.ptx.mad.rn.f32(g[0], T.float32(1), T.float32(2), T.float32(3))
    """, "sm_90a", "tirx_ptx_")
    assert calls == ["tirx_ptx_mbarrier_arrive_drop_shared__cta_b64", "tirx_ptx_ex2_approx_ftz_bf16x2",
                     "tirx_ptx_mad_rn_f32"]
