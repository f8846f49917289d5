"""PTX forms beyond the plain MMAs: tcgen05.mma with A in tensor memory,
`.ws` and `.sp`; wgmma.mma_async.sp; `preserve_dst=`; and the cluster a `cta_group::2`
instruction needs (E0606). Errors at their exact file:line:col; accepted forms checked
through the whole checker (tests/ptx/test_nvcc.py compiles them)."""
from __future__ import annotations

import textwrap

import pytest

from tests.conftest import transpile
from tests.ptx.snippet import FIRST, check, messages
from transpiler.target import ptx

HEADER = "from tvm.script import tirx as T\n\n\n"


# -- tcgen05.mma: A in tensor memory, .ws, .sp ---------------------------------------------------------
def test_a_in_tensor_memory_is_chosen_by_the_argument():
    """A 64-bit A is a descriptor, a 32-bit one or a tmem buffer a tensor-memory address."""
    forms = ptx.forms("tcgen05.mma.cta_group::1.kind::f16")
    assert [f.operands[1].name for f in forms][:4] == ["a_desc", "a_desc", "a_tmem", "a_tmem"]
    assert "[%1]" in forms[2].source() and "[%1]" not in forms[0].source()
    result = check("""\
        slot = T.shared_scalar("uint32")
        if warp_id == 0:
            T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(T.address_of(slot), 256)
        a_t = T.decl_buffer((128, 32), "float16", scope="tmem", allocated_addr=128)
        T.ptx["tcgen05.mma.cta_group::1.kind::f16"](slot, a_t[0:128, 0:32], U[1], r[0], 1)
        T.ptx["tcgen05.mma.cta_group::1.kind::f16"](slot, slot + T.uint32(64), U[1], r[0], 1)
        T.ptx["tcgen05.mma.cta_group::1.kind::f16"](slot, U[0], U[1], r[0], 1)
    """, "sm_100a")[0]
    assert result.ok
    calls = [line for line in transpile(HEADER + _kernel("""\
        slot = T.shared_scalar("uint32")
        if warp_id == 0:
            T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(T.address_of(slot), 256)
        a_t = T.decl_buffer((128, 32), "float16", scope="tmem", allocated_addr=128)
        T.ptx["tcgen05.mma.cta_group::1.kind::f16"](slot, a_t[0:128, 0:32], U[1], r[0], 1)
        T.ptx["tcgen05.mma.cta_group::1.kind::f16"](slot, U[0], U[1], r[0], 1)
    """), "k.tx", arch="sm_100a").cuda.splitlines() if line.strip().startswith("tirx_ptx_tcgen05_mma")]
    assert [c.split("(")[0].strip() for c in calls] == ["tirx_ptx_tcgen05_mma_cta_group__1_kind__f16_v3",
                                                        "tirx_ptx_tcgen05_mma_cta_group__1_kind__f16_v1"]


def test_ws_operand_counts():
    result, errs = check('T.ptx["tcgen05.mma.ws.cta_group::1.kind::f16"](r[0], U[0], U[1], r[1])\n', "sm_100a")
    assert errs == [(FIRST, 5, "E0305")]
    assert "takes 5 (" in messages(result)[0] and "; 6 (" in messages(result)[0]


def test_sparse_metadata_must_be_32_bits():
    _, errs = check('T.ptx["tcgen05.mma.sp.cta_group::1.kind::f16"](r[0], U[0], U[1], U[2], r[1], 1)\n',
                    "sm_100a")
    assert errs == [(FIRST, 70, "E0602")]


# -- wgmma.mma_async.sp ----------------------------------------------------------------------------------
def test_wgmma_sparse_operands():
    forms = ptx.forms("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16")
    assert [op.name for op in forms[0].operands[4:]] == ["a_desc", "b_desc", "sp_meta", "sp_sel", "scale_d", "scale_a",
                                                         "scale_b", "trans_a", "trans_b"]
    assert [op.name for op in forms[1].operands[8:]] == ["b_desc", "sp_meta", "sp_sel", "scale_d", "scale_a",
                                                         "scale_b", "trans_b"]
    _, errs = check('T.ptx["wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.bf16.bf16"]('
                    '*[f[i] for i in range(4)], U[0], U[1], r[0], 1, 1, 1, 1, 0, 0)\n', "sm_90a")
    assert errs == []


def test_wgmma_sparse_selector_is_checked():
    result, errs = check('T.ptx["wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e4m3"]('
                         '*[f[i] for i in range(4)], U[0], U[1], r[0], 1, 1, 1, 1)\n', "sm_90a")
    assert errs == [(FIRST, 114, "E0605")]
    assert "(sp_sel) is 1; the ISA allows 0" in messages(result)[0]


