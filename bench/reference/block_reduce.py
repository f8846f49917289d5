"""block_reduce (samples/block_reduce.tx) in the reference's spelling:
shared-memory tree reduction, one partial sum per block; the second kernel
finishes in warp 0 with __syncwarp() between steps."""
from tvm_tirx.script import tirx as T

import _emit

G = 64
BLOCK = 256


@T.function
def block_reduce(A: T.Tensor((G * BLOCK,), "float32"), B: T.Tensor((G,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=G, block=BLOCK))
    bx = T.cuda.block_idx("x")
    tx = T.cuda.thread_idx("x")
    sm = T.alloc_shared((BLOCK,), "float32")
    sm[tx] = A[bx * BLOCK + tx]
    T.cuda.cta_sync()
    for k in range(8):
        if tx < (128 >> k):
            sm[tx] = sm[tx] + sm[tx + (128 >> k)]
        T.cuda.cta_sync()
    if tx == 0:
        B[bx] = sm[0]


@T.function
def block_reduce_warp_tail(A: T.Tensor((G * BLOCK,), "float32"), B: T.Tensor((G,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=G, block=BLOCK))
    bx = T.cuda.block_idx("x")
    tx = T.cuda.thread_idx("x")
    warp = T.cuda.warp_id()
    lane = T.cuda.lane_id()
    sm = T.alloc_shared((BLOCK,), "float32")
    sm[tx] = A[bx * BLOCK + tx]
    T.cuda.cta_sync()
    for k in range(2):
        if tx < (128 >> k):
            sm[tx] = sm[tx] + sm[tx + (128 >> k)]
        T.cuda.cta_sync()
    if warp == 0:
        for k in range(6):
            if lane < (32 >> k):
                sm[lane] = sm[lane] + sm[lane + (32 >> k)]
            T.cuda.warp_sync()
        if lane == 0:
            B[bx] = sm[0]


if __name__ == "__main__":
    _emit.main({"block_reduce": block_reduce, "block_reduce_warp_tail": block_reduce_warp_tail})
