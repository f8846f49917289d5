"""let_binding (samples/let_binding.tx) in the reference's spelling:
immutable bindings (T.let), compile-time and over a runtime scalar."""
from tvm_tirx.script import tirx as T

import _emit

N = 64
M = 4
K = 8


@T.function
def let_const(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=N))
    tx = T.cuda.thread_idx("x")
    n: T.let = M * K
    half: T.let[T.int32] = N // 2
    src: T.let = (tx + half) % N
    B[tx] = A[src] * T.float32(n)


@T.function
def let_runtime(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32"), m: T.int32):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=N))
    tx = T.cuda.thread_idx("x")
    half: T.let = m * 2
    B[tx] = A[(tx + half) % N] + T.float32(half)


if __name__ == "__main__":
    _emit.main({"let_const": let_const, "let_runtime": let_runtime})
