"""PTX families of TIRx's table (python/tvm/backend/cuda/ptx/table.py): the 256-bit
ld / st vectors, mov.b128 and mov.b64's 16-bit packs, createpolicy's range / cvt lines, lop3's
predicate form and the .pred logic, tensormap.cp_fenceproxy, clusterlaunchcontrol, mma.sp, the
fp8 / f16-accumulating / single-bit mma.sync lines, the b8 ldmatrix / stmatrix forms and the
remaining cvt lines. Errors at their exact file:line:col; accepted calls through the whole
checker (tests/ptx/test_nvcc.py compiles every example with ptxas)."""
from __future__ import annotations

from tests.conftest import transpile
from tests.ptx.snippet import FIRST, check, messages
from tests.ptx.test_forms_mma_sparse_ws_and_preserve_dst import HEADER, _kernel
from tests.ptx.test_forms_mma_qualifiers_async_stores_and_sink import COMPILED
from transpiler.target import ptx


def _calls(body: str, arch: str, prefix: str = "tirx_ptx_") -> list[str]:
    result = transpile(HEADER + _kernel(body), "k.tx", arch=arch)
    assert result.ok, [f"{d.span.line}:{d.span.col} {d.code} {d.message}" for d in result.diagnostics]
    COMPILED.update(result.program.ptx_instructions)
    return [line.strip().split("(")[0] for line in result.cuda.splitlines() if line.strip().startswith(prefix)]


def test_not_instructions_are_unknown():
    """Spellings no family has stay E0601 (mma.sync's sm_120a block-scaled lines, which TIRx's
    table leaves out too; lop3's predicate form has no .xor)."""
    for mnemonic in ("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.f32.e4m3.e4m3.f32.ue8m0",
                     "lop3.xor.b32"):
        _, errs = check(f'T.ptx["{mnemonic}"]()\n', "sm_100a")
        assert errs == [(FIRST, 5, "E0601")], mnemonic


# -- 256-bit ld / st -----------------------------------------------------------------------------------
def test_256_bit_vectors_need_sm100():
    body = 'T.ptx["ld.global.v8.f32"](f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], A.ptr_to([0]))\n'
    result, errs = check(body, "sm_90a")
    assert errs == [(FIRST, 5, "E0320")]
    assert "sm_100" in messages(result)[0]
    assert check(body, "sm_100")[1] == []
    # the 128-bit vectors stay sm_75; .v4 of a 64-bit type is 256 bits
    assert ptx.lookup("ld.global.v4.f32").min_arch == 75 and ptx.lookup("ld.global.v4.u64").min_arch == 100
    assert ptx.lookup("st.global.v4.b64").feature == "ld256"


def test_256_bit_sinks():
    calls = _calls("""\
        f = T.alloc_local((8,), "float32")
        T.ptx["ld.global.v8.f32"](f[0], T.ptx.SINK, f[2], f[3], f[4], f[5], f[6], T.ptx.SINK, A.ptr_to([0]))
        T.ptx["st.global.v4.b64"](U.ptr_to([0]), U[0], T.ptx.SINK, U[2], U[3])
    """, "sm_100a")
    assert calls == ["tirx_ptx_ld_global_v8_f32_sink1_7", "tirx_ptx_st_global_v4_b64_sink2"]
    assert "{%0, _, %1, %2, %3, %4, %5, _}" in ptx.helper_source("tirx_ptx_ld_global_v8_f32_sink1_7", COMPILED)
    assert "[%0], {%1, _, %2, %3}" in ptx.helper_source("tirx_ptx_st_global_v4_b64_sink2", COMPILED)


def test_256_bit_sink_errors():
    result, errs = check("""\
        T.ptx["ld.global.v4.f32"](f[0], T.ptx.SINK, f[2], f[3], A.ptr_to([0]))
        T.ptx["st.global.v4.b64"](U.ptr_to([0]), T.ptx.SINK, T.ptx.SINK, T.ptx.SINK, T.ptx.SINK)
    """, "sm_100a")
    assert errs == [(FIRST, 37, "E0608"), (FIRST + 1, 82, "E0608")]
    assert "takes no `_` operand" in messages(result)[0]


