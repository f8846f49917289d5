"""warp_reduce (samples/warp_reduce.tx) in the reference's spelling:
warp-shuffle sums (xor butterfly in a while loop; unrolled shuffle-down)."""
from tvm_tirx.script import tirx as T

import _emit

G = 16
WARPS = 4


@T.function
def warp_reduce_xor(A: T.Tensor((G * WARPS * 32,), "float32"), B: T.Tensor((G * WARPS,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=G, block=WARPS * 32))
    bx = T.cuda.block_idx("x")
    tx = T.cuda.thread_idx("x")
    warp = T.cuda.warp_id()
    lane = T.cuda.lane_id()
    v: T.float32 = A[bx * (WARPS * 32) + tx]
    offset: T.int32 = 16
    while offset >= 1:
        v = v + T.gpu_warp_shuffle_xor(0xFFFFFFFF, v, offset, 32, 32)
        offset = offset // 2
    if lane == 0:
        B[bx * WARPS + warp] = v


@T.function
def warp_reduce_down(A: T.Tensor((G * WARPS * 32,), "float32"), B: T.Tensor((G * WARPS,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=G, block=WARPS * 32))
    bx = T.cuda.block_idx("x")
    tx = T.cuda.thread_idx("x")
    warp = T.cuda.warp_id()
    lane = T.cuda.lane_id()
    v: T.float32 = A[bx * (WARPS * 32) + tx]
    for k in T.unroll(5):
        v = v + T.gpu_warp_shuffle_down(0xFFFFFFFF, v, 16 >> k, 32, 32)
    if lane == 0:
        B[bx * WARPS + warp] = v


if __name__ == "__main__":
    _emit.main({"warp_reduce_xor": warp_reduce_xor, "warp_reduce_down": warp_reduce_down})
