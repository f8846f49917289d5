"""TMA under `tirxc sim` (docs/sim.md, "Asynchronous copies"): a tensor map built from the
description the launcher encodes, the box placed in shared memory by the swizzle tirxc's own
layouts use (target/tma.py swizzle_address), out-of-bounds elements filled with zeros or NaN,
the box's bytes completing the mbarrier's transaction count."""
from __future__ import annotations

import numpy as np
import pytest

from transpiler import sim
from transpiler.syntax.source import SourceFile
from transpiler.target.tma import swizzle_address

ENCODE = '"runtime.cuTensorMapEncodeTiled"'


def _raw_box(swizzle: int, oob_fill: int) -> str:
    """A kernel copying the 16 x 32 float32 box at (x0, y0) of A into shared memory by TMA and
    writing shared memory out to B as it lies (without undoing the swizzle)."""
    return f"""from tvm.script import tirx as T


@T.prim_func
def raw_box(A_ptr: T.handle, B_ptr: T.handle, x0: T.int32, y0: T.int32):
    A = T.match_buffer(A_ptr, (40, 128), "float32", align=16)
    B = T.match_buffer(B_ptr, (16, 32), "float32")
    A_map: T.let[T.handle("tensormap")] = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed({ENCODE}, A_map, "float32", 2, A.data, 128, 40, 128 * 4, 32, 16, 1, 1, 0, {swizzle}, 0, {oob_fill})
    T.device_entry()
    tx = T.thread_id([128])
    s = T.alloc_shared((16, 32), "float32", align=1024)
    bar = T.shared_scalar("uint64")
    if tx == 0:
        T.ptx.mbarrier.init.shared.b64(T.address_of(bar), T.uint32(1))
        T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    if tx == 0:
        T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"](
            s.data, T.address_of(A_map), x0, y0, T.address_of(bar))
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(T.address_of(bar), T.uint32(16 * 32 * 4))
    T.cuda.mbarrier_wait(T.address_of(bar), 0)
    for i in range(tx, 16 * 32, 128):
        B[i // 32, i % 32] = s[i // 32, i % 32]
"""


REDUCE = f"""from tvm.script import tirx as T


@T.prim_func
def add_box(A_ptr: T.handle, x0: T.int32, y0: T.int32):
    A = T.match_buffer(A_ptr, (40, 128), "float32", align=16)
    A_map: T.let[T.handle("tensormap")] = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed({ENCODE}, A_map, "float32", 2, A.data, 128, 40, 128 * 4, 32, 16, 1, 1, 0, 0, 0, 0)
    T.device_entry()
    tx = T.thread_id([128])
    s = T.alloc_shared((16, 32), "float32", align=1024)
    for i in range(tx, 16 * 32, 128):
        s[i // 32, i % 32] = T.float32(i)
    T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    if tx == 0:
        T.ptx["cp.reduce.async.bulk.tensor.2d.global.shared::cta.add.tile.bulk_group"](
            T.address_of(A_map), x0, y0, s.data)
        T.ptx.cp.async_.bulk.commit_group()
        T.ptx.cp.async_.bulk.wait_group(0)
"""


@pytest.fixture(scope="module")
def module():
    """Every kernel here in one module: one build."""
    header = "from tvm.script import tirx as T\n"
    texts = [_raw_box(3, 0).replace("def raw_box(", "def swizzled_box("), _raw_box(0, 1).replace("def raw_box(", "def nan_box("),
             REDUCE]
    return sim.load_source(SourceFile("tma_boxes.tx", header + "\n".join(t.replace(header, "") for t in texts)),
                           arch="sm_90a")


def test_a_tensor_reduction_adds_the_box_inside_the_tensor_only(module):
    a = np.ones((40, 128), np.float32)
    module.add_box(a, 112, 32)  # columns 112-143, rows 32-47: a quarter of the box inside
    want = np.ones((40, 128), np.float32)
    want[32:40, 112:128] += np.arange(16 * 32, dtype=np.float32).reshape(16, 32)[:8, :16]
    np.testing.assert_array_equal(a, want)


def test_a_128_byte_swizzled_box_lies_in_shared_memory_as_tirxcs_swizzle_places_it(module):
    a = np.arange(40 * 128, dtype=np.float32).reshape(40, 128)
    out = np.full((16, 32), -1, np.float32)
    module.swizzled_box(a, out, 64, 8)
    box = a[8:24, 64:96].ravel()  # the box, dense: row after row of 128 bytes
    raw = out.ravel()
    for word in range(16 * 32):  # the word at shared byte p is the box's at swizzle(p) (its own inverse)
        assert raw[word] == box[swizzle_address(4 * word, 3) // 4], word


def test_out_of_bounds_elements_read_as_nan_with_the_nan_fill(module):
    a = np.arange(40 * 128, dtype=np.float32).reshape(40, 128)
    out = np.full((16, 32), -1, np.float32)
    module.nan_box(a, out, 112, 32)  # columns 112-143 (128 and up outside), rows 32-47 (40 and up)
    want = np.full((16, 32), np.nan, np.float32)
    want[:8, :16] = a[32:40, 112:128]
    np.testing.assert_array_equal(out, want)