# -- mov packs -----------------------------------------------------------------------------------------
def test_mov_b128_forms_are_chosen_by_the_operands():
    calls = _calls("""\
        q = T.alloc_local((2,), "uint64")
        h = T.alloc_local((4,), "uint16")
        T.ptx.mov.b128(q[0], q[1], U[0], U[1])
        T.ptx.mov.b128(q[0], q[1], r[0], r[1], r[2], r[3])
        T.ptx.mov.b128(r[0], r[1], T.ptx.SINK, r[3], q[0], q[1])
        T.ptx.mov.b64(q[0], h[0], h[1], h[2], h[3])
        T.ptx.mov.b64(h[0], h[1], h[2], h[3], U[0])
    """, "sm_90a", "tirx_ptx_mov")
    assert calls == ["tirx_ptx_mov_b128", "tirx_ptx_mov_b128_v1", "tirx_ptx_mov_b128_v2_sink2", "tirx_ptx_mov_b64_v3",
                     "tirx_ptx_mov_b64_v4"]
    assert "mov.b128 tirx_q, {%2, %3, %4, %5};" in ptx.helper_source("tirx_ptx_mov_b128_v1", COMPILED)
    assert ptx.lookup("mov.b128").min_arch == 75


def test_mov_b128_wrong_width():
    result, errs = check("""\
        q = T.alloc_local((2,), "uint64")
        T.ptx.mov.b128(q[0], q[1], r[0], r[1])
    """)
    assert errs == [(FIRST + 1, 32, "E0602")]
    assert "b64 value" in messages(result)[0]


# -- createpolicy, lop3 / .pred --------------------------------------------------------------------------
def test_createpolicy_range_and_cvt():
    calls = _calls("""\
        p = T.alloc_local((2,), "uint64")
        T.ptx.createpolicy.range.global_.L2__evict_last.L2__evict_first.b64(p[0], A.ptr_to([0]), T.uint32(256), T.uint32(4096))
        T.ptx.createpolicy.cvt.L2.b64(p[1], p[0])
    """, "sm_80", "tirx_ptx_createpolicy")
    assert calls == ["tirx_ptx_createpolicy_range_global_L2__evict_last_L2__evict_first_b64",
                     "tirx_ptx_createpolicy_cvt_L2_b64"]
    _, errs = check("T.ptx.createpolicy.range.global_.L2__evict_last.b64(u[0], A.ptr_to([0]), 1, 2)\n", "sm_75")
    assert errs == [(FIRST, 5, "E0320")]


def test_lop3_predicate_form():
    calls = _calls("""\
        T.ptx.lop3.or_.b32(r[0], r[1], r[2], r[3], T.uint32(7), 0x80, tx < 3)
        T.ptx.and_.pred(r[2], tx < 5, r[1])
        T.ptx.not_.pred(r[3], r[2])
    """, "sm_80")
    assert calls == ["tirx_ptx_lop3_or_b32<128>", "tirx_ptx_and_pred", "tirx_ptx_not_pred"]
    result, errs = check("T.ptx.lop3.and_.b32(r[0], r[1], r[2], r[3], T.uint32(7), 256, 1)\n")
    assert errs == [(FIRST, 62, "E0605")]
    assert "0, 1, ... 255" in messages(result)[0]


# -- tensormap.cp_fenceproxy, clusterlaunchcontrol ----------------------------------------------------
def test_tensormap_cp_fenceproxy():
    body = """\
        tmap = T.alloc_shared((16,), "uint64")
        T.ptx.tensormap_cp_fenceproxy.global_.shared__cta.tensormap__generic.release.gpu.sync.aligned(U.ptr_to([0]), tmap.ptr_to([0]), {})
    """
    assert _calls(body.format(128), "sm_90a") == [
        "tirx_ptx_tensormap_cp_fenceproxy_global_shared__cta_tensormap__generic_release_gpu_sync_aligned<128>"]
    result, errs = check(body.format(64), "sm_90a")
    assert errs == [(FIRST + 1, 132, "E0605")]
    assert "the ISA allows 128" in messages(result)[0]
    _, errs = check(body.format(128).replace("tmap.ptr_to", "U.ptr_to"), "sm_90a")
    assert errs == [(FIRST + 1, 114, "E0602")]
    _, errs = check(body.format(128), "sm_80")
    assert errs == [(FIRST + 1, 5, "E0320")]


