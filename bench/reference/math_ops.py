"""math_ops (samples/math_ops.tx) in the reference's spelling: integer
operators with floor division, float32 math intrinsics and float16 data."""
from tvm_tirx.script import tirx as T

import _emit

N = 256


@T.function
def int_ops(A: T.Tensor((N,), "int32"), B: T.Tensor((N,), "int32"), C: T.Tensor((N, 10), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=N))
    tx = T.cuda.thread_idx("x")
    a: T.let = A[tx]
    b: T.let = B[tx]
    C[tx, 0] = a // b
    C[tx, 1] = a % b
    C[tx, 2] = a // 8
    C[tx, 3] = a % 8
    C[tx, 4] = (a & 0xFF) | ((b & 7) << 8)
    C[tx, 5] = (a ^ b) + (~a)
    C[tx, 6] = a >> 2
    C[tx, 7] = a if (a < b and a != 0) or not (b > 3) else b
    C[tx, 8] = T.if_then_else(a >= 0, T.min(a, 100), T.max(a, -100))
    C[tx, 9] = (1 if a > b else 0) + (2 if a == b else 0) + (4 if a <= -b else 0)


@T.function
def float_ops(X: T.Tensor((N,), "float32"), I: T.Tensor((N,), "int32"), H: T.Tensor((N,), "float16"),
              Y: T.Tensor((N, 9), "float32"), HO: T.Tensor((N, 2), "float16")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=N))
    tx = T.cuda.thread_idx("x")
    x: T.let = X[tx]
    k: T.let = I[tx]
    h: T.let = H[tx]
    Y[tx, 0] = T.exp(x * T.float32(0.5))
    Y[tx, 1] = T.sqrt(T.fabs(x))
    Y[tx, 2] = T.cast(k * 3 - 7, "float32") / T.float32(4.0)
    Y[tx, 3] = T.cast(k, "float32") * x
    Y[tx, 4] = T.max(x, T.float32(0.0)) + T.min(x, T.float32(0.0)) * T.float32(0.25)
    Y[tx, 5] = x * T.float32(2.0) if x > T.float32(0.0) else T.tanh(x)
    Y[tx, 6] = T.cast(T.cast(x * T.float32(10.0), "int32"), "float32")
    Y[tx, 7] = T.log(x * x + T.float32(1.0))
    HO[tx, 0] = h * T.float16(2.0) + h
    HO[tx, 1] = T.cast(x, "float16") - h
    Y[tx, 8] = T.cast(h, "float32") + x


if __name__ == "__main__":
    _emit.main({"int_ops": int_ops, "float_ops": float_ops})
