"""registers_unroll (samples/registers_unroll.tx) in the reference's spelling:
B[t] = (A[t, 0] + A[t, 1]) + (A[t, 2] + A[t, 3]) through a register array."""
from tvm_tirx.script import tirx as T

import _emit


@T.function
def registers_unroll(A: T.Tensor((128, 4), "float32"), B: T.Tensor((128,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tx = T.cuda.thread_idx("x")
    r = T.alloc_local((4,), "float32")
    for k in T.unroll(4):
        r[k] = A[tx, k]
    B[tx] = (r[0] + r[1]) + (r[2] + r[3])


if __name__ == "__main__":
    _emit.main({"registers_unroll": registers_unroll})
