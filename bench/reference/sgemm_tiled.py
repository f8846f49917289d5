"""sgemm_tiled (samples/sgemm_tiled.tx) in the reference's spelling:
C = A @ B (1024^3, float32) with 32x32 shared tiles and a 2x2 register
accumulator per thread of a 16x16 block."""
from tvm_tirx.script import tirx as T

import _emit

M = 1024
N = 1024
K = 1024
BM = 32
BN = 32
BK = 32


@T.function
def sgemm_tiled(A: T.Tensor((M, K), "float32"), B: T.Tensor((K, N), "float32"),
                C: T.Tensor((M, N), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=(N // BN, M // BM), block=(16, 16)))
    bx = T.cuda.block_idx("x")
    by = T.cuda.block_idx("y")
    tx = T.cuda.thread_idx("x")
    ty = T.cuda.thread_idx("y")
    As = T.alloc_shared((BM, BK), "float32")
    Bs = T.alloc_shared((BK, BN), "float32")
    acc = T.alloc_local((2, 2), "float32")
    for i in T.unroll(2):
        for j in T.unroll(2):
            acc[i, j] = T.float32(0.0)
    for k0 in range(K // BK):
        for i in T.unroll(2):
            for j in T.unroll(2):
                As[ty + 16 * i, tx + 16 * j] = A[by * BM + ty + 16 * i, k0 * BK + tx + 16 * j]
                Bs[ty + 16 * i, tx + 16 * j] = B[k0 * BK + ty + 16 * i, bx * BN + tx + 16 * j]
        T.cuda.cta_sync()
        for kk in T.unroll(BK):
            for i in T.unroll(2):
                for j in T.unroll(2):
                    acc[i, j] = acc[i, j] + As[ty + 16 * i, kk] * Bs[kk, tx + 16 * j]
        T.cuda.cta_sync()
    for i in T.unroll(2):
        for j in T.unroll(2):
            C[by * BM + ty + 16 * i, bx * BN + tx + 16 * j] = acc[i, j]


if __name__ == "__main__":
    _emit.main({"sgemm_tiled": sgemm_tiled})
