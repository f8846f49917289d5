"""`Tx.gemm` (mma.sync) and `Tx.gemm_async` (wgmma): which variant and instruction a call gets, why
a call is refused (E0904 with each variant's reason, at the call's file:line:col), and that the
CUDA compiles warning-free. Values are checked on the GPU (tests/gpu/test_tile_gemm.py)."""
from __future__ import annotations

import re

import pytest

from tests.conftest import has_nvcc
from tests.build_cache import compile_cuda
from tests.tile import gemm_kernels as gk
from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

MMA = {
    "f16_k16": (gk.mma_kernel("float16", "float32", 32, 16, 32, 16, 2), "m16n8k16.row.col.f32.f16.f16.f32", 2 * 2 * 2),
    "f16_k8": (gk.mma_kernel("float16", "float32", 16, 8, 8, 8, 2, beta=1), "m16n8k8.row.col.f32.f16.f16.f32", 1),
    "bf16_transposed": (gk.mma_kernel("bfloat16", "float32", 16, 16, 32, 16, 2, beta=1, tA=True, tB=True),
                        "m16n8k16.row.col.f32.bf16.bf16.f32", 4),
    "tf32": (gk.mma_kernel("float32", "float32", 16, 8, 16, 8, 1), "m16n8k8.row.col.f32.tf32.tf32.f32", 2),
    "s8": (gk.mma_kernel("int8", "int32", 16, 8, 64, 32, 4), "m16n8k32.row.col.s32.s8.s8.s32", 2),
    "u8_k16": (gk.mma_kernel("uint8", "int32", 16, 8, 16, 16, 4), "m16n8k16.row.col.s32.u8.u8.s32", 1),
    "warpgroup": (gk.mma_kernel("float16", "float32", 16, 8, 16, 16, 2, scope="wg", threads=128),
                  "m16n8k16.row.col.f32.f16.f16.f32", 1),
}

WGMMA = {
    "ss_128B": (gk.wgmma_kernel(64, 64, 64), "m64n64k16.f32.f16.f16<1, 1, 0, 0>", 4),
    "ss_64B_two_m_tiles": (gk.wgmma_kernel(128, 32, 32, swizzle=2, accum=True), "m64n32k16.f32.f16.f16<1, 1, 0, 0>",
                           4),
    "ss_32B_n256": (gk.wgmma_kernel(64, 256, 16, swizzle=1), "m64n256k16.f32.f16.f16<1, 1, 0, 0>", 1),
    "rs_128B": (gk.wgmma_kernel(64, 16, 64, accum=True, a_in_registers=True), "m64n16k16.f32.f16.f16_v1<1, 1, 0>",
                4),
}


TCGEN05 = {
    # name: (kernel, mnemonic helper, instruction descriptor of the first K step, MMAs)
    "f16": (gk.tcgen05_kernel(), "cta_group__1_kind__f16_v1", 1 << 4 | (128 >> 3) << 17 | (128 >> 4) << 24, 4),
    "warp_bf16": (gk.tcgen05_kernel("bfloat16", warp=True, accum="tid > 0"), "cta_group__1_kind__f16_v1",
                  1 << 4 | 1 << 7 | 1 << 10 | (128 >> 3) << 17 | (128 >> 4) << 24, 4),
    "pair": (gk.tcgen05_kernel(N=256, group=2), "cta_group__2_kind__f16_v1",
             1 << 4 | (256 >> 3) << 17 | (256 >> 4) << 24, 4),
    "fp8": (gk.tcgen05_kernel("float8_e4m3fn"), "cta_group__1_kind__f8f6f4_v1",
            1 << 4 | (128 >> 3) << 17 | (128 >> 4) << 24, 4),
    "fp8_block_scaled": (gk.tcgen05_kernel("float8_e4m3fn", scaled=True), "cta_group__1_kind__mxf8f6f4_block_scale",
                         1 << 23 | (128 >> 3) << 17 | (128 >> 4) << 24, 4),
}


