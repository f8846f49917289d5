"""float4_copy (samples/float4_copy.tx) in the reference's spelling: B = A for
an (n, 4) float32 array, one float4 per thread."""
from tvm_tirx.script import tirx as T

import _emit

n = T.dynamic("n")


@T.function
def float4_copy(A: T.Tensor((n, 4), "float32", align=16), B: T.Tensor((n, 4), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, 256), block=256))
    i: T.let = T.cuda.block_idx("x") * 256 + T.cuda.thread_idx("x")
    if i < n:
        B[i, T.ramp(0, 1, 4)] = A[i, T.ramp(0, 1, 4)]


if __name__ == "__main__":
    _emit.main({"float4_copy": float4_copy})
