"""`T.ptx` calls the checker refuses, each with its code at the exact file:line:col, and the
valid forms once refused."""
from __future__ import annotations

import textwrap

import pytest

from tests.conftest import transpile

HEADER = "from tvm.script import tirx as T\n\n\n"
PRELUDE = """\
@T.prim_func
def k(A_ptr: T.handle, U_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128,), "int32")
    U = T.match_buffer(U_ptr, (128,), "uint64")
    T.device_entry()
    tx = T.thread_id([128])
    warp_id = T.warp_id([4])
    bar = T.alloc_shared((1,), "uint64")
    r = T.alloc_local((4,), "uint32")
    f = T.alloc_local((64,), "float32")
    b = T.alloc_local((2,), "int8")
    u = T.alloc_local((2,), "uint64")
"""
FIRST = 16  # the line of the body's first statement


def check(body: str, arch: str | None = None):
    text = HEADER + PRELUDE + textwrap.indent(textwrap.dedent(body), "    ")
    options = {"until": "check"}
    if arch:
        options["arch"] = arch
    result = transpile(text, "ptx.tx", **options)
    return result, [(d.span.line, d.span.col, d.code) for d in result.diagnostics if d.severity == "error"]


def messages(result) -> list[str]:
    return [d.message for d in result.diagnostics if d.severity == "error"]


def test_body_starts_where_the_tests_expect():
    _, errs = check("A[tx] = undefined_name\n")
    assert [e[:2] for e in errs] == [(FIRST, 13)]


def test_wrong_operand_count():
    result, errs = check("T.ptx.mbarrier.init.shared__cta.b64(bar.ptr_to([0]))\n")
    assert errs == [(FIRST, 5, "E0305")]
    assert "takes 2 operands (shared address, count), got 1" in messages(result)[0]


def test_wrong_operand_count_lists_every_form():
    result, errs = check('T.ptx["wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"](f[0], U[0])\n', "sm_90a")
    assert errs == [(FIRST, 5, "E0305")]
    assert "takes 11 (" in messages(result)[0] and "; 13 (" in messages(result)[0]


def test_address_where_a_register_is_expected():
    _, errs = check('T.ptx["ld.global.b32"](A.ptr_to([0]), A.ptr_to([1]))\n')
    assert errs == [(FIRST, 28, "E0602")]


def test_register_of_the_wrong_width():
    result, errs = check('T.ptx["ld.global.b32"](b[0], A.ptr_to([1]))\n')
    assert errs == [(FIRST, 28, "E0602")]
    assert "is a b32 register, but `b` holds int8" in messages(result)[0]


def test_value_of_the_wrong_type():
    result, errs = check('T.ptx["st.global.u32"](A.ptr_to([0]), f[0])\n')
    assert errs == [(FIRST, 43, "E0602")]
    assert "is a u32 value, got float32" in messages(result)[0]


def test_unknown_mnemonic_suggests_close_spellings():
    result, errs = check("T.ptx.mbarrier.arive.shared__cta.b64(bar.ptr_to([0]))\n")
    assert errs == [(FIRST, 5, "E0601")]
    help_text = next(d.help for d in result.diagnostics if d.code == "E0601")
    assert "did you mean `mbarrier.arrive.shared::cta.b64`" in help_text


def test_invalid_form_says_why():
    result, errs = check('T.ptx["ld.acquire.global.b32"](r[0], A.ptr_to([0]))\n')
    assert errs == [(FIRST, 5, "E0603")]
    assert "`.acquire` needs a scope" in messages(result)[0]


def test_wgmma_with_mismatched_types_is_an_invalid_form():
    result, errs = check('T.ptx["wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.f16"]()\n', "sm_90a")
    assert errs == [(FIRST, 5, "E0603")]


def test_arch_too_low():
    result, errs = check("T.ptx.wgmma.fence.sync.aligned()\n", "sm_80")
    assert errs == [(FIRST, 5, "E0320")]
    assert "needs sm_90a, but the target is sm_80" in messages(result)[0]


def test_arch_specific_on_the_wrong_architecture():
    _, errs = check("T.ptx.wgmma.fence.sync.aligned()\n", "sm_100a")
    assert errs == [(FIRST, 5, "E0320")]


def test_setmaxnreg_is_accepted_for_sm_100a():
    result, errs = check("T.ptx.setmaxnreg.inc.sync.aligned.u32(232)\n", "sm_100a")
    assert errs == []


def test_pred_on_an_instruction_with_a_destination():
    result, errs = check('T.ptx["ld.global.b32"](r[0], A.ptr_to([0]), pred=tx == 0)\n')
    assert errs == [(FIRST, 49, "E0604")]


