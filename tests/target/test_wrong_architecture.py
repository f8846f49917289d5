"""Arch-specific instructions on a target that lacks them are refused at the tile primitive that
would emit them (E0904 naming the feature and the target), as the same instruction written as raw
PTX is (E0320): tensor memory and tcgen05 on sm_120a / sm_90a, wgmma on sm_100a, TMA multicast on
sm_90 / sm_120a, `cta_group=2` on sm_120a. Before the target answered by feature, a comparison of
architecture numbers took sm_120a for a Blackwell with tensor memory."""
from __future__ import annotations

import re

import pytest

from tests.conftest import transpile
from tests.tile.case_kernels import kernel_source

def _multicast(mask: str) -> str:
    """The TMA multicast case file's kernel, with its `cta_mask=` replaced."""
    return kernel_source("copy_async", "multicast").replace("cta_mask=3", f"cta_mask={mask}")


TMEM_COPY = '''from tvm.script import tirx as T
from tvm.script.tirx import tile as Tx
from tvm.tirx.layout import S, TCol, TileLayout, TLane
from tvm.tirx.layout import tid_in_wg as axis_tid_in_wg


@T.prim_func
def store(A_ptr: T.handle):
    A = T.match_buffer(A_ptr, (128, 8), "float16")
    T.device_entry()
    warp_id = T.warp_id([4]); wg_id = T.warpgroup_id([1]); tid = T.thread_id([128])
    tmem_addr = T.alloc_shared([1], "uint32")
    tmem = T.decl_buffer((128, 8), "float16", scope="tmem", allocated_addr=tmem_addr[0],
                         layout=TileLayout(S[(128, 8) : (1 @ TLane, 1 @ TCol)]))
    A_reg = T.alloc_local((8,), "float16")
    A_local = A_reg.view(128, 8, layout=TileLayout(S[(128, 8) : (1 @ axis_tid_in_wg, 1)]))
    Tx.wg.copy_async(tmem[:, :], A_local[:, :])
'''

TCGEN05 = "sm_100a, sm_101a, sm_103a, sm_110a, sm_100f, sm_101f, sm_103f or sm_110f"


def _refusal(result) -> tuple[str, list[str]]:
    errors = [d for d in result.diagnostics if d.severity == "error"]
    assert len(errors) == 1, [(d.code, d.message) for d in errors]
    return errors[0].code, [n.message for n in errors[0].notes]


def _minimum(result) -> str:
    return re.search(r"Minimum architecture: (sm_\w+)", result.cuda).group(1)


@pytest.mark.parametrize("arch", ["sm_120a", "sm_120", "sm_90a"])
def test_a_copy_into_tensor_memory_needs_a_target_with_it(arch):
    code, notes = _refusal(transpile(TMEM_COPY, "store.tx", arch=arch))
    assert code == "E0904"
    assert f"variant `tcgen05_ldst`: tensor memory needs {TCGEN05}; the target is {arch}" in notes


@pytest.mark.parametrize("arch", [None, "sm_100a", "sm_103a", "sm_100f"])
def test_a_copy_into_tensor_memory_on_a_target_with_it(arch):
    result = transpile(TMEM_COPY, "store.tx", arch=arch)
    assert result.ok, [(d.code, d.message) for d in result.diagnostics]
    assert "tcgen05.st.sync.aligned" in result.cuda


@pytest.mark.parametrize("arch", ["sm_90", "sm_120", "sm_120a"])
def test_tma_multicast_needs_an_arch_specific_target_with_it(arch):
    code, notes = _refusal(transpile(_multicast("3"), "multicast.tx", arch=arch))
    assert code == "E0904"
    assert any(n.startswith("variant `tma`: TMA multicast (`cta_mask=`) needs sm_90a, sm_100a") and
               n.endswith(f"; the target is {arch}") for n in notes), notes


@pytest.mark.parametrize("arch", ["sm_90a", "sm_100a", "sm_100f"])
def test_tma_multicast_on_targets_with_it(arch):
    result = transpile(_multicast("3"), "multicast.tx", arch=arch)
    assert result.ok and ".multicast::cluster" in result.cuda


@pytest.mark.parametrize("arch", ["sm_90a", "sm_120a"])
def test_a_cta_pair_needs_a_target_with_tcgen05(arch):
    text = _multicast("0").replace("cta_mask=0)", "cta_group=2)")
    code, notes = _refusal(transpile(text, "pair.tx", arch=arch))
    assert code == "E0904"
    assert f"variant `tma`: `cta_group=2` needs {TCGEN05}; the target is {arch}" in notes


def test_raw_tcgen05_on_a_blackwell_of_the_family_is_accepted_and_recorded():
    text = TMEM_COPY.replace('    Tx.wg.copy_async(tmem[:, :], A_local[:, :])\n',
                             '    T.ptx.tcgen05.fence__before_thread_sync()\n')
    for arch, minimum in (("sm_103a", "sm_103a"), ("sm_100a", "sm_100a")):
        result = transpile(text, "fence.tx", arch=arch)
        assert result.ok, [(d.code, d.message) for d in result.diagnostics]
        assert _minimum(result) == minimum
    refused = transpile(text, "fence.tx", arch="sm_120a")
    assert [(d.code, d.message) for d in refused.diagnostics if d.severity == "error"] == [
        ("E0320", "`tcgen05.fence::before_thread_sync` needs sm_100a, but the target is sm_120a")]