CLC = """\
    resp = T.alloc_shared((2,), "uint64")
    T.ptx.clusterlaunchcontrol.try_cancel.async_.shared__cta.mbarrier__complete_tx__bytes{mc}.b128(resp.ptr_to([0]), bar.ptr_to([0]))
    T.ptx.clusterlaunchcontrol.query_cancel.is_canceled.pred.b128(r[0], u[0], u[1])
    T.ptx.clusterlaunchcontrol.query_cancel.get_first_ctaid__y.b32.b128(r[1], u[0], u[1])
    T.ptx.clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128(r[0], r[1], r[2], T.ptx.SINK, u[0], u[1])
"""


def test_clusterlaunchcontrol_needs_sm100():
    assert check(CLC.format(mc=""), "sm_100")[1] == []
    _, errs = check(CLC.format(mc=""), "sm_90a")
    assert [(line, col, code) for line, col, code in errs] == [(FIRST + k, 5, "E0320") for k in range(1, 5)]
    # .multicast::cluster::all: the arch-specific targets only
    _, errs = check(CLC.format(mc=".multicast__cluster__all"), "sm_100")
    assert errs == [(FIRST + 1, 5, "E0320")]
    assert check(CLC.format(mc=".multicast__cluster__all"), "sm_100a")[1] == []
    get_first = ptx.lookup("clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128")
    assert ptx.sunk(get_first, (3,)).source().count("{%0, %1, %2, _}") == 1


def test_clusterlaunchcontrol_operands():
    result, errs = check("""\
        T.ptx.clusterlaunchcontrol.try_cancel.async_.shared__cta.mbarrier__complete_tx__bytes.b128(U.ptr_to([0]), bar.ptr_to([0]))
        T.ptx.clusterlaunchcontrol.query_cancel.is_canceled.pred.b128(r[0], u[0])
    """, "sm_100a")
    # (one response argument is the uint128 form's, which a uint64 does not fit)
    assert errs == [(FIRST, 96, "E0602"), (FIRST + 1, 73, "E0602")]
    assert "shared memory address" in messages(result)[0] and "b128 value, got uint64" in messages(result)[1]


# -- mma.sp, mma.sync ----------------------------------------------------------------------------------
def test_mma_sp_operands_and_selector():
    forms = ptx.forms("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.bf16.bf16.f32")
    (form,) = forms
    assert [op.role for op in form.operands].count("in") == 4 + 4 + 4 + 1
    assert form.operands[-1].choices == (0, 1)
    assert ptx.lookup("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32").operands[-1].choices == (0, 1, 2, 3)
    assert ptx.lookup("mma.sp.sync.aligned.m16n8k64.row.col.s32.s8.s8.s32").operands[-1].choices == (0,)
    fp8 = ptx.lookup("mma.sp.sync.aligned.m16n8k64.row.col.f32.e4m3.e4m3.f32")
    assert fp8.min_arch == 89 and ptx.lookup("mma.sp.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32").min_arch == 80
    args = ", ".join(["f[0]"] * 4 + ["r[0]"] * 4 + ["r[1]"] * 4 + ["f[1]"] * 4 + ["r[2]"])
    result, errs = check(f'T.ptx["mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32"]({args}, 2)\n', "sm_80")
    assert errs == [(FIRST, 5 + len('T.ptx["mma.sp.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32"](') + len(args) + 2,
                     "E0605")]
    assert "the ISA allows 0, 1" in messages(result)[0]


