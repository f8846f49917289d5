"""`Tx.gemm` (mma.sync) and `Tx.gemm_async` (wgmma, tcgen05): why a call is refused (E0904 with each
variant's reason, at the call's file:line:col), the block-scale factor bytes, and the sample's inner
loop. Which instruction each call gets, and nvcc, are the case files' (tests/tile/cases/gemm/,
gemm_async/); values are checked on the GPU (tests/gpu/test_tile_gemm.py)."""
from __future__ import annotations

import re
from pathlib import Path

from transpiler.driver import compile_source
from transpiler.syntax.source import SourceFile

CASES = Path(__file__).resolve().parent / "cases"
# the instruction descriptor of the first K step of gemm_async/tcgen05_fp8_block_scaled.tx
FP8_BLOCK_SCALED_IDESC = 1 << 23 | (128 >> 3) << 17 | (128 >> 4) << 24


def case(name: str) -> str:
    """The kernel of tests/tile/cases/<name>.tx (which states the instructions it makes)."""
    return (CASES / f"{name}.tx").read_text(encoding="utf-8")


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


def test_tcgen05_block_scaled_k_steps_select_their_scale_factor_bytes():
    result = _compile(case("gemm_async/tcgen05_fp8_block_scaled"), arch="sm_100a")
    calls = re.findall(r"tirx_ptx_tcgen05_mma_[a-z0-9_]+\((.*)\);", result.cuda)
    base = FP8_BLOCK_SCALED_IDESC
    assert [_top_level(c)[3] for c in calls] == [f"{base | k << 29 | k << 4}u" for k in range(4)]
    assert [_top_level(c)[4] for c in calls] == ["tmem_addr_ptr[0] + 256u"] * 4


def test_tcgen05_one_mma_of_scale_factors_is_reused_by_every_k_step():
    """SFA / SFB of one column (one MMA's scale factors, fp8 blocks of 32): as TIRx reads SF_K =
    sf_per_mma, every K step reads the same factors (id 0); two columns for four K steps are
    neither that nor one set per step."""
    text = case("gemm_async/tcgen05_fp8_block_scaled").replace("SFA=SFA[:, :], SFB=SFB[:, :]", "SFA=SFA[:, 0:1], SFB=SFB[:, 0:1]")
    result = _compile(text, arch="sm_100a")
    assert result.ok, [(d.message, [n.message for n in d.notes]) for d in result.diagnostics]
    calls = re.findall(r"tirx_ptx_tcgen05_mma_[a-z0-9_]+\((.*)\);", result.cuda)
    base = FP8_BLOCK_SCALED_IDESC
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
    text = case("gemm_async/tcgen05_fp8_block_scaled").replace('"float8_e4m3fn"', '"float4_e2m1fn"')
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
                  'A_f = T.alloc_buffer((32, 32), "float16", scope="shared")\n', case("gemm/mma_sync_f16_k16_tiled_2x2x2"))
    text = re.sub(r"    a = A_f.local\(\d+\)\n", "", text).replace("        a[r] = A_g[w, IA[lane, r]]\n", "        pass\n")
    diag, notes = _refusal(text)
    _at(diag, text, "Tx.warp.gemm(")
    assert notes == ["variant `mma_sync`: A is in shared memory: stage it into registers first (Tx.copy)"]


def test_gemm_refuses_scaled_products():
    text = case("gemm/mma_sync_f16_k16_tiled_2x2x2").replace("alpha=1.0", "alpha=2.0")
    diag, notes = _refusal(text)
    _at(diag, text, "Tx.warp.gemm(")
    assert notes == ["variant `mma_sync`: mma.sync does not scale the product: alpha must be the constant 1 "
                     "(not supported yet otherwise)"]


def test_gemm_refuses_a_layout_that_is_not_the_fragment():
    text = case("gemm/mma_sync_f16_k8_with_beta")
    # D's lanes: rows on lanes 0..7 and column pairs on lanes 0, 8, 16, 24 (the fragment: 4g + t)
    good = 'D_f = T.alloc_buffer((16, 8), "float32", scope="local", layout=TileLayout(S[(1, 2, 8, 1, 4, 2,) : (4, 2, 4 @ laneid'
    bad = text.replace(good + ", 4, 1 @ laneid, 1,)", good.replace("4 @ laneid", "1 @ laneid") + ", 4, 8 @ laneid, 1,)")
    assert bad != text
    diag, notes = _refusal(bad)
    _at(diag, bad, "Tx.warp.gemm(")
    assert notes == ["variant `mma_sync`: K = 8 is not a multiple of 16 (mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32); "
                     "m16n8k8: D[0, 2] of the tile at D[0, 0] is in lane 8; the fragment wants lane 1"]


def test_gemm_refuses_unpacked_pairs():
    text = case("gemm/mma_sync_f16_k8_with_beta")
    good = "layout=TileLayout(S[(1, 2, 8, 1, 1, 4, 2,) : (4, 2, 4 @ laneid, 4, 4, 1 @ laneid, 1,)])"
    bad = text.replace(good, good.replace("(4, 2, 4 @ laneid, 4, 4, 1 @ laneid, 1,)", "(4, 1, 4 @ laneid, 4, 4, 1 @ laneid, 2,)"))
    assert bad != text
    diag, notes = _refusal(bad)
    _at(diag, bad, "Tx.warp.gemm(")
    assert notes == ["variant `mma_sync`: K = 8 is not a multiple of 16 (mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32); "
                     "m16n8k8: A's elements (0, 0) .. (0, 1) of the tile at A[0, 0] are not 2 consecutive registers "
                     "starting at a multiple of 2 (one 32-bit operand)"]


