"""buffer_api (samples/buffer_api.tx) in the reference's spelling: element
pointers and the data pointer passed to inline CUDA, a float4 copy, and
view / permute. The reference has no vload/vstore: a vector access is an index
T.ramp(base, 1, 4), which its code generator prints as a float4 access."""
from tvm_tirx.script import tirx as T

import _emit

SRC = r"""
__device__ __forceinline__ float ld(const float* p) { return *p; }
"""

SRC_AT = r"""
__device__ __forceinline__ float ld_at(const float* base, int i) { return base[i]; }
"""

SRC_ST = r"""
__device__ __forceinline__ void st(float* p, float v) { *p = v; }
"""


@T.function
def pointers(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32"),
             C: T.Tensor((64,), "float32"), D: T.Tensor((64,), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    tx = T.cuda.thread_idx("x")
    B[tx] = T.cuda.func_call("ld", A.ptr_to([tx]), SRC, ty=T.float32)
    C[tx] = T.cuda.func_call("ld_at", A.data, 63 - tx, SRC_AT, ty=T.float32)
    T.cuda.func_call("st", D.ptr_to([tx]), A[tx] * T.float32(2.0), SRC_ST)


@T.function
def vector_copy(A: T.Tensor((256,), "float32", align=16), B: T.Tensor((256,), "float32", align=16)):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    tx = T.cuda.thread_idx("x")
    B[T.ramp(tx * 4, 1, 4)] = A[T.ramp(tx * 4, 1, 4)]


@T.function
def view_permute(A: T.Tensor((256,), "float32"), B: T.Tensor((64,), "float32"),
                 C: T.Tensor((4, 64), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=64))
    tx = T.cuda.thread_idx("x")
    A2 = A.view(64, 4)
    B[tx] = A2[tx, 0] + A2[tx, 3]
    At = A2.permute(1, 0)
    for i in range(4):
        C[i, tx] = At[i, tx]


if __name__ == "__main__":
    _emit.main({"pointers": pointers, "vector_copy": vector_copy, "view_permute": view_permute})
