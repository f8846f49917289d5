"""dyn_smem_views (samples/dyn_smem_views.tx) in the reference's spelling:
C = A + B for 64 floats through two views of one dynamic shared arena."""
from tvm_tirx.script import tirx as T

import _emit


@T.function
def dyn(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32"), C: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64, dynamic_smem_bytes=512))
    tx = T.cuda.thread_idx("x")
    arena = T.alloc_tensor(ty_args=[T.Tensor((128,), "float32", scope="shared.dyn")])
    As = T.decl_tensor(arena.data, ty_args=[T.Tensor((64,), "float32", scope="shared.dyn")])
    Bs = T.decl_tensor(arena.data, ty_args=[T.Tensor((64,), "float32", scope="shared.dyn",
                                                      layout=T.TileLayout(T.S[64] + 64))])
    As[tx] = A[tx]
    Bs[tx] = B[tx]
    T.cuda.cta_sync()
    C[tx] = As[tx] + Bs[tx]


if __name__ == "__main__":
    _emit.main({"dyn": dyn})
