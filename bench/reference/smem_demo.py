"""smem_demo (samples/smem_demo.tx) in the reference's spelling: B = 2 * A, 128 floats."""
from tvm_tirx.script import tirx as T

import _emit


@T.function
def smem_demo(A: T.Tensor((128,), "float32"), B: T.Tensor((128,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=128))
    tx = T.cuda.thread_idx("x")
    sm = T.alloc_shared((128,), "float32")
    sm[tx] = A[tx]
    T.cuda.cta_sync()
    B[tx] = sm[tx] * T.float32(2.0)


if __name__ == "__main__":
    _emit.main({"smem_demo": smem_demo})
