"""tcgen05.mma's collector / ashift qualifiers and
scale-input-d, multimem's fp8 types and `.acc::f16`, tensormap.replace's swizzle_atomicity,
st.async / red.async, `T.ptx.SINK`, TIRx's dotted family names (`T.ptx.st_async...`) and the
arithmetic families. Errors at their exact file:line:col; accepted calls checked through the
whole checker and their helpers (tests/ptx/test_nvcc.py compiles every example with ptxas)."""
from __future__ import annotations

from tests.conftest import transpile
from tests.ptx.snippet import FIRST, check, messages
from tests.ptx.test_forms_mma_sparse_ws_and_preserve_dst import HEADER, _kernel
from transpiler.target import ptx


COMPILED: dict = {}  # the PTX instructions of the programs compiled here, by helper name


def _calls(body: str, arch: str, prefix: str) -> list[str]:
    result = transpile(HEADER + _kernel(body), "k.tx", arch=arch)
    assert result.ok, [f"{d.span.line}:{d.span.col} {d.code} {d.message}" for d in result.diagnostics]
    COMPILED.update(result.program.ptx_instructions)
    return [line.strip().split("(")[0] for line in result.cuda.splitlines() if line.strip().startswith(prefix)]


# -- tcgen05.mma: .collector, .ashift, scale-input-d ----------------------------------------------------
def test_scale_input_d_is_a_trailing_immediate_of_f16_and_tf32():
    forms = ptx.forms("tcgen05.mma.cta_group::1.kind::f16")
    scaled = [f for f in forms if f.operands[-1].name == "scale_input_d"]
    assert len(scaled) == 4 and scaled[0].operands[-1].choices == tuple(range(16))
    assert all(f.operands[-1].name != "scale_input_d" for f in ptx.forms("tcgen05.mma.cta_group::1.kind::i8"))
    calls = _calls("""\
        T.ptx["tcgen05.mma.cta_group::1.kind::f16"](slot, U[0], U[1], r[0], 1, 3)
        T.ptx["tcgen05.mma.cta_group::1.kind::tf32.collector::a::fill"](slot, U[0], U[1], r[0], 1)
    """, "sm_100a", "tirx_ptx_tcgen05_mma")
    assert calls == ["tirx_ptx_tcgen05_mma_cta_group__1_kind__f16_v5<3>",
                     "tirx_ptx_tcgen05_mma_cta_group__1_kind__tf32_collector__a__fill_v1"]


def test_scale_input_d_out_of_range():
    result, errs = check('T.ptx["tcgen05.mma.cta_group::1.kind::f16"](r[0], U[0], U[1], r[1], 1, 16)\n', "sm_100a")
    assert errs == [(FIRST, 76, "E0605")]
    assert "(scale_input_d) is 16; the ISA allows 0, 1, ... 15" in messages(result)[0]


def test_scale_input_d_on_i8_is_an_operand_count_error():
    _, errs = check('T.ptx["tcgen05.mma.cta_group::1.kind::i8"](r[0], U[0], U[1], r[1], 1, 2)\n', "sm_100a")
    assert errs == [(FIRST, 5, "E0305")]


def test_ashift_takes_a_in_tensor_memory_only():
    forms = ptx.forms("tcgen05.mma.cta_group::1.kind::f16.ashift.collector::a::discard")
    assert {f.operands[1].name for f in forms} == {"a_tmem"}


# -- multimem fp8, tensormap.replace.swizzle_atomicity: sm_100a ------------------------------------------
def test_fp8_multimem_and_swizzle_atomicity_need_sm100a():
    body = """\
        T.ptx["multimem.ld_reduce.global.add.acc::f16.e4m3x4"](r[0], A.ptr_to([0]))
        T.ptx["tensormap.replace.tile.swizzle_atomicity.global.b1024.b32"](A.ptr_to([0]), 2)
    """
    assert _calls(body, "sm_100a", "tirx_ptx_") == ["tirx_ptx_multimem_ld_reduce_global_add_acc__f16_e4m3x4",
                                                    "tirx_ptx_tensormap_replace_tile_swizzle_atomicity_global_b1024_b32<2>"]
    _, errs = check(body, "sm_90a")
    assert [(line, col) for line, col, _ in errs] == [(FIRST, 5), (FIRST + 1, 5)]
    assert len({code for _, _, code in errs}) == 1
    # the other multimem types and tensormap fields stay sm_90
    assert ptx.lookup("multimem.ld_reduce.global.add.acc::f32.v2.bf16x2").min_arch == 90
    assert ptx.lookup("tensormap.replace.tile.swizzle_mode.b1024.b32").min_arch == 90


def test_swizzle_atomicity_values():
    result, errs = check('T.ptx["tensormap.replace.tile.swizzle_atomicity.b1024.b32"](A.ptr_to([0]), 4)\n', "sm_100a")
    assert errs == [(FIRST, 80, "E0605")]
    assert "0, 1, 2, 3" in messages(result)[0]


