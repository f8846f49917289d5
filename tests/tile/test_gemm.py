"""`Tx.gemm` (mma.sync) and `Tx.gemm_async` (wgmma, tcgen05): the block-scale factor bytes and the
sample's inner loop. Which instruction each call gets, why a call is refused (E0904 with each
variant's reason) and nvcc are the case files' (tests/tile/cases/gemm/, gemm_async/); values are
checked on the GPU (tests/gpu/test_tile_gemm.py)."""
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
