"""tirxc's version of TIRx's pipeline library on the GPU (sema/library/pipeline.tx): a
warp-specialised ring of shared-memory stages, filled by TMA under TMABar "full" barriers and
released through MBarrier "empty" barriers, with PipelineState tracking stage and phase on each
side; a second kernel makes the same ring with `Pipeline(pool, n, full="tma", empty="mbar")`.
The result is compared with NumPy for tile counts below, at and above the ring's depth."""
from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

KERNELS = '''\
from tvm.script import tirx as T
from tvm.tirx.lang.pipeline import MBarrier, Pipeline, PipelineState, TMABar
from tvm.tirx.lang.warp_role import WarpRole

STAGES = 3
ROWS = 16
COLS = 32
TILE_BYTES = ROWS * COLS * 4
CONSUMER_WARPS = 4


@T.inline
def produce(A_map, tiles, full, empty, n_tiles):
    ps = PipelineState(STAGES, 0)
    for kt in range(n_tiles):
        if kt >= STAGES:
            empty.wait(ps.stage, ps.phase ^ 1)  # the consumers released this stage's last tile
        full.arrive(ps.stage, tx_count=TILE_BYTES)
        T.ptx["cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"](
            tiles.ptr_to([ps.stage, 0, 0]), T.address_of(A_map), 0, kt * ROWS, full.ptr_to([ps.stage]))
        ps.advance()


@T.inline
def consume(B, tiles, full, empty, n_tiles, tx, lane, scale):
    cs = PipelineState(STAGES, 0)
    for kt in range(n_tiles):
        full.wait(cs.stage, cs.phase)
        for i in range(tx - 32, ROWS * COLS, 32 * CONSUMER_WARPS):
            B[kt * ROWS + i // COLS, i % COLS] = tiles[cs.stage, i // COLS, i % COLS] * scale + T.float32(kt)
        T.cuda.warp_sync()
        if lane == 0:
            empty.arrive(cs.stage)
        cs.advance()


@T.prim_func
def ring(A_ptr: T.handle, B_ptr: T.handle):
    m = T.int32()
    A = T.match_buffer(A_ptr, (m, COLS), "float32", align=16)
    B = T.match_buffer(B_ptr, (m, COLS), "float32")
    A_map: T.let[T.handle("tensormap")] = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed("runtime.cuTensorMapEncodeTiled", A_map, "float32", 2, A.data, COLS, m, COLS * 4, COLS, ROWS,
                  1, 1, 0, 0, 0, 0)
    T.device_entry()
    warp = T.warp_id([1 + CONSUMER_WARPS])
    lane = T.lane_id([32])
    tx = T.thread_id([32 * (1 + CONSUMER_WARPS)])
    pool = T.SMEMPool()
    tiles = pool.alloc((STAGES, ROWS, COLS), "float32", align=128)
    full = TMABar(pool, STAGES)
    empty = MBarrier(pool, STAGES)
    pool.commit()
    full.init(1)
    empty.init(CONSUMER_WARPS)
    T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cta_sync()
    n_tiles = m // ROWS
    with WarpRole(warp, 0):
        if lane == 0:
            produce(A_map, tiles, full, empty, n_tiles)
    if warp > 0:
        consume(B, tiles, full, empty, n_tiles, tx, lane, T.float32(2.0))


@T.prim_func
def paired(A_ptr: T.handle, B_ptr: T.handle):
    m = T.int32()
    A = T.match_buffer(A_ptr, (m, COLS), "float32", align=16)
    B = T.match_buffer(B_ptr, (m, COLS), "float32")
    A_map: T.let[T.handle("tensormap")] = T.tvm_stack_alloca("tensormap", 1)
    T.call_packed("runtime.cuTensorMapEncodeTiled", A_map, "float32", 2, A.data, COLS, m, COLS * 4, COLS, ROWS,
                  1, 1, 0, 0, 0, 0)
    T.device_entry()
    warp = T.warp_id([1 + CONSUMER_WARPS])
    lane = T.lane_id([32])
    tx = T.thread_id([32 * (1 + CONSUMER_WARPS)])
    pool = T.SMEMPool()
    tiles = pool.alloc((STAGES, ROWS, COLS), "float32", align=128)
    pipe = Pipeline(pool, STAGES, full="tma", empty="mbar", init_empty=CONSUMER_WARPS)
    pool.commit()
    T.ptx.fence.mbarrier_init.release.cluster()
    T.cuda.cta_sync()
    n_tiles = m // ROWS
    if warp == 0:
        if lane == 0:
            produce(A_map, tiles, pipe.full, pipe.empty, n_tiles)
    else:
        consume(B, tiles, pipe.full, pipe.empty, n_tiles, tx, lane, T.float32(-1.0))
'''


@pytest.mark.parametrize("kernel, scale", [("ring", 2.0), ("paired", -1.0)])
@pytest.mark.parametrize("tiles", [1, 3, 4, 37])
def test_a_tma_ring_with_the_library_barriers_matches_numpy(launcher_for, kernel, scale, tiles):
    import cupy
    module = launcher_for("pipeline_library", KERNELS)
    rng = np.random.default_rng(tiles)
    a = rng.standard_normal((tiles * 16, 32)).astype(np.float32)
    out = cupy.full(a.shape, np.nan, cupy.float32)
    getattr(module, kernel)(cupy.asarray(a), out)
    expected = a * np.float32(scale) + np.repeat(np.arange(tiles, dtype=np.float32), 16)[:, None]
    np.testing.assert_array_equal(out.get(), expected)
