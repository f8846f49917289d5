"""scalars (samples/scalars.tx) in the reference's spelling: the explicit
one-element register array and the scalar sugar, computing
B[t] = sum_k A[t, k] and C[t] = (3t + 1) + 4."""
from tvm_tirx.script import tirx as T

import _emit


@T.function
def scalars_explicit(A: T.Tensor((64, 4), "float32"), B: T.Tensor((64,), "float32"),
                     C: T.Tensor((64,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    tx = T.cuda.thread_idx("x")
    acc = T.alloc_local((1,), "float32")
    acc[0] = T.float32(0.0)
    phase = T.alloc_local((1,), "int32")
    phase[0] = 0
    while phase[0] < 4:
        acc[0] = acc[0] + A[tx, phase[0]]
        phase[0] += 1
    s = T.alloc_local((1,), "int32")
    s[0] = tx * 3 + 1
    B[tx] = acc[0]
    C[tx] = s[0] + phase[0]


@T.function
def scalars_sugar(A: T.Tensor((64, 4), "float32"), B: T.Tensor((64,), "float32"),
                  C: T.Tensor((64,), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    tx = T.cuda.thread_idx("x")
    acc: T.float32 = 0.0
    phase: T.int32 = 0
    while phase < 4:
        acc = acc + A[tx, phase]
        phase += 1
    s = T.local_scalar("int32")
    s = tx * 3 + 1
    B[tx] = acc
    C[tx] = s + phase


if __name__ == "__main__":
    _emit.main({"scalars_explicit": scalars_explicit, "scalars_sugar": scalars_sugar})