# -- st.async / red.async ------------------------------------------------------------------------------
def test_st_async_takes_pointers_or_cluster_addresses():
    calls = _calls("""\
        bar = T.alloc_shared((1,), "uint64")
        dst = T.alloc_shared((4,), "uint32")
        T.ptx.st_async.shared__cluster.mbarrier__complete_tx__bytes.b32(dst.ptr_to([0]), r[0], bar.ptr_to([0]))
        T.ptx.st_async.shared__cluster.mbarrier__complete_tx__bytes.b32(r[1], r[0], r[2])
        T.ptx.red_async.relaxed.cluster.mbarrier__complete_tx__bytes.add.u32(dst.ptr_to([1]), r[0], bar.ptr_to([0]))
    """, "sm_90a", "tirx_ptx_")
    assert calls == ["tirx_ptx_st_async_shared__cluster_mbarrier__complete_tx__bytes_b32",
                     "tirx_ptx_st_async_shared__cluster_mbarrier__complete_tx__bytes_b32_v1",
                     "tirx_ptx_red_async_relaxed_cluster_mbarrier__complete_tx__bytes_add_u32"]


def test_release_st_async_needs_sm100():
    _, errs = check("T.ptx.st_async.release.gpu.global_.b32(A.ptr_to([0]), r[0])\n", "sm_90a")
    assert [e[:2] for e in errs] == [(FIRST, 5)]
    _, errs = check("T.ptx.st_async.release.gpu.global_.b32(A.ptr_to([0]), r[0])\n", "sm_100a")
    assert errs == []


def test_dotted_family_names():
    assert ptx.from_attribute_path(("multimem_ld_reduce", "add", "acc__f32", "f16x2")) == \
        "multimem.ld_reduce.add.acc::f32.f16x2"
    assert ptx.from_attribute_path(("shfl_sync", "idx", "b32")) == "shfl.sync.idx.b32"
    assert ptx.from_attribute_path(("st", "global_", "b32")) == "st.global.b32"


# -- T.ptx.SINK ----------------------------------------------------------------------------------------
def test_sink_renders_the_isa_underscore():
    calls = _calls("""\
        T.ptx.mov.b64(T.ptx.SINK, r[1], U[0])
        T.ptx.mov.b64(r[0], T.ptx.SINK, U[0], pred=r[3], preserve_dst=True)
    """, "sm_90a", "tirx_ptx_mov")
    assert calls == ["tirx_ptx_mov_b64_v2_sink0", "tirx_ptx_mov_b64_v2_pred_keep_sink1"]
    source = ptx.helper_source("tirx_ptx_mov_b64_v2_sink0", COMPILED)
    assert "mov.b64 {_, %0}, %1;" in source and source.count("&") == 2  # one destination reference


def test_sink_errors():
    result, errs = check("""\
        T.ptx.mov.b64(T.ptx.SINK, T.ptx.SINK, U[0])
        T.ptx["ld.global.b32"](T.ptx.SINK, A.ptr_to([0]))
        T.ptx.mov.b64(U[1], T.ptx.SINK, r[1])
    """)
    assert errs == [(FIRST, 31, "E0608"), (FIRST + 1, 28, "E0608"), (FIRST + 2, 25, "E0608")]
    assert "every destination" in messages(result)[0]
    assert "takes no `_` operand" in messages(result)[1]


# -- arithmetic ----------------------------------------------------------------------------------------
def test_setp_and_selp_take_predicates_as_integers():
    calls = _calls("""\
        T.ptx.setp.lt.s32(r[0], T.int32(tx), 5)
        T.ptx.setp.gt.or_.s32(r[1], T.int32(tx), 7, r[0])
        T.ptx.selp.b32(r[2], r[0], r[1], r[0])
        T.ptx.lop3.b32(r[3], r[0], r[1], r[2], 0x96)
        T.ptx.vote_sync.ballot.b32(r[3], r[0], T.uint32(0xFFFFFFFF))
    """, "sm_80", "tirx_ptx_")
    assert calls == ["tirx_ptx_setp_lt_s32", "tirx_ptx_setp_gt_or_s32", "tirx_ptx_selp_b32",
                     "tirx_ptx_lop3_b32<150>", "tirx_ptx_vote_sync_ballot_b32"]
    assert "selp.u32 %0, 1, 0, tirx_p;" in ptx.helper_source("tirx_ptx_setp_lt_s32", COMPILED)


def test_bf16_setp_needs_sm90():
    _, errs = check('T.ptx["setp.lt.bf16"](r[0], T.uint16(0), T.uint16(1))\n', "sm_80")
    assert [e[:2] for e in errs] == [(FIRST, 5)]