def test_fp8_mma_needs_sm89():
    args = ", ".join(["r[0]"] * 2 + ["r[1]"] * 4 + ["r[2]"] * 2 + ["r[3]"] * 2)
    body = f'T.ptx["mma.sync.aligned.m16n8k32.row.col.f16.e4m3.e5m2.f16"]({args})\n'
    _, errs = check(body, "sm_86")
    assert errs == [(FIRST, 5, "E0320")]
    assert check(body, "sm_89")[1] == []


# -- ldmatrix / stmatrix ---------------------------------------------------------------------------------
def test_b8_matrices_need_an_arch_specific_target():
    body = """\
        s = T.alloc_shared((256,), "uint8")
        T.ptx.ldmatrix.sync.aligned.m16n16.x2.trans.shared.b8(r[0], r[1], r[2], r[3], s.ptr_to([0]))
        T.ptx.stmatrix.sync.aligned.m16n8.x1.trans.shared.b8(s.ptr_to([0]), r[0])
    """
    assert check(body, "sm_100a")[1] == []
    _, errs = check(body, "sm_100")
    assert errs == [(FIRST + 1, 5, "E0320"), (FIRST + 2, 5, "E0320")]
    assert ptx.lookup("ldmatrix.sync.aligned.m8n16.x4.shared.b8x16.b6x16_p32").operands[3].role == "out"


def test_ldmatrix_without_a_state_space_takes_a_generic_address():
    instr = ptx.lookup("ldmatrix.sync.aligned.m8n8.x2.b16")
    assert instr.operands[-1].space == "generic" and instr.min_arch == 75
    assert ptx.lookup("ldmatrix.sync.aligned.m8n8.x2.shared.b16").operands[-1].space == "shared"


# -- cvt -----------------------------------------------------------------------------------------------
def test_cvt_lines_ptxas_does_not_assemble_are_not_supported_yet():
    for mnemonic in ("cvt.rn.bf16x2.e4m3x2", "cvt.rn.satfinite.scaled::n2::ue8m0.bf16x2.e2m1x2",
                     "cvt.rn.satfinite.s2f6x2.f32", "cvt.rn.satfinite.relu.e5m2x2.bf16x2"):
        assert "not supported yet" in ptx.forms(mnemonic), mnemonic
    rs = ptx.lookup("cvt.rs.relu.satfinite.e2m1x4.f32")
    assert [op.kind for op in rs.operands] == ["b16", "f32", "f32", "f32", "f32", "b32"]
    _, errs = check('T.ptx["cvt.rn.bf16x2.e4m3x2"](r[0], T.uint16(1))\n', "sm_100a")
    assert errs == [(FIRST, 5, "E0603")]


# -- the smaller gaps: generic mbarriers, fences, TMA multicast / gather4, tf32, packed adds ----------
def test_mbarrier_without_a_state_space_takes_a_generic_address():
    calls = _calls("""\
        mb = T.alloc_shared((1,), "uint64")
        st = T.alloc_local((1,), "uint64")
        T.ptx.mbarrier.init.b64(mb.ptr_to([0]), 1)
        T.ptx.mbarrier.arrive.release.cta.b64(st[0], mb.ptr_to([0]))
        r[0] = T.ptx.mbarrier.try_wait.parity.b64(mb.ptr_to([0]), 0)
        T.ptx.fence.acquire.gpu()
        T.ptx.bar.cta.sync(1, 64)
    """, "sm_90a")
    assert calls == ["tirx_ptx_mbarrier_init_b64", "tirx_ptx_mbarrier_arrive_release_cta_b64_v2",
                     "tirx_ptx_mbarrier_try_wait_parity_b64", "tirx_ptx_fence_acquire_gpu", "tirx_ptx_bar_cta_sync_v1"]
    init = ptx.lookup("mbarrier.init.b64")
    assert init.operands[0].space == "generic" and ptx.lookup("mbarrier.init.shared.b64").operands[0].space == "shared"
    assert '"l"(ptr0)' in init.source()


