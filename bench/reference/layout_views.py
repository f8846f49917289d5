"""layout_views (samples/layout_views.tx) in the reference's spelling:
B[i, j] = A[i, j] + 1 through four layouts of B (row-major, column-major,
elem_offset 64, row stride 16); one thread."""
from tvm_tirx.script import tirx as T

import _emit


@T.function
def add_one_row_major(A: T.Tensor((4, 8), "float32"), B: T.Tensor((4, 8), "float32")):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    for i in range(4):
        for j in range(8):
            B[i, j] = A[i, j] + T.float32(1)


@T.function
def add_one_col_major(A: T.Tensor((4, 8), "float32"),
                      B: T.Tensor((4, 8), "float32", layout=T.TileLayout(T.S[(4, 8):(1, 4)]))):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    for i in range(4):
        for j in range(8):
            B[i, j] = A[i, j] + T.float32(1)


@T.function
def add_one_offset(A: T.Tensor((4, 8), "float32"),
                   B: T.Tensor((4, 8), "float32", layout=T.TileLayout(T.S[4, 8] + 64))):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    for i in range(4):
        for j in range(8):
            B[i, j] = A[i, j] + T.float32(1)


@T.function
def add_one_stride16(A: T.Tensor((4, 8), "float32"),
                     B: T.Tensor((4, 8), "float32", layout=T.TileLayout(T.S[(4, 8):(16, 1)]))):
    T.device_entry(launch=T.cuda.LaunchConfig(grid=1, block=1))
    for i in range(4):
        for j in range(8):
            B[i, j] = A[i, j] + T.float32(1)


if __name__ == "__main__":
    _emit.main({"add_one_row_major": add_one_row_major, "add_one_col_major": add_one_col_major,
                "add_one_offset": add_one_offset, "add_one_stride16": add_one_stride16})
