"""relu_inline (samples/relu_inline.tx) in the reference's spelling:
B = max(A, 0) through an inline CUDA __device__ function."""
from tvm_tirx.script import tirx as T

import _emit

N = 4096

SRC = r"""
__device__ __forceinline__ float my_relu(float x) { return x > 0.f ? x : 0.f; }
"""


@T.function
def relu_inline(A: T.Tensor((N,), "float32"), B: T.Tensor((N,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=N // 256, block=256))
    i: T.let = T.cuda.block_idx("x") * 256 + T.cuda.thread_idx("x")
    B[i] = T.cuda.func_call("my_relu", A[i], SRC, ty=T.float32)


if __name__ == "__main__":
    _emit.main({"relu_inline": relu_inline})