def test_pred_must_be_a_value():
    _, errs = check('T.ptx.red.relaxed.gpu.global_.add.u32(A.ptr_to([0]), T.uint32(1), pred=A.ptr_to([0]))\n')
    assert errs and errs[0][:2] == (FIRST, 76)


def test_other_keywords_are_refused():
    _, errs = check('T.ptx.fence.acq_rel.gpu(scope=1)\n')
    assert errs == [(FIRST, 29, "E0311")]


def test_immediate_outside_its_choices():
    result, errs = check('T.ptx["wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16"]('
                         '*[f[i] for i in range(4)], U[0], U[1], 1, 2, 1, 0, 0)\n', "sm_90a")
    assert errs == [(FIRST, 108, "E0605")]
    assert "(scale_a) is 2; the ISA allows -1, 1" in messages(result)[0]


def test_setmaxnreg_count_outside_its_range():
    result, errs = check("T.ptx.setmaxnreg.dec.sync.aligned.u32(20)\n", "sm_90a")
    assert errs == [(FIRST, 43, "E0605")]


# -- forms once wrongly refused --------------------------------------------------------------------
@pytest.mark.parametrize("body", [
    "T.ptx.mbarrier.try_wait.parity.shared__cta.b64(r[0], bar.ptr_to([0]), 0)\n",
    "T.ptx.mbarrier.try_wait.parity.shared__cta.b64(r[0], bar.ptr_to([0]), 0, 10000)\n",
    "T.ptx.mbarrier.arrive.shared__cta.b64(bar.ptr_to([0]), T.uint32(2))\n",
    "T.ptx.mbarrier.arrive.shared__cta.b64(bar.ptr_to([0]), pred=tx == 0)\n",
    "T.ptx.mbarrier.arrive.relaxed.cta.shared__cta.b64(u[0], bar.ptr_to([0]))\n",
    "T.ptx.ld.global_.acquire.gpu.b32(f[0], A.ptr_to([0]))\n",
    "T.ptx.red.relaxed.gpu.global_.add.u32(A.ptr_to([0]), T.uint32(1))\n",
    "T.ptx.mov.b64(u[0], r[0], f[1])\n",
    "T.ptx.mov.b64(r[0], f[1], u[0])\n",
    "T.ptx.prefetch.global_.L2(A.ptr_to([16]))\n",
    "T.ptx.bar.arrive(1, 64)\n",
    "T.ptx.bar.sync(1)\n",
    "T.ptx.mbarrier.arrive.release.cluster.shared__cluster.b64(r[0], T.uint32(40), pred=T.uint32(1))\n",
    "T.ptx.mbarrier.arrive.release.cluster.shared__cluster.b64(bar.ptr_to([0]), T.uint32(40))\n",
    "T.ptx.createpolicy.fractional.L2__evict_last.b64(u[0])\n",
    "T.ptx.red.relaxed.gpu.global_.add.u32(A.ptr_to([0]), T.uint32(1), pred=T.ptx.pred(A[0]))\n",
    "T.ptx.cp.async_.ca.shared.global_(bar.ptr_to([0]), A.ptr_to([0]), 8, pred=tx < 3)\n",
    "T.ptx.cp.async_.cg.shared.global_(bar.ptr_to([0]), A.ptr_to([0]), 16, T.uint32(8))\n",
])
def test_once_refused_forms_are_accepted(body):
    _, errs = check(body, "sm_90a")
    assert errs == []


def test_tcgen05_float_registers_a_shared_scalar_address_and_narrow_tmem_buffers():
    _, errs = check("""\
        slot = T.shared_scalar("uint32")
        if warp_id == 0:
            T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(T.address_of(slot), 32)
        T.ptx["tcgen05.ld.sync.aligned.32x32b.x2.b32"](f[0], f[1], slot)
        T.ptx["tcgen05.mma.cta_group::1.kind::f16"](slot, U[0], U[1], r[0], 1)
        h = T.decl_buffer((128, 32), "float16", scope="tmem", allocated_addr=0)
        q = T.decl_buffer((128, 32), "uint8", scope="tmem", allocated_addr=0)
        T.ptx["tcgen05.ld.sync.aligned.32x32b.x2.b32"](r[0], r[1], h[0:32, 0:2])
        T.ptx["tcgen05.st.sync.aligned.32x32b.x2.b32"](q[0:32, 0:2], f[0], r[1])
    """, "sm_100a")
    assert errs == []
