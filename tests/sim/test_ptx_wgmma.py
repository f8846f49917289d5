"""wgmma under `tirxc sim` (docs/sim.md, "PTX"): operands read through shared-memory matrix
descriptors with the 32-, 64- and 128-byte swizzles (K-major: 8-row groups SBO apart, each row
one swizzle span, the span's bytes XORed as TMA places them), the immediate scale of A, the
warpgroup's 128 threads each given their accumulator fragment."""
from __future__ import annotations

import numpy as np
import pytest

from transpiler import sim
from transpiler.syntax.source import SourceFile


def _kernel(mode: int) -> str:
    span = 16 << mode
    layout = {1: 3, 2: 2, 3: 1}[mode]
    return f"""from tvm.script import tirx as T


@T.prim_func
def swizzled(A_ptr: T.handle, Bt_ptr: T.handle, D_ptr: T.handle):
    A = T.match_buffer(A_ptr, (64, 16), "float16")
    Bt = T.match_buffer(Bt_ptr, (8, 16), "float16")
    D = T.match_buffer(D_ptr, (64, 8), "float32")
    T.device_entry()
    tx = T.thread_id([128])
    As = T.alloc_shared((64 * {span} // 2,), "float16", align=1024)
    Bs = T.alloc_shared((8 * {span} // 2,), "float16", align=1024)
    acc = T.alloc_local((4,), "float32")
    for i in T.serial(8):
        e = tx * 8 + i
        byte = (e // 16) * {span} + (e % 16) * 2
        As[(byte ^ (((byte >> 7) & {(1 << mode) - 1}) << 4)) // 2] = A[e // 16, e % 16]
    if tx < 16:
        for i in T.serial(8):
            e = tx * 8 + i
            byte = (e // 16) * {span} + (e % 16) * 2
            Bs[(byte ^ (((byte >> 7) & {(1 << mode) - 1}) << 4)) // 2] = Bt[e // 16, e % 16]
    T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    fields = T.uint64(1) << T.uint64(16) | T.uint64({8 * span} >> 4) << T.uint64(32) | T.uint64({layout}) << T.uint64(62)
    desc_a = T.uint64(T.cuda.cvta_generic_to_shared(As.data) >> T.uint32(4)) | fields
    desc_b = T.uint64(T.cuda.cvta_generic_to_shared(Bs.data) >> T.uint32(4)) | fields
    T.ptx.wgmma.fence.sync.aligned()
    T.ptx["wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16"](
        acc[0], acc[1], acc[2], acc[3], desc_a, desc_b, 0, -1, 1, 0, 0)
    T.ptx.wgmma.commit_group.sync.aligned()
    T.ptx.wgmma.wait_group.sync.aligned(0)
    row = (tx // 32) * 16 + (tx % 32) // 4
    col = 2 * (tx % 4)
    D[row, col] = acc[0]
    D[row, col + 1] = acc[1]
    D[row + 8, col] = acc[2]
    D[row + 8, col + 1] = acc[3]
"""


@pytest.fixture(scope="module")
def module():
    header = "from tvm.script import tirx as T\n"
    kernels = [_kernel(mode).replace(header, "").replace("def swizzled(", f"def swizzled_{mode}(") for mode in (1, 2, 3)]
    return sim.load_source(SourceFile("wgmma_swizzles.tx", header + "\n".join(kernels)), arch="sm_90a")


@pytest.mark.parametrize("mode", [1, 2, 3])
def test_wgmma_reads_k_major_operands_through_each_swizzle(module, mode):
    rng = np.random.default_rng(mode)
    a = rng.integers(-8, 8, (64, 16)).astype(np.float16)
    bt = rng.integers(-8, 8, (8, 16)).astype(np.float16)
    d = np.full((64, 8), 1000, np.float32)  # scale-d 0: the accumulators' values are not read
    getattr(module, f"swizzled_{mode}")(a, bt, d)
    np.testing.assert_array_equal(d, -(a.astype(np.float64) @ bt.astype(np.float64).T))