def test_gemm_refuses_thread_scope():
    text = case("gemm/mma_sync_f16_k16_tiled_2x2x2").replace("Tx.warp.gemm(", "Tx.gemm(")
    diag, notes = _refusal(text)
    _at(diag, text, "Tx.gemm(")
    assert notes == ["variant `mma_sync`: it runs at thread scope"]


def test_gemm_refuses_mismatched_k():
    text = case("gemm/mma_sync_f16_k16_tiled_2x2x2").replace("Tx.warp.gemm(D_f, A_f, B_f,", "Tx.warp.gemm(D_f, A_f, B_f[0:16, :],")
    diag, notes = _refusal(text)
    _at(diag, text, "Tx.warp.gemm(")
    assert notes == ["variant `mma_sync`: A has K = 32 but B has K = 16"]


def test_gemm_async_refuses_an_unswizzled_operand():
    text = case("gemm_async/wgmma_ss_128_byte_swizzle")
    bad = text.replace("Bs = T.alloc_buffer((64, 64), \"float16\", scope=\"shared\", align=1024, "
                       "layout=ComposeLayout(3, 3, 3, S[(64, 64)]))",
                       "Bs = T.alloc_buffer((64, 64), \"float16\", scope=\"shared\", align=1024)")
    assert bad != text
    diag, notes = _refusal(bad)
    _at(diag, bad, "Tx.wg.gemm_async(")
    assert any(n.startswith("variant `wgmma`: B has no swizzled layout") for n in notes), notes


def test_gemm_async_refuses_rows_wider_than_the_swizzle():
    text = case("gemm_async/wgmma_ss_128_byte_swizzle").replace("ComposeLayout(3, 3, 3, S[(64, 64)])", "ComposeLayout(3, 2, 3, S[(64, 64)])")
    diag, notes = _refusal(text)
    assert any("A's rows are 128 bytes; a 64-byte swizzle wants K-major rows of 64 bytes (32 elements)" in n
               for n in notes), notes


def test_gemm_async_wgmma_is_sm90_only():
    text = case("gemm_async/wgmma_ss_128_byte_swizzle").replace("    T.ptx.wgmma.commit_group.sync.aligned()\n", "")
    text = text.replace("    T.ptx.wgmma.wait_group.sync.aligned(0)\n", "")
    diag, notes = _refusal(text, arch="sm_100a")
    _at(diag, text, "Tx.wg.gemm_async(")
    assert "variant `wgmma`: wgmma needs sm_90a; the target is sm_100a" in notes


def test_gemm_async_refuses_an_accumulator_without_layout():
    text = case("gemm_async/wgmma_ss_128_byte_swizzle")
    bad = re.sub(r'acc = T.alloc_buffer\(\(64, 64\), "float32", scope="local", layout=TileLayout\(S\[[^\]]*\]\)\)',
                 'acc = T.alloc_buffer((64, 64), "float32", scope="local")', text)
    bad = bad.replace("c = acc.local(32)", "c = acc.local(4096)")
    assert bad != text
    diag, notes = _refusal(bad)
    assert any("variant `wgmma`: C is a register buffer without a thread layout" in n for n in notes), notes


def test_gemm_async_tcgen05_needs_tensor_memory_and_blackwell():
    text = re.sub(r"    if warp_id == 0:\n.*\n", "", case("gemm_async/tcgen05_f16_one_cta"))
    text = re.sub(r"        T.ptx.tcgen05.commit.*\n", "", text)
    diag, notes = _refusal(text, arch="sm_90a")
    _at(diag, text, "Tx.gemm_async(")
    assert "variant `tcgen05`: tcgen05 needs sm_100a, sm_101a, sm_103a, sm_110a, sm_100f, sm_101f, sm_103f or sm_110f; the target is sm_90a" in notes
    assert "variant `wgmma`: it runs at thread scope" in notes


def test_gemm_async_tcgen05_refuses_a_register_accumulator():
    text = case("gemm_async/wgmma_ss_128_byte_swizzle")
    diag, notes = _refusal(text.replace("Tx.wg.gemm_async(acc, As, Bs, accum=False)",
                                        "Tx.wg.gemm_async(acc, As, Bs, accum=False, dispatch=\"tcgen05\")"))
    assert notes == ["variant `tcgen05`: it runs at warpgroup scope"]


def test_gemm_async_tcgen05_at_64_rows_needs_the_f_datapath():
    text = case("gemm_async/tcgen05_f16_one_cta").replace("tmem[0:128, 0:128], A_smem, B_smem", "tmem[0:64, 0:128], A_smem[0:64, :], B_smem")
    diag, notes = _refusal(text, arch="sm_100a")
    # M = 64 is the F datapath: C must be laid out as it (tests/tile/cases/gemm_async/datapath_*.tx have the rest)
    assert ("variant `tcgen05`: C's tensor-memory layout is not datapath F: 16 rows in the lower half of each warp's "
            "32 lanes, row r on lane (r // 16) * 32 + r % 16 (tcgen05 M = 64, `tmem_datapath_layout(\"F\", 64, N)`)"
            ) in notes