def _top_level(args: str) -> list[str]:
    """A C argument list split at its top-level commas."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(args):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(args[start:i].strip())
            start = i + 1
    return out + [args[start:].strip()]


def _compile(text: str, name: str = "k.tx", arch: str | None = None):
    return compile_source(SourceFile(name, text), arch=arch)


def _helpers_called(cuda: str, prefix: str) -> list[str]:
    body = cuda[cuda.index("__global__"):]
    return re.findall(rf"{prefix}_([a-z0-9_]+(?:<[0-9, ]+>)?)\(", body)


@pytest.mark.parametrize("name", MMA)
def test_mma_gemm_picks_the_instruction(name):
    text, spelled, count = MMA[name]
    result = _compile(text)
    assert result.ok, [d.message for d in result.diagnostics]
    record, = result.program.kernels[0].tile_dispatch
    assert record.variant == "mma_sync"
    called = _helpers_called(result.cuda, "tirx_ptx_mma_sync_aligned")
    assert called == [spelled.replace(".", "_")] * count


@pytest.mark.parametrize("name", WGMMA)
def test_wgmma_gemm_async_picks_the_instruction(name):
    text, spelled, count = WGMMA[name]
    result = _compile(text)
    assert result.ok, [d.message for d in result.diagnostics]
    record, = result.program.kernels[0].tile_dispatch
    assert record.variant == "wgmma"
    called = _helpers_called(result.cuda, "tirx_ptx_wgmma")
    mma = [c for c in called if c.startswith("mma_async")]
    assert mma == ["mma_async_sync_aligned_" + spelled.replace(".", "_").replace("_v1", "_v1")] * count
    assert called[0] == "fence_sync_aligned" and "commit_group_sync_aligned" not in called[:count + 1]
    assert result.program.min_arch == 90 and result.program.arch_suffix == "a"


def test_wgmma_first_k_step_takes_accum_later_ones_accumulate():
    result = _compile(WGMMA["ss_128B"][0])
    calls = [line for line in result.cuda.splitlines() if "tirx_ptx_wgmma_mma_async" in line and "(acc_ptr" in line]
    assert [line.rstrip(");").rsplit(", ", 1)[1] for line in calls] == ["0u", "1u", "1u", "1u"]


def test_sample_inner_loop_is_the_native_one():
    """samples/gemm_tx_hopper.tx issues per k-tile what samples/gemm_bf16_hopper.tx writes by
    hand: one fence, four m64n256k16 with the same descriptors (the native sample's scale-d
    `kt + kk > 0` is `kt > 0`, then 1)."""
    from tests.conftest import SAMPLES
    mine = compile_source(SourceFile("gemm_tx_hopper.tx", (SAMPLES / "gemm_tx_hopper.tx").read_text()))
    native = compile_source(SourceFile("gemm_bf16_hopper.tx", (SAMPLES / "gemm_bf16_hopper.tx").read_text()))
    assert mine.ok and native.ok

    def descriptors(cuda):
        return re.findall(r"tirx_cuda_wgmma_make_desc\((.*?), 1, 64, 3\)", cuda)
    assert descriptors(mine.cuda) == descriptors(native.cuda)
    assert len(descriptors(mine.cuda)) == 16


@pytest.mark.parametrize("name", TCGEN05)
def test_tcgen05_gemm_async_picks_the_instruction(name):
    text, helper, idesc, count = TCGEN05[name]
    result = _compile(text, arch="sm_100a")
    assert result.ok, [(d.message, [n.message for n in d.notes]) for d in result.diagnostics]
    record, = result.program.kernels[0].tile_dispatch
    assert record.variant == "tcgen05"
    calls = re.findall(r"tirx_ptx_tcgen05_mma_([a-z0-9_]+)\((.*)\);", result.cuda)
    assert [c[0] for c in calls] == [helper] * count
    args = [_top_level(c[1]) for c in calls]
    assert args[0][3] == f"{idesc}u"
    assert [a[-1] for a in args][1:] == ["1u"] * (count - 1)
    if name == "warp_bf16":
        assert "if (tirx_elect_sync())" in result.cuda


def test_tcgen05_block_scaled_k_steps_select_their_scale_factor_bytes():
    result = _compile(TCGEN05["fp8_block_scaled"][0], arch="sm_100a")
    calls = re.findall(r"tirx_ptx_tcgen05_mma_[a-z0-9_]+\((.*)\);", result.cuda)
    base = TCGEN05["fp8_block_scaled"][2]
    assert [_top_level(c)[3] for c in calls] == [f"{base | k << 29 | k << 4}u" for k in range(4)]
    assert [_top_level(c)[4] for c in calls] == ["tmem_addr_ptr[0] + 256u"] * 4


def test_tcgen05_one_mma_of_scale_factors_is_reused_by_every_k_step():
    """SFA / SFB of one column (one MMA's scale factors, fp8 blocks of 32): as TIRx reads SF_K =
    sf_per_mma, every K step reads the same factors (id 0); two columns for four K steps are
    neither that nor one set per step."""
    text = TCGEN05["fp8_block_scaled"][0].replace("SFA=SFA[:, :], SFB=SFB[:, :]", "SFA=SFA[:, 0:1], SFB=SFB[:, 0:1]")
    result = _compile(text, arch="sm_100a")
    assert result.ok, [(d.message, [n.message for n in d.notes]) for d in result.diagnostics]
    calls = re.findall(r"tirx_ptx_tcgen05_mma_[a-z0-9_]+\((.*)\);", result.cuda)
    base = TCGEN05["fp8_block_scaled"][2]
    assert [_top_level(c)[3] for c in calls] == [f"{base}u"] * 4
    assert [_top_level(c)[4] for c in calls] == ["tmem_addr_ptr[0] + 256u"] * 4
    diag, notes = _refusal(text.replace("0:1]", "0:2]"), arch="sm_100a")
    assert (diag.span.line, diag.span.col) == _position(text, "Tx.gemm_async(")
    assert ("variant `tcgen05`: SFA has 2 scale-factor columns: a K step reads 1, so it needs 1 (reused by every "
            "K step) or one set per K step (4 steps)") in notes, notes


# -- refusals -------------------------------------------------------------------------------------------------

def test_tcgen05_refuses_sub_byte_operands():
    """fp4 operands: tirxc keeps one element per byte, while kind::mxf4 reads two per byte (and
    kind::f8f6f4 a padded byte layout tirxc does not write), so the call is refused rather than
    issued over the wrong bytes."""
    text = TCGEN05["fp8_block_scaled"][0].replace('"float8_e4m3fn"', '"float4_e2m1fn"')
    diag, notes = _refusal(text, arch="sm_100a")
    assert (diag.span.line, diag.span.col) == _position(text, "Tx.gemm_async(")
    assert ("variant `tcgen05`: A is float4_e2m1fn: tirxc stores 4- and 6-bit elements one to a byte, and the "
            "tensor cores read them packed (kind::mxf4) or in a padded byte layout (kind::f8f6f4) that tirxc does "
            "not produce: not supported yet") in notes, notes


def _refusal(text: str, arch: str | None = None):
    result = _compile(text, arch=arch)
    assert not result.ok
    diag, = [d for d in result.diagnostics if d.code == "E0904"]
    return diag, [n.message for n in diag.notes]


def _position(text: str, needle: str) -> tuple[int, int]:
    for number, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return number, line.index(needle) + 1
    raise AssertionError(needle)


def _at(diag, text, needle):
    line, col = _position(text, needle)
    assert (diag.span.line, diag.span.col) == (line, col), (diag.span, line, col)


def test_gemm_refuses_shared_operands():
    text = re.sub(r"A_f = T.alloc_buffer\(\(32, 32\), \"float16\", scope=\"local\", layout=.*\n",
                  'A_f = T.alloc_buffer((32, 32), "float16", scope="shared")\n', MMA["f16_k16"][0])
    text = re.sub(r"    a = A_f.local\(\d+\)\n", "", text).replace("        a[r] = A_g[w, IA[lane, r]]\n", "        pass\n")
    diag, notes = _refusal(text)
    _at(diag, text, "Tx.warp.gemm(")
    assert notes == ["variant `mma_sync`: A is in shared memory: stage it into registers first (Tx.copy)"]


def test_gemm_refuses_scaled_products():
    text = MMA["f16_k16"][0].replace("alpha=1.0", "alpha=2.0")
    diag, notes = _refusal(text)
    _at(diag, text, "Tx.warp.gemm(")
    assert notes == ["variant `mma_sync`: mma.sync does not scale the product: alpha must be the constant 1 "
                     "(not supported yet otherwise)"]


def test_gemm_refuses_a_layout_that_is_not_the_fragment():
    text = MMA["f16_k8"][0]
    # D's lanes: rows on lanes 0..7 and column pairs on lanes 0, 8, 16, 24 (the fragment: 4g + t)
    good = 'D_f = T.alloc_buffer((16, 8), "float32", scope="local", layout=TileLayout(S[(1, 2, 8, 1, 4, 2,) : (4, 2, 4 @ laneid'
    bad = text.replace(good + ", 4, 1 @ laneid, 1,)", good.replace("4 @ laneid", "1 @ laneid") + ", 4, 8 @ laneid, 1,)")
    assert bad != text
    diag, notes = _refusal(bad)
    _at(diag, bad, "Tx.warp.gemm(")
    assert notes == ["variant `mma_sync`: K = 8 is not a multiple of 16 (mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32); "
                     "m16n8k8: D[0, 2] of the tile at D[0, 0] is in lane 8; the fragment wants lane 1"]


def test_gemm_refuses_unpacked_pairs():
    text = MMA["f16_k8"][0]
    good = "layout=TileLayout(S[(1, 2, 8, 1, 1, 4, 2,) : (4, 2, 4 @ laneid, 4, 4, 1 @ laneid, 1,)])"
    bad = text.replace(good, good.replace("(4, 2, 4 @ laneid, 4, 4, 1 @ laneid, 1,)", "(4, 1, 4 @ laneid, 4, 4, 1 @ laneid, 2,)"))
    assert bad != text
    diag, notes = _refusal(bad)
    _at(diag, bad, "Tx.warp.gemm(")
    assert notes == ["variant `mma_sync`: K = 8 is not a multiple of 16 (mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32); "
                     "m16n8k8: A's elements (0, 0) .. (0, 1) of the tile at A[0, 0] are not 2 consecutive registers "
                     "starting at a multiple of 2 (one 32-bit operand)"]


def test_gemm_refuses_thread_scope():
    text = MMA["f16_k16"][0].replace("Tx.warp.gemm(", "Tx.gemm(")
    diag, notes = _refusal(text)
    _at(diag, text, "Tx.gemm(")
    assert notes == ["variant `mma_sync`: it runs at thread scope"]


def test_gemm_refuses_mismatched_k():
    text = MMA["f16_k16"][0].replace("Tx.warp.gemm(D_f, A_f, B_f,", "Tx.warp.gemm(D_f, A_f, B_f[0:16, :],")
    diag, notes = _refusal(text)
    _at(diag, text, "Tx.warp.gemm(")
    assert notes == ["variant `mma_sync`: A has K = 32 but B has K = 16"]


def test_gemm_async_refuses_an_unswizzled_operand():
    text = WGMMA["ss_128B"][0]
    bad = text.replace("Bs = T.alloc_buffer((64, 64), \"float16\", scope=\"shared\", align=1024, "
                       "layout=ComposeLayout(3, 3, 3, S[(64, 64)]))",
                       "Bs = T.alloc_buffer((64, 64), \"float16\", scope=\"shared\", align=1024)")
    assert bad != text
    diag, notes = _refusal(bad)
    _at(diag, bad, "Tx.wg.gemm_async(")
    assert any(n.startswith("variant `wgmma`: B has no swizzled layout") for n in notes), notes


def test_gemm_async_refuses_rows_wider_than_the_swizzle():
    text = WGMMA["ss_128B"][0].replace("ComposeLayout(3, 3, 3, S[(64, 64)])", "ComposeLayout(3, 2, 3, S[(64, 64)])")
    diag, notes = _refusal(text)
    assert any("A's rows are 128 bytes; a 64-byte swizzle wants K-major rows of 64 bytes (32 elements)" in n
               for n in notes), notes


def test_gemm_async_wgmma_is_sm90_only():
    text = WGMMA["ss_128B"][0].replace("    T.ptx.wgmma.commit_group.sync.aligned()\n", "")
    text = text.replace("    T.ptx.wgmma.wait_group.sync.aligned(0)\n", "")
    diag, notes = _refusal(text, arch="sm_100a")
    _at(diag, text, "Tx.wg.gemm_async(")
    assert "variant `wgmma`: wgmma exists on sm_90a only; the target is sm_100" in notes


def test_gemm_async_refuses_an_accumulator_without_layout():
    text = WGMMA["ss_128B"][0]
    bad = re.sub(r'acc = T.alloc_buffer\(\(64, 64\), "float32", scope="local", layout=TileLayout\(S\[[^\]]*\]\)\)',
                 'acc = T.alloc_buffer((64, 64), "float32", scope="local")', text)
    bad = bad.replace("c = acc.local(32)", "c = acc.local(4096)")
    assert bad != text
    diag, notes = _refusal(bad)
    assert any("variant `wgmma`: C is a register buffer without a thread layout" in n for n in notes), notes


def test_gemm_async_tcgen05_needs_tensor_memory_and_blackwell():
    text = re.sub(r"    if warp_id == 0:\n.*\n", "", TCGEN05["f16"][0])
    text = re.sub(r"        T.ptx.tcgen05.commit.*\n", "", text)
    diag, notes = _refusal(text, arch="sm_90a")
    _at(diag, text, "Tx.gemm_async(")
    assert "variant `tcgen05`: tcgen05 needs sm_100a or newer; the target is sm_90" in notes
    assert "variant `wgmma`: it runs at thread scope" in notes


def test_gemm_async_tcgen05_refuses_a_register_accumulator():
    text = WGMMA["ss_128B"][0]
    diag, notes = _refusal(text.replace("Tx.wg.gemm_async(acc, As, Bs, accum=False)",
                                        "Tx.wg.gemm_async(acc, As, Bs, accum=False, dispatch=\"tcgen05\")"))
    assert notes == ["variant `tcgen05`: it runs at warpgroup scope"]


def test_gemm_async_tcgen05_at_64_rows_needs_the_f_datapath():
    text = TCGEN05["f16"][0].replace("tmem[0:128, 0:128], A_smem, B_smem", "tmem[0:64, 0:128], A_smem[0:64, :], B_smem")
    diag, notes = _refusal(text, arch="sm_100a")
    # M = 64 is the F datapath: C must be laid out as it (tests/tile/test_tcgen05_half_datapaths.py has the rest)
    assert ("variant `tcgen05`: C's tensor-memory layout is not datapath F: 16 rows in the lower half of each warp's "
            "32 lanes, row r on lane (r // 16) * 32 + r % 16 (tcgen05 M = 64, `tmem_datapath_layout(\"F\", 64, N)`)"
            ) in notes


# -- nvcc ---------------------------------------------------------------------------------------------------

@pytest.mark.nvcc
@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not on PATH")
@pytest.mark.parametrize("name", list(MMA) + list(WGMMA) + [f"tcgen05_{n}" for n in TCGEN05])
def test_generated_cuda_compiles_warning_free(name, tmp_path):
    text = {**MMA, **WGMMA, **{f"tcgen05_{n}": v for n, v in TCGEN05.items()}}[name][0]
    arch = "sm_90a" if name in WGMMA else "sm_100a" if name.startswith("tcgen05") else "sm_80"
    result = _compile(text, arch=arch if name.startswith("tcgen05") else None)
    assert result.ok
    code, output = compile_cuda(result.cuda, [f"-arch={arch}", "-std=c++17", "-Werror", "all-warnings"])
    assert code == 0, output
