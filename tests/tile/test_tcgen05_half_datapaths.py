"""tcgen05 on the half datapaths (transpiler/tile/gemm_async/tcgen05.py, gemm_datapath.py,
copy_async_tcgen05_16x.py): `gemm_async` with 64 rows per CTA (datapath F on one CTA, datapath B
over a CTA pair) and `copy_async` of `.16x64b` / `.16x128b` / `.16x256b` register fragments;
which instructions a call gets, the refusals (E0904 at the call's file:line:col), and nvcc
(sm_100a). The instructions of the plain half-datapath cases are stated in
tests/tile/cases/gemm_async/datapath_*.tx. Compile only: the lab GPU is an H200 (sm_90), so nothing here runs tcgen05."""
from __future__ import annotations

import re

import pytest

from tests.conftest import has_nvcc
from tests.build_cache import compile_cuda
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile


def kernel(rows: int = 64, N: int = 64, group: int = 1, c_layout: str = 'tmem_datapath_layout("F", 64, 64)',
           shape: str = "16x256b", dtype: str = "float32", read: str = "frag[:, :]", tmem_rows: int = 64,
           store: bool = False, tmem_slice: str = "tmem[:, :]") -> str:
    """One thread multiplies (rows, 64) @ (N / group, 64)^T into tensor memory, then the warpgroup
    reads C into a `shape` fragment (and, with store=True, writes it back)."""
    cluster = "    T.cta_id_in_cluster([2])\n" if group == 2 else ""
    back = f"        Tx.wg.copy_async({tmem_slice}, {read})\n        T.ptx.tcgen05.wait__st.sync.aligned()\n" \
        if store else ""
    return f'''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, TLane, TCol, tmem_datapath_layout

@T.prim_func
def k(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, ({rows}, 64), "float16")
    B = T.match_buffer(B_ptr, ({N // group}, 64), "float16")
    T.device_entry()
    T.cta_id([{group}])
{cluster}    warp_id = T.warp_id([4])
    wg_id = T.warpgroup_id([1])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer(({rows}, 64), "float16", scope="shared", align=1024,
                            layout=ComposeLayout(3, 3, 3, S[({rows}, 64)]))
    B_smem = T.alloc_buffer(({N // group}, 64), "float16", scope="shared", align=1024,
                            layout=ComposeLayout(3, 3, 3, S[({N // group}, 64)]))
    tmem_addr = T.alloc_shared([1], "uint32")
    mbar = T.alloc_shared([1], "uint64")
    if warp_id == 0:
        T.ptx["tcgen05.alloc.cta_group::{group}.sync.aligned.shared::cta.b32"](T.address_of(tmem_addr), T.uint32(256))
    T.cuda.cta_sync()
    tmem = T.decl_buffer(({tmem_rows}, {N}), "{dtype}", scope="tmem", allocated_addr=tmem_addr[0],
                         layout={c_layout})
    for i in range({rows // 2}):
        A_smem[i, tid % 64] = A[i, tid % 64]
    if tid == 0:
        Tx.gemm_async(tmem[0:{rows}, 0:{N}], A_smem, B_smem, accum=False, dispatch="tcgen05", cta_group={group})
        T.ptx.tcgen05.commit.cta_group__{group}.mbarrier__arrive__one.shared__cluster.b64(mbar.ptr_to([0]))
    T.cuda.mbarrier_wait(mbar.ptr_to([0]), 0)
    T.ptx.tcgen05.fence__after_thread_sync()
    frag = T.alloc_tcgen05_ldst_frag("{shape}", ({tmem_rows}, {N}), "{dtype}")
    if wg_id == 0:
        Tx.wg.copy_async({read}, {tmem_slice})
        T.ptx.tcgen05.wait__ld.sync.aligned()
{back}'''


def _compile(text: str):
    return compile_source(SourceFile("k.tx", text), arch="sm_100a")


