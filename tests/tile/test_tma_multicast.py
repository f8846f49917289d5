"""`Tx.copy_async` through TMA with `cta_mask=` (multicast to the CTAs of a cluster) and
`cta_group=2` (transpiler/tile/copy_async/tma.py): the instruction chosen, the refusals, an nvcc
compile. tests/gpu/test_tile_tma_multicast.py runs the multicast kernel."""
from __future__ import annotations

import pytest

from tests.conftest import has_nvcc, transpile
from tests.emit.test_nvcc import nvcc

# Each CTA of a 2-CTA cluster arms its own barrier with the tile's bytes; CTA 0 loads rows
# 0..7 of A into both CTAs' tiles (mask 0b11), CTA 1 rows 8..15 into both: each CTA ends with the
# whole 16-row tile, half of it written by the other CTA's copy.
KERNEL = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx


@T.prim_func
def multicast(A_ptr: T.handle, B_ptr: T.handle):
    A = T.match_buffer(A_ptr, (16, 64), "float32")
    B = T.match_buffer(B_ptr, (2, 16, 64), "float32")
    T.device_entry()
    bx = T.cta_id([2])
    rank = T.cta_id_in_cluster([2])
    tid = T.thread_id([128])
    Sm = T.alloc_buffer((2, 8, 64), "float32", scope="shared.dyn", align=1024)
    bar = T.alloc_shared((1,), "uint64")
    if tid == 0:
        T.ptx.mbarrier.init.shared.b64(bar.ptr_to([0]), T.uint32(1))
        T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cluster_sync()
    if tid == 0:
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(bar.ptr_to([0]), T.uint32(16 * 64 * 4))
        Tx.copy_async(Sm[rank, :, :], A[rank * 8:rank * 8 + 8, :], mbar=bar.ptr_to([0]), cta_mask=%s)
    T.cuda.mbarrier_wait(bar.ptr_to([0]), 0)
    for i in range(8):
        B[bx, (tid // 64) + i * 2, tid %% 64] = Sm[i // 4, (tid // 64) + (i %% 4) * 2, tid %% 64]
    T.cuda.cluster_sync()
'''


def test_a_mask_of_several_ctas_multicasts():
    result = transpile(KERNEL % "3", "multicast.tx", arch="sm_90a")
    assert result.ok, [(d.span.line, d.code, d.message) for d in result.diagnostics]
    assert ("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
            "[%0], [%1, {%2, %3}], [%4], %5;") in result.cuda
    assert "(unsigned long long)&A_tmap, 0, rank * 8, &bar_ptr[0], 3u);" in result.cuda


def test_a_run_time_mask_multicasts_and_one_cta_is_a_unicast():
    dynamic = transpile(KERNEL % "(1 << (rank + 1)) - 1", "multicast.tx", arch="sm_90a")
    assert dynamic.ok and ".multicast::cluster" in dynamic.cuda
    single = transpile(KERNEL % "1", "multicast.tx", arch="sm_90a")
    assert single.ok and ".multicast::cluster" not in single.cuda


@pytest.mark.parametrize("mask, reason", [
    ("70000", "`cta_mask=` is a 16-bit mask of CTAs, not 70000"),
])
def test_refusals(mask, reason):
    result = transpile(KERNEL % mask, "multicast.tx", arch="sm_90a")
    errs = [d for d in result.diagnostics if d.severity == "error"]
    assert [(d.code, d.span.line, d.span.col) for d in errs] == [("E0904", 21, 9)]
    assert any(reason in n.message for n in errs[0].notes), [n.message for n in errs[0].notes]


def test_cta_group_2_needs_sm_100():
    text = KERNEL % "0"
    text = text.replace("cta_mask=0)", "cta_group=2)")
    hopper = transpile(text, "multicast.tx", arch="sm_90a")
    assert any("`cta_group=2` needs sm_100" in n.message for d in hopper.diagnostics for n in d.notes)
    blackwell = transpile(text, "multicast.tx", arch="sm_100a")
    assert blackwell.ok, [(d.code, d.message) for d in blackwell.diagnostics]
    assert ".mbarrier::complete_tx::bytes.cta_group::2 [" in blackwell.cuda


@pytest.mark.skipif(not has_nvcc(), reason="nvcc is not installed")
@pytest.mark.parametrize("mask", ["3", "(1 << (rank + 1)) - 1"])
def test_compiles_warning_free(tmp_path, mask):
    cu = tmp_path / "multicast.cu"
    cu.write_text(transpile(KERNEL % mask, "multicast.tx", arch="sm_90a").cuda)
    rc, out = nvcc(cu, "sm_90a", tmp_path)
    assert rc == 0 and "warning" not in out, out
