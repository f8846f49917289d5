"""TMA tensor maps on the GPU (docs/design.md, decision 24): the launcher encodes each map for
the array it maps, passes it by value, and refuses what the driver would refuse with an error
that names the map; the kernel's bulk tensor copy reads exactly the box it asks for."""
from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

ENCODE = '"runtime.cuTensorMapEncodeTiled"'


def _box_copy(rows: str = "64", stride: str = "128 * 4", swizzle: int = 0, box_inner: int = 32,
              align: str = ", align=16") -> str:
    """A kernel copying the 16 x `box_inner` box at (x0, y0) of A (rows x 128 float32) into B."""
    return f"""from tvm.script import tirx as T


@T.prim_func
def box_copy(A_ptr: T.handle, B_ptr: T.handle, x0: T.int32, y0: T.int32):
    m = T.int32()
    A = T.match_buffer(A_ptr, ({rows}, 128), "float32"{align})
    B = T.match_buffer(B_ptr, (16, {box_inner}), "float32")
    A_map: T.let[T.handle("tensormap")] = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed({ENCODE}, A_map, "float32", 2, A.data, 128, {rows}, {stride}, {box_inner}, 16, 1, 1, 0, {swizzle}, 0, 0)
    T.device_entry()
    tx = T.thread_id([128])
    s = T.alloc_shared((16, {box_inner}), "float32", align=1024)
    bar = T.shared_scalar("uint64")
    if tx == 0:
        T.ptx.mbarrier.init.shared.b64(T.address_of(bar), T.uint32(1))
        T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    if tx == 0:
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(T.address_of(bar), T.uint32(16 * {box_inner} * 4))
        T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"](
            s.data, T.address_of(A_map), x0, y0, T.address_of(bar))
    T.cuda.mbarrier_wait(T.address_of(bar), 0)
    for i in range(tx, 16 * {box_inner}, 128):
        B[i // {box_inner}, i % {box_inner}] = s[i // {box_inner}, i % {box_inner}]
"""


def test_a_bulk_tensor_copy_reads_its_box_and_zero_fills_outside(launcher_for):
    import cupy
    module = launcher_for("tma_box_copy", _box_copy(rows="m", stride="128 * 4"))
    a = cupy.arange(40 * 128, dtype=cupy.float32).reshape(40, 128)
    out = cupy.full((16, 32), -1, cupy.float32)
    module.box_copy(a, out, 8, 4)
    np.testing.assert_array_equal(out.get(), a.get()[4:20, 8:40])
    # rows past the extent (40) come back as zeros: the map's extent is the array's
    module.box_copy(a, out, 96, 32)
    expected = np.zeros((16, 32), np.float32)
    expected[:8, :] = a.get()[32:40, 96:128]
    np.testing.assert_array_equal(out.get(), expected)


def test_each_array_gets_a_map_of_its_own_address(launcher_for):
    import cupy
    module = launcher_for("tma_box_copy", _box_copy(rows="m", stride="128 * 4"))
    out = cupy.zeros((16, 32), cupy.float32)
    for seed in range(3):
        a = cupy.asarray(np.random.default_rng(seed).standard_normal((64, 128)).astype(np.float32))
        module.box_copy(a, out, 32, 16)
        np.testing.assert_array_equal(out.get(), a.get()[16:32, 32:64])


def test_a_misaligned_array_is_refused_naming_the_map(launcher_for):
    import cupy
    module = launcher_for("tma_misaligned", _box_copy(rows="m", stride="128 * 4", align=", align=4"))
    base = cupy.zeros(64 * 128 + 1, cupy.float32)
    view = base[1:].reshape(64, 128)  # 4-byte aligned only
    with pytest.raises(ValueError, match="tensor map 'A_map' maps argument 'A'.*not 16-byte aligned"):
        module.box_copy(view, cupy.zeros((16, 32), cupy.float32), 0, 0)