def test_tma_multicast_takes_a_cta_mask_and_needs_an_arch_specific_target():
    mnemonic = "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
    (form,) = ptx.forms(mnemonic)
    assert [op.name for op in form.operands][-1] == "cta_mask" and form.operands[-1].kind == "u16"
    assert (form.min_arch, form.suffix) == (90, "a")
    body = f"""\
        dst = T.alloc_shared((64,), "float16")
        T.ptx["{mnemonic}"](dst.ptr_to([0]), U[0], 0, 0, bar.ptr_to([0]), T.uint16(3))
    """
    assert check(body, "sm_90a")[1] == []
    _, errs = check(body, "sm_90")
    assert errs == [(FIRST + 1, 5, "E0320")]
    gather = ptx.lookup("cp.async.bulk.tensor.2d.shared::cta.global.tile::gather4.mbarrier::complete_tx::bytes")
    assert [op.name for op in gather.operands][2:7] == ["c0", "c1", "c2", "c3", "c4"] and gather.suffix == "a"
    assert ptx.lookup("cp.async.bulk.global.shared::cta.bulk_group.cp_mask").min_arch == 100


def test_tf32_rounding_lines_need_sm90_and_satfinite_sm100():
    assert ptx.lookup("cvt.rna.satfinite.tf32.f32").min_arch == 80
    assert ptx.lookup("cvt.rn.relu.tf32.f32").min_arch == 90
    assert ptx.lookup("cvt.rz.satfinite.relu.tf32.f32").min_arch == 100
    _, errs = check("T.ptx.cvt.rn.relu.tf32.f32(r[0], T.float32(1.5))\n", "sm_80")
    assert errs == [(FIRST, 5, "E0320")]


def test_small_forms():
    calls = _calls("""\
        h = T.alloc_local((2,), "uint16")
        q = T.alloc_local((2,), "uint64")
        T.ptx.mov.pred(r[0], tx < 4)
        T.ptx.mov.u16(h[0], h[1])
        T.ptx.add.u16x2(r[1], r[2], r[3])
        T.ptx.ldu.global_.u8(r[2], A.ptr_to([0]))
        T.ptx.prefetch.const.tensormap(U[0])
        T.ptx.ld.global_.L2__cache_hint.b128(q[0], q[1], U.ptr_to([0]), U[1])
    """, "sm_90a")
    assert calls == ["tirx_ptx_mov_pred", "tirx_ptx_mov_u16", "tirx_ptx_add_u16x2", "tirx_ptx_ldu_global_u8",
                     "tirx_ptx_prefetch_const_tensormap", "tirx_ptx_ld_global_L2__cache_hint_b128"]
    _, errs = check("T.ptx.add.u16x2(r[1], r[2], r[3])\n", "sm_80")
    assert errs == [(FIRST, 5, "E0320")]


def test_spellings_the_isa_and_ptxas_take():
    for mnemonic in ("cvt.rz.satfinite.f16.f32", "mbarrier.expect_tx.relaxed.cta.shared.b64", "ld.mmio.relaxed.sys.u32",
                     "ldu.global.b128", "set.lt.f16.f32", "add.rn.sat.f32.bf16", "fma.rn.sat.f32.f16"):
        assert isinstance(ptx.forms(mnemonic), list), mnemonic
    assert [op.kind for op in ptx.lookup("ldu.global.b128").operands[:2]] == ["b64", "b64"]
    assert ptx.lookup("fma.rn.f32.bf16").min_arch == 100 and ptx.lookup("set.ge.s16.bf16").min_arch == 90
    assert [op.kind for op in ptx.lookup("fma.rn.f32.f16").operands] == ["f32", "b16", "b16", "f32"]


def test_tcgen05_alloc_with_a_generic_slot_address():
    body = """\
        if warp_id == 0:
            T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.b32({slot}, 64)
    """
    calls = _calls(body.format(slot="T.address_of(slot)"), "sm_100a", "tirx_ptx_tcgen05")
    assert calls == ["tirx_ptx_tcgen05_alloc_cta_group__1_sync_aligned_b32"]
    assert '"l"(slot)' in ptx.helper_source(calls[0], COMPILED)
    result, errs = check(body.format(slot="U.ptr_to([0])"), "sm_100a")  # the slot rules still apply
    assert errs == [(FIRST + 1, 59, "E0704")]
