"""dyn_smem_large (samples/dyn_smem_large.tx) in the reference's spelling:
a 64 KiB dynamic shared arena with three views; B[b, j] = A[b, 16383 - j]."""
from tvm_tirx.script import tirx as T

import _emit

G = 8
L = 16384
HALF = 8192


@T.function
def dyn_smem_large(A: T.Tensor((G, L), "float32"), B: T.Tensor((G, L), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=G, block=256, dynamic_smem_bytes=L * 4))
    bx = T.cuda.block_idx("x")
    tx = T.cuda.thread_idx("x")
    arena = T.alloc_tensor(ty_args=[T.Tensor((L,), "float32", scope="shared.dyn")])
    stage = T.decl_tensor(arena.data, ty_args=[T.Tensor((64, 256), "float32", scope="shared.dyn")])
    lo = T.decl_tensor(arena.data, ty_args=[T.Tensor((HALF,), "float32", scope="shared.dyn")])
    hi = T.decl_tensor(arena.data, ty_args=[T.Tensor((HALF,), "float32", scope="shared.dyn",
                                                      layout=T.TileLayout(T.S[HALF] + HALF))])
    for k in range(64):
        stage[k, tx] = A[bx, k * 256 + tx]
    T.cuda.cta_sync()
    for k in range(32):
        j: T.let = k * 256 + tx
        B[bx, j] = hi[(HALF - 1) - j]
        B[bx, HALF + j] = lo[(HALF - 1) - j]


if __name__ == "__main__":
    _emit.main({"dyn_smem_large": dyn_smem_large})