# -- preserve_dst= ---------------------------------------------------------------------------------------
def test_pred_on_a_destination_needs_preserve_dst():
    result, errs = check('T.ptx["ld.global.b32"](r[0], A.ptr_to([0]), pred=tx == 0)\n')
    assert errs == [(FIRST, 49, "E0604")]
    assert "needs `preserve_dst=True`" in messages(result)[0]


def test_preserve_dst_binds_the_destination_read_write():
    result, errs = check('T.ptx["ld.global.b32"](r[0], A.ptr_to([0]), pred=tx == 0, preserve_dst=True)\n')
    assert errs == []
    instr = ptx.predicated(ptx.lookup("ld.global.b32"), True)
    assert instr.helper.endswith("_pred_keep") and '"+r"' in instr.source()
    assert '"=r"' in ptx.predicated(ptx.lookup("ld.global.b32")).source()


def test_preserve_dst_without_pred():
    _, errs = check('T.ptx["ld.global.b32"](r[0], A.ptr_to([0]), preserve_dst=True)\n')
    assert errs == [(FIRST, 49, "E0604")]


def test_preserve_dst_on_an_instruction_without_a_destination():
    result, errs = check('T.ptx["st.global.u32"](A.ptr_to([0]), r[0], pred=tx == 0, preserve_dst=True)\n')
    assert errs == [(FIRST, 63, "E0604")]
    assert "has none" in messages(result)[0]


def test_preserve_dst_is_a_constant():
    _, errs = check('T.ptx["ld.global.b32"](r[0], A.ptr_to([0]), pred=tx == 0, preserve_dst=tx == 0)\n')
    assert errs == [(FIRST, 76, "E0602")]


def test_preserve_dst_false_is_no_preserve_dst():
    _, errs = check('T.ptx["st.global.u32"](A.ptr_to([0]), r[0], pred=tx == 0, preserve_dst=False)\n')
    assert errs == []


# -- cta_group::2 needs a cluster of CTA pairs (E0606) ---------------------------------------------------
def _kernel(body: str, cluster: str = "") -> str:
    return ("@T.prim_func\ndef k(A_ptr: T.handle, U_ptr: T.handle):\n"
            '    A = T.match_buffer(A_ptr, (128,), "int32")\n'
            '    U = T.match_buffer(U_ptr, (128,), "uint64")\n'
            "    T.device_entry()\n"
            + (f"    rank = T.cta_id_in_cluster({cluster})\n" if cluster else "    rank = 0\n")
            + "    bx = T.cta_id([12])\n"
            "    tx = T.thread_id([128])\n"
            "    warp_id = T.warp_id([4])\n"
            '    r = T.alloc_local((4,), "uint32")\n'
            '    slot = T.shared_scalar("uint32")\n'
            + textwrap.indent(textwrap.dedent(body), "    "))


PAIR_BODY = """\
if warp_id == 0:
    T.ptx.tcgen05.alloc(T.address_of(slot), n_cols=256, cta_group=2)
T.ptx["tcgen05.mma.cta_group::2.kind::f16"](slot, U[0], U[1], r[0], 1)
"""


def _errors(text: str):
    result = transpile(HEADER + text, "pair.tx", until="check", arch="sm_100a")
    return result, [(d.span.line, d.span.col, d.code) for d in result.diagnostics if d.severity == "error"]


def test_pair_instructions_without_a_cluster():
    result, errs = _errors(_kernel(PAIR_BODY))
    assert errs == [(16, 9, "E0606"), (17, 5, "E0606")]
    assert "works on a pair of CTAs, but the kernel has no cluster" in result.diagnostics[0].message


def test_pair_instructions_in_an_odd_cluster():
    result, errs = _errors(_kernel(PAIR_BODY, "[3]"))
    assert errs == [(16, 9, "E0606"), (17, 5, "E0606")]
    first = result.diagnostics[0]
    assert "the kernel's cluster has 3 CTAs" in first.message
    assert [(n.span.line, n.span.col) for n in first.notes] == [(9, 12)]


@pytest.mark.parametrize("cluster", ["[2]", "[4]", "[6]"])
def test_pair_instructions_in_a_cluster_of_pairs(cluster):
    _, errs = _errors(_kernel(PAIR_BODY, cluster))
    assert errs == []


def test_single_cta_instructions_need_no_cluster():
    _, errs = _errors(_kernel(PAIR_BODY.replace("2", "1").replace("n_cols=156", "n_cols=256")))
    assert errs == []


