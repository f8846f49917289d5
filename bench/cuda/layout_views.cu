// Hand-written twin of samples/layout_views.tx: B[i, j] = A[i, j] + 1 for a
// 4x8 tile, one thread, with B row-major, column-major, at element offset 64,
// and with a row stride of 16 (B_ptr is the start of B's allocation).
extern "C" __global__ void __launch_bounds__(1)
add_one_row_major_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr) {
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 8; ++j) {
      B_ptr[i * 8 + j] = A_ptr[i * 8 + j] + 1.0f;
    }
  }
}

extern "C" __global__ void __launch_bounds__(1)
add_one_col_major_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr) {
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 8; ++j) {
      B_ptr[j * 4 + i] = A_ptr[i * 8 + j] + 1.0f;
    }
  }
}

extern "C" __global__ void __launch_bounds__(1)
add_one_offset_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr) {
  float* B = B_ptr + 64;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 8; ++j) {
      B[i * 8 + j] = A_ptr[i * 8 + j] + 1.0f;
    }
  }
}

extern "C" __global__ void __launch_bounds__(1)
add_one_stride16_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr) {
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 8; ++j) {
      B_ptr[i * 16 + j] = A_ptr[i * 8 + j] + 1.0f;
    }
  }
}