def test_a_stride_tma_cannot_take_is_refused_before_the_launch(launcher_for):
    import cupy
    module = launcher_for("tma_bad_stride", _box_copy(rows="m", stride="m * 4"))
    with pytest.raises(ValueError, match="tensor map 'A_map' would have the byte stride 132 in dimension 1"):
        module.box_copy(cupy.zeros((33, 128), cupy.float32), cupy.zeros((16, 32), cupy.float32), 0, 0)


CALLER_MAP = """from tvm.script import tirx as T


@T.prim_func
def take_map(tmap: T.TensorMap(), B_ptr: T.handle):
    B = T.match_buffer(B_ptr, (8, 16), "uint16")
    T.device_entry()
    tx = T.thread_id([32])
    s = T.alloc_shared((8, 16), "uint16", align=128)
    bar = T.shared_scalar("uint64")
    if tx == 0:
        T.ptx.mbarrier.init.shared.b64(T.address_of(bar), T.uint32(1))
        T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    if tx == 0:
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(T.address_of(bar), T.uint32(8 * 16 * 2))
        T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"](
            s.data, T.address_of(tmap), 16, 8, T.address_of(bar))
    T.cuda.mbarrier_wait(T.address_of(bar), 0)
    for i in range(tx, 128, 32):
        B[i // 16, i % 16] = s[i // 16, i % 16]
"""


def test_a_map_the_caller_encodes_is_passed_as_it_is(launcher_for):
    import cupy
    module = launcher_for("tma_caller_map", CALLER_MAP)
    a = cupy.arange(32 * 64, dtype=cupy.uint16).reshape(32, 64)
    out = cupy.zeros((8, 16), cupy.uint16)
    module.take_map(module.tensor_map(a, (8, 16), dtype="bfloat16"), out)
    np.testing.assert_array_equal(out.get(), a.get()[8:16, 16:32])
    with pytest.raises(TypeError, match="argument 'tmap' must be an encoded tensor map"):
        module.take_map(b"short", out)


ROUND_TRIP = f"""from tvm.script import tirx as T


@T.prim_func
def round_trip(A_ptr: T.handle, B_ptr: T.handle):
    m = T.int32()
    A = T.match_buffer(A_ptr, (m, 64), "float16", align=16)
    B = T.match_buffer(B_ptr, (m, 64), "float16", align=16)
    A_map = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed({ENCODE}, A_map, "float16", 2, A.data, 64, m, 128, 64, 16, 1, 1, 0, 3, 0, 0)
    B_map = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed({ENCODE}, B_map, "float16", 2, B.data, 64, m, 128, 64, 16, 1, 1, 0, 3, 0, 0)
    T.device_entry()
    bx = T.cta_id([m // 16])
    tx = T.thread_id([32])
    s = T.alloc_shared((16, 64), "float16", align=1024)
    bar = T.shared_scalar("uint64")
    if tx == 0:
        T.ptx.mbarrier.init.shared.b64(T.address_of(bar), T.uint32(1))
        T.ptx.fence.proxy.async_.shared__cta()
    T.cuda.cta_sync()
    if tx == 0:
        T.ptx.mbarrier.arrive.expect_tx.shared.b64(T.address_of(bar), T.uint32(16 * 64 * 2))
        T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"](
            s.data, T.address_of(A_map), 0, bx * 16, T.address_of(bar))
    T.cuda.mbarrier_wait(T.address_of(bar), 0)
    if tx == 0:
        T.ptx["cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"](T.address_of(B_map), 0, bx * 16, s.data)
        T.ptx.cp.async_.bulk.commit_group()
        T.ptx.cp.async_.bulk.wait_group(0)
"""


def test_a_swizzled_load_and_store_through_two_maps_round_trip(launcher_for):
    """The same 128-byte swizzle on the way in and out: B comes back equal to A, tile by tile."""
    import cupy
    module = launcher_for("tma_round_trip", ROUND_TRIP)
    a = cupy.asarray(np.random.default_rng(5).standard_normal((96, 64)).astype(np.float16))
    b = cupy.zeros_like(a)
    module.round_trip(a, b)
    np.testing.assert_array_equal(b.get(), a.get())