def _top_level(args: str) -> list[str]:
    """A C argument list split at its top-level commas."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(args):
        depth += (ch in "([") - (ch in ")]")
        if ch == "," and depth == 0:
            out.append(args[start:i].strip())
            start = i + 1
    return out + [args[start:].strip()]


def _calls(cuda: str, prefix: str) -> list[tuple[str, list[str]]]:
    body = cuda[cuda.index("__global__"):]
    return [(m.group(1), _top_level(m.group(2))) for m in re.finditer(rf"{prefix}_([a-z0-9_]+)\((.*)\);", body)]


def test_16x256b_store_mirrors_the_load():
    result = _compile(kernel(store=True))
    assert result.ok, [(d.message, [n.message for n in d.notes]) for d in result.diagnostics]
    stores = _calls(result.cuda, "tirx_ptx_tcgen05_st")
    assert [c[0] for c in stores] == ["sync_aligned_16x256b_x8_b32"]
    assert stores[0][1] == ["tmem_addr_ptr[0]"] + [f"__float_as_uint(frag_ptr[{i}])" for i in range(32)]


def test_16x128b_bf16_fragment_packs_two_per_register():
    text = kernel(N=128, c_layout='tmem_datapath_layout("F", 64, 128)', shape="16x128b").replace(
        'frag = T.alloc_tcgen05_ldst_frag("16x128b", (64, 128), "float32")',
        'frag = T.alloc_tcgen05_ldst_frag("16x128b", (64, 128), "bfloat16")\n'
        '    tmem2 = T.decl_buffer((64, 128), "bfloat16", scope="tmem", allocated_addr=tmem_addr[0] + 128,\n'
        '                          layout=tmem_datapath_layout("F", 64, 128))').replace(
        "Tx.wg.copy_async(frag[:, :], tmem[:, :])", "Tx.wg.copy_async(frag[:, :], tmem2[:, :])")
    result = _compile(text)
    assert result.ok, [(d.message, [n.message for n in d.notes]) for d in result.diagnostics]
    loads = _calls(result.cuda, "tirx_ptx_tcgen05_ld")
    assert [c[0] for c in loads] == ["sync_aligned_16x128b_x16_b32"]
    assert loads[0][1][:-1] == [f"frag_words[{i}]" for i in range(32)]
    assert loads[0][1][-1] == "tmem_addr_ptr[0] + 128u"


PAIR_STORE = kernel(N=128, group=2, c_layout='tmem_datapath_layout("B", 64, 128)', shape="32x32b", store=True)


def test_pair_image_store_is_one_128_lane_copy():
    result = _compile(PAIR_STORE)
    assert result.ok, [(d.message, [n.message for n in d.notes]) for d in result.diagnostics]
    stores = _calls(result.cuda, "tirx_ptx_tcgen05_st")
    assert [c[0] for c in stores] == ["sync_aligned_32x32b_x64_b32"]
    assert stores[0][1] == ["tmem_addr_ptr[0]"] + [f"__float_as_uint(frag_ptr[{i}])" for i in range(64)]


def tmem_a_kernel(M: int = 64, N: int = 128, K: int = 32, a_decl: str = "batched", c_decl: str = "batched",
                  a_in_tmem: bool = True, extra: str = "") -> str:
    """A in tensor memory (or shared), B shared, C in tensor memory: the `.ws` M = 64 forms (C batched
    (2, M, N / 2) or packed (M, 2, N / 2)) and the M = 128 identity."""
    a_buf = {
        "batched": f'(2, {M}, {K}), "bfloat16", scope="tmem", allocated_addr=tmem_addr[0] + 256,\n'
                   f'                           layout=TileLayout(S[(2, {M}, {K}) : (64 @ TLane, 1 @ TLane, 1 @ TCol)])',
        "flat": f'({M}, {K}), "bfloat16", scope="tmem", allocated_addr=tmem_addr[0] + 256,\n'
                f'                           layout=TileLayout(S[({M}, {K}) : (1 @ TLane, 1 @ TCol)])',
    }[a_decl]
    c_buf = {
        "batched": f'(2, {M}, {N // 2}), "float32", scope="tmem", allocated_addr=tmem_addr[0],\n'
                   f'                           layout=TileLayout(S[(2, {M}, {N // 2}) : (64 @ TLane, 1 @ TLane, 1 @ TCol)])',
        "packed": f'({M}, {N}), "float32", scope="tmem", allocated_addr=tmem_addr[0],\n'
                  f'                           layout=TileLayout(S[({M}, 2, {N // 2}) : (1 @ TLane, 64 @ TLane, 1 @ TCol)])',
        "identity": f'({M}, {N}), "float32", scope="tmem", allocated_addr=tmem_addr[0],\n'
                    f'                           layout=TileLayout(S[({M}, {N}) : (1 @ TLane, 1 @ TCol)])',
    }[c_decl]
    a_region = "A_tmem[:, :, :]" if a_decl == "batched" else "A_tmem[:, :]"
    if not a_in_tmem:
        a_region = "A_smem"
    c_region = "C_tmem[:, :, :]" if c_decl == "batched" else "C_tmem[:, :]"
    return f'''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TileLayout, ComposeLayout, TLane, TCol

@T.prim_func
def k(B_ptr: T.handle):
    B = T.match_buffer(B_ptr, ({N}, {K}), "bfloat16")
    T.device_entry()
    T.cta_id([1])
    warp_id = T.warp_id([4])
    tid = T.thread_id([128])
    A_smem = T.alloc_buffer(({M}, {K}), "bfloat16", scope="shared", align=1024,
                            layout=ComposeLayout(3, 2, 3, S[({M}, {K})]))
    B_smem = T.alloc_buffer(({N}, {K}), "bfloat16", scope="shared", align=1024,
                            layout=ComposeLayout(3, 2, 3, S[({N}, {K})]))
    tmem_addr = T.alloc_shared([1], "uint32")
    if warp_id == 0:
        T.ptx.tcgen05.alloc.cta_group__1.sync.aligned.shared__cta.b32(T.address_of(tmem_addr), T.uint32(512))
    T.cuda.cta_sync()
    A_tmem = T.decl_buffer({a_buf})
    C_tmem = T.decl_buffer({c_buf})
    for i in range({N * K // 128}):
        B_smem[(i * 128 + tid) // {K}, tid % {K}] = B[(i * 128 + tid) // {K}, tid % {K}]
    if tid == 0:
        Tx.gemm_async({c_region}, {a_region}, B_smem, accum=False, dispatch="tcgen05"{extra})
'''


# name: (kernel, mma helper, descriptor, [A operand of each K step])
TMEM_A = {
    "ws_batched_c_tmem_a": (tmem_a_kernel(), "ws_cta_group__1_kind__f16_v2",
                            1 << 4 | 1 << 7 | 1 << 10 | (128 >> 3) << 17 | (64 >> 4) << 24,
                            ["tmem_addr_ptr[0] + 256u", "tmem_addr_ptr[0] + 264u"]),
    "ws_packed_c_shared_a": (tmem_a_kernel(c_decl="packed", a_in_tmem=False), "ws_cta_group__1_kind__f16",
                             1 << 4 | 1 << 7 | 1 << 10 | (128 >> 3) << 17 | (64 >> 4) << 24, None),
    "m128_tmem_a": (tmem_a_kernel(M=128, a_decl="flat", c_decl="identity"), "cta_group__1_kind__f16_v3",
                    1 << 4 | 1 << 7 | 1 << 10 | (128 >> 3) << 17 | (128 >> 4) << 24,
                    ["tmem_addr_ptr[0] + 256u", "tmem_addr_ptr[0] + 264u"]),
}


@pytest.mark.parametrize("name", TMEM_A)
def test_ws_and_tensor_memory_a(name):
    text, helper, idesc, a_args = TMEM_A[name]
    result = _compile(text)
    assert result.ok, [(d.message, [n.message for n in d.notes]) for d in result.diagnostics]
    calls = _calls(result.cuda, "tirx_ptx_tcgen05_mma")
    assert [c[0] for c in calls] == [helper] * 2  # K = 32: two K steps of 16
    assert [c[1][0] for c in calls] == ["tmem_addr_ptr[0]"] * 2
    assert [c[1][3] for c in calls] == [f"{idesc}u"] * 2
    assert [c[1][-1] for c in calls] == ["0u", "1u"]
    if a_args is not None:
        assert [c[1][1] for c in calls] == a_args
    else:
        assert all(c[1][1].startswith("tirx_cuda_tcgen05_make_desc(&A_smem_ptr[") for c in calls)


# -- refusals ---------------------------------------------------------------------------------------------

def _refusal(text: str, needle: str):
    result = _compile(text)
    assert not result.ok
    diag, = [d for d in result.diagnostics if d.code == "E0904"]
    line = next(n for n, l in enumerate(text.splitlines(), 1) if needle in l)
    col = text.splitlines()[line - 1].index(needle) + 1
    assert str(diag.span) == f"k.tx:{line}:{col}", str(diag.span)
    return [n.message for n in diag.notes]


def test_64_row_mma_refuses_an_identity_accumulator():
    text = kernel(c_layout="TileLayout(S[(64, 64) : (1 @ TLane, 1 @ TCol)])", shape="32x32b")
    text = re.sub(r"    frag = .*\n    if wg_id == 0:\n.*\n.*\n", "", text)
    notes = _refusal(text, "Tx.gemm_async(")
    assert "variant `tcgen05`: C's tensor-memory layout is not datapath F: 16 rows in the lower half of each " \
           "warp's 32 lanes, row r on lane (r // 16) * 32 + r % 16 (tcgen05 M = 64, " \
           "`tmem_datapath_layout(\"F\", 64, N)`)" in notes, notes


def test_64_rows_per_cta_of_a_pair_is_one_mma():
    text = kernel(N=512, group=2, c_layout='tmem_datapath_layout("B", 64, 512)', shape="32x32b", tmem_rows=64)
    text = re.sub(r"    frag = .*\n    if wg_id == 0:\n.*\n.*\n", "", text)
    notes = _refusal(text, "Tx.gemm_async(")
    assert "variant `tcgen05`: N = 512 needs 2 MMAs; datapath B (M = 64 per CTA of a pair) folds the whole N " \
           "onto two lane halves, so tirxc issues it as one MMA (N at most 256)" in notes, notes


def test_16_lane_fragment_refuses_the_wrong_datapath():
    text = kernel(rows=128, c_layout='TileLayout(S[(128, 64) : (1 @ TLane, 1 @ TCol)])', tmem_rows=128,
                  tmem_slice="tmem[0:64, :]").replace('("16x256b", (128, 64)', '("16x256b", (64, 64)')
    notes = _refusal(text, "Tx.wg.copy_async(")
    assert "variant `tcgen05_ldst`: a 64-row `16x256b` fragment reads datapath F " \
           "(`tmem_datapath_layout(\"F\", 64, N)`); the tensor-memory layout is not it" in notes, notes


def test_16_lane_fragment_moves_whole_repetitions():
    text = kernel(read="frag[:, 4:12]", tmem_slice="tmem[:, 4:12]")
    notes = _refusal(text, "Tx.wg.copy_async(")
    assert "variant `tcgen05_ldst`: the `16x256b` copy moves whole repetitions of 8 columns; the slice " \
           "starts at column 4, inside one" in notes, notes


# -- nvcc ---------------------------------------------------------------------------------------------------

@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("name", ["store", "pair_store"] + list(TMEM_A))
def test_generated_cuda_compiles_warning_free(name):
    text = kernel(store=True) if name == "store" else PAIR_STORE if name == "pair_store" else TMEM_A[name][0]
    result = _compile(text)
    assert result.ok
    code, output = compile_cuda(result.cuda, ["-arch=sm_100a", "-std=c++17", "-Werror", "all-warnings"])
    assert code == 0, output


def test_pair_image_fragment_refuses_datapath_f():
    text = kernel(shape="32x32b")
    notes = _refusal(text, "Tx.wg.copy_async(")
    assert "variant `tcgen05_ldst`: a 64-row `32x32b` fragment reads datapath B " \
           "(`tmem_datapath_layout(\"B\", 64, N)`); the tensor-memory layout is not it" in notes, notes


def test_ws_refuses_a_flat_tensor_memory_a():
    text = tmem_a_kernel(a_decl="flat")
    notes = _refusal(text, "Tx.gemm_async(")
    assert "variant `tcgen05`: the `.ws` M = 64 MMA reads A from both 64-lane halves: declare A as a batched " \
           "(2, M, K) region, `TileLayout(S[(2, M, K) : (64 @ TLane, 1 @ TLane, 1 @ TCol)])`" in notes, notes


def test_ws_refuses_other_instruction_tiles_and_rows():
    notes = _refusal(tmem_a_kernel(extra=", mma_m=64, mma_n=64"), "Tx.gemm_async(")
    assert "variant `tcgen05`: N = 128 needs 2 MMAs; datapath E (`.ws` M = 64) folds the whole N onto two lane " \
           "halves, so tirxc issues it as one MMA (N at most 256)" in notes, notes
    notes = _refusal(tmem_a_kernel(M=128, c_decl="identity", a_in_tmem=False, extra=", mma_n=48"), "Tx.gemm_async(")
    assert "variant `tcgen05`: mma_n=48: an MMA of M = 128 is a multiple of 16 columns, at most 256, and must " \
           "divide N = 128" in notes, notes
    notes = _refusal(tmem_a_kernel(M=128, a_decl="flat", c_decl="identity", extra=", weight_stationary=True"),
                     "Tx.gemm_async(")
    assert "variant `tcgen05`: `.ws` (weight-stationary) is supported for M = 64 on one CTA, unscaled (datapath E); " \
           "M = 128 is not supported yet" in notes, notes


def test_mma_n_splits_n_into_narrower_instructions():
    """`mma_n=64` (TIRx's option) on datapath D: two MMAs per K step, the second writing columns 64
    on and reading B's rows 64 on; without it one MMA covers N = 128."""
    def mmas(extra):
        result = _compile(tmem_a_kernel(M=128, c_decl="identity", a_in_tmem=False, extra=extra))
        assert result.ok, [(d.code, d.message, [n.message for n in d.notes]) for d in result.diagnostics]
        body = result.cuda[result.cuda.index("__global__"):]
        return [line.strip() for line in body.splitlines() if "tcgen05_mma_cta_group__1" in line]
    wide, narrow = mmas(""), mmas(", mma_n=64")
    assert len(wide) == 2 and len(narrow) == 4, (wide, narrow)
    assert "tmem_addr_ptr[0] + 64u" in narrow[2] and "tmem_addr_ptr[0] + 64u" not in narrow[0], narrow
    assert "&B_smem_ptr[2048]" in narrow[2], narrow  # B's row 64 (32 bfloat16 a row)
    assert wide[0] != narrow[0]  # the instruction descriptor's N field differs
