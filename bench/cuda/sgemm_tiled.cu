// Hand-written twin of samples/sgemm_tiled.tx: C = A @ B, 1024^3 float32.
// A 16x16-thread block computes a 32x32 tile of C; thread (tx, ty) owns rows
// ty, ty + 16 and columns tx, tx + 16 of it (a 2x2 register accumulator) and
// loads the same four positions of each 32x32 A and B tile into shared memory.
#define M 1024
#define N 1024
#define K 1024
#define BM 32
#define BN 32
#define BK 32

extern "C" __global__ void __launch_bounds__(256)
sgemm_tiled_kernel(const float* __restrict__ A_ptr, const float* __restrict__ B_ptr, float* __restrict__ C_ptr) {
  __shared__ float As[BM][BK];
  __shared__ float Bs[BK][BN];
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
  const int row0 = blockIdx.y * BM;
  const int col0 = blockIdx.x * BN;
  float acc[2][2] = {{0.0f, 0.0f}, {0.0f, 0.0f}};
  for (int k0 = 0; k0 < K; k0 += BK) {
#pragma unroll
    for (int i = 0; i < 2; ++i) {
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        As[ty + 16 * i][tx + 16 * j] = A_ptr[(row0 + ty + 16 * i) * K + k0 + tx + 16 * j];
        Bs[ty + 16 * i][tx + 16 * j] = B_ptr[(k0 + ty + 16 * i) * N + col0 + tx + 16 * j];
      }
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
#pragma unroll
      for (int i = 0; i < 2; ++i) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          acc[i][j] += As[ty + 16 * i][kk] * Bs[kk][tx + 16 * j];
        }
      }
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < 2; ++i) {
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      C_ptr[(row0 + ty + 16 * i) * N + col0 + tx + 16 * j] = acc[i][j];
    }
  }
}
