"""saxpy (samples/saxpy.tx) in the reference's spelling: y = a * x + y over a
symbolic length n."""
from tvm_tirx.script import tirx as T

import _emit

n = T.dynamic("n")


@T.function
def saxpy(a: T.float32, x: T.Tensor((n,), "float32"), y: T.Tensor((n,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=T.ceildiv(n, 256), block=256))
    i: T.let = T.cuda.block_idx("x") * 256 + T.cuda.thread_idx("x")
    if i < n:
        y[i] = a * x[i] + y[i]


if __name__ == "__main__":
    _emit.main({"saxpy": saxpy})
