"""control_flow (samples/control_flow.tx) in the reference's spelling:
if/elif/else, a compile-time if, range with a runtime start, T.serial,
T.grid, while with continue and break, over mutable scalars."""
from tvm_tirx.script import tirx as T

import _emit

N = 64


@T.function
def control_flow(A: T.Tensor((N,), "int32"), B: T.Tensor((N, 5), "int32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=N))
    tx = T.cuda.thread_idx("x")
    v: T.int32 = A[tx]
    if v < 0:
        B[tx, 0] = -1
    elif v == 0:
        B[tx, 0] = 0
    elif v < 10:
        B[tx, 0] = 1
    else:
        B[tx, 0] = 2

    s: T.int32 = 0
    for k in range(tx % 5, 40, 3):
        s += k
    for k in T.serial(4):
        s = s + A[(tx + k) % N]
    B[tx, 1] = s

    g: T.int32 = 0
    for i, j in T.grid(4, 4):
        g += (i + 1) * (j + tx)
    B[tx, 2] = g

    c: T.int32 = 0
    w: T.int32 = tx
    while w < 1000:
        w += 1
        if w % 2 == 0:
            continue
        c += 1
        if w % 7 == 0:
            break
    B[tx, 3] = c * 1000 + w

    if N % 2 == 0:
        B[tx, 4] = 1
    else:
        B[tx, 4] = 0


if __name__ == "__main__":
    _emit.main({"control_flow": control_flow})