# -- ld / st spaces, .b128, f16 and vector red / atom, multimem, tensormap ------------------------------
def test_memory_forms_through_the_checker():
    _, errs = check("""\
        loc = T.alloc_local((8,), "uint32")
        T.ptx["st.local.v2.b32"](loc.ptr_to([2]), r[0], r[1])
        T.ptx["ld.local.b32"](r[2], loc.ptr_to([2]))
        T.ptx["ld.const.u32"](r[3], U[0])
        T.ptx["ld.global.b128"](u[0], u[1], U.ptr_to([2]))
        T.ptx["st.global.b128"](U.ptr_to([4]), u[0], u[1])
        T.ptx["atom.global.cas.b128"](u[0], u[1], U.ptr_to([2]), U[0], U[1], U[2], U[3])
        T.ptx["red.global.add.noftz.f16x2"](A.ptr_to([0]), r[0])
        T.ptx["red.global.add.v4.f32"](A.ptr_to([0]), f[0], f[1], f[2], f[3])
        T.ptx["atom.global.v2.f32.add"](f[4], f[5], A.ptr_to([0]), f[0], f[1])
        T.ptx["multimem.ld_reduce.relaxed.sys.global.add.u32"](r[0], A.ptr_to([0]))
        T.ptx["multimem.st.global.v4.f32"](A.ptr_to([0]), f[0], f[1], f[2], f[3])
        T.ptx["tensormap.replace.tile.box_dim.global.b1024.b32"](A.ptr_to([0]), 1, r[0])
        T.ptx["tensormap.replace.tile.swizzle_mode.global.b1024.b32"](A.ptr_to([0]), 3)
        T.ptx["fence.proxy.tensormap::generic.acquire.gpu"](A.ptr_to([0]), 128)
    """, "sm_90a")
    assert errs == []


def test_a_local_load_wants_a_local_buffer():
    result, errs = check('T.ptx["ld.local.b32"](r[0], A.ptr_to([0]))\n')
    assert errs == [(FIRST, 33, "E0602")]
    assert "is a local memory address, but `A` is in global memory" in messages(result)[0]


def test_b128_halves_are_64_bit_registers():
    _, errs = check('T.ptx["ld.global.b128"](r[0], r[1], U.ptr_to([0]))\n')
    assert errs == [(FIRST, 29, "E0602")]


def test_tensormap_immediates_are_checked():
    result, errs = check('T.ptx["tensormap.replace.tile.elemtype.global.b1024.b32"](A.ptr_to([0]), 13)\n'
                         'T.ptx["fence.proxy.tensormap::generic.acquire.gpu"](A.ptr_to([0]), 64)\n', "sm_90a")
    assert errs == [(FIRST, 78, "E0605"), (FIRST + 1, 72, "E0605")]


def test_tensormap_replace_is_arch_specific():
    _, errs = check('T.ptx["tensormap.replace.tile.rank.global.b1024.b32"](A.ptr_to([0]), r[0])\n', "sm_90")
    assert errs == [(FIRST, 5, "E0320")]


# -- T.ptx.addr ----------------------------------------------------------------------------------------
def test_addr_offsets_the_pointer_by_bytes():
    result = transpile(HEADER + _kernel("""\
        m = T.alloc_shared((4, 2), "uint64")
        if tx == 0:
            T.ptx.mbarrier.init.shared__cta.b64(T.ptx.addr(m.ptr_to([1, 0]), 24), T.uint32(1))
        T.ptx["st.global.u32"](T.ptx.addr(A.ptr_to([tx]), 16), T.uint32(tx))
        T.ptx["st.global.u32"](T.ptx.addr(A.data, -0), T.uint32(tx))
    """, "[2]"), "k.tx", arch="sm_90a")
    assert result.ok, [d.message for d in result.diagnostics]
    assert "(&m_ptr[5], 1u)" in result.cuda  # (1, 0) is element 2; 24 bytes on is element 5
    assert "(&A_ptr[(tx + 4)], " in result.cuda and "(&A_ptr[0], " in result.cuda


@pytest.mark.parametrize("call, col, code, why", [
    ("T.ptx.addr(A.data, 6)", 47, "E0518", "a byte offset that is not a multiple of `A`'s 4-byte elements"),
    ("T.ptx.addr(r[0], 4)", 39, "E0602", "the base of `T.ptx.addr` is a pointer"),
    ("T.ptx.addr(A.data, 1 << 40)", 47, "E0602", "is not a 32-bit integer"),
    ("T.ptx.addr(A.data, tx)", 47, "E0202", "must be a compile-time integer"),
])
def test_addr_errors(call, col, code, why):
    result, errs = check(f'T.ptx["st.global.u32"]({call}, r[0])\n')
    assert errs == [(FIRST, col, code)]
    assert why in messages(result)[0]
