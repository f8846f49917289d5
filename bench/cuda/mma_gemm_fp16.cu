// Hand-written twin of samples/mma_gemm_fp16.tx: C = A @ B^T on tensor cores,
// A (1024, 1024) and B (1024, 1024) float16 row-major, C float32.
// A block of 4 warps computes a 64x64 tile of C over 32-wide K slices; warp
// (wm, wn) owns a 32x32 quarter: 2x4 mma.sync m16n8k16 tiles, fed by
// ldmatrix x4 from unpadded shared tiles (the same layout and the same
// global-to-shared mapping as the sample: thread t copies 16-byte chunks 2t and
// 2t + 1 of each 64x32 tile, so the comparison measures the code, not the
// algorithm).
#include <cuda_fp16.h>

#define N 1024
#define K 1024
#define BM 64
#define BN 64
#define BK 32

// Four 8x8 b16 matrices from shared memory; lanes 8i .. 8i+7 give the row
// addresses of matrix i, which lands in r<i>.
__device__ __forceinline__ void ldmatrix_x4(unsigned& r0, unsigned& r1, unsigned& r2, unsigned& r3,
                                            const half* smem) {
  const unsigned addr = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}

// d += a (16x16, row) * b (16x8, col), fp16 inputs, fp32 accumulators.
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
               : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

extern "C" __global__ void __launch_bounds__(128)
mma_gemm_kernel(const half* __restrict__ A_ptr, const half* __restrict__ B_ptr, float* __restrict__ C_ptr) {
  __shared__ __align__(16) half As[BM][BK];
  __shared__ __align__(16) half Bs[BN][BK];
  const int tx = threadIdx.x;
  const int lane = tx % 32;
  const int wm = tx / 32 / 2;
  const int wn = tx / 32 % 2;
  const half* a_rows = A_ptr + blockIdx.y * BM * K;
  const half* b_rows = B_ptr + blockIdx.x * BN * K;
  float acc[2][4][4] = {};
  unsigned a_frag[2][4];
  unsigned b_frag[4][2];   // [n tile][k half]
  for (int k0 = 0; k0 < K / BK; ++k0) {
#pragma unroll
    for (int v = 0; v < 2; ++v) {
      const int chunk = tx * 2 + v;   // 4 chunks of 8 halves per 32-wide row
      const int row = chunk / 4;
      const int col = chunk % 4 * 8;
      *reinterpret_cast<uint4*>(&As[row][col]) = *reinterpret_cast<const uint4*>(a_rows + row * K + k0 * BK + col);
      *reinterpret_cast<uint4*>(&Bs[row][col]) = *reinterpret_cast<const uint4*>(b_rows + row * K + k0 * BK + col);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        ldmatrix_x4(a_frag[i][0], a_frag[i][1], a_frag[i][2], a_frag[i][3],
                    &As[wm * 32 + i * 16 + lane % 16][kk + lane / 16 * 8]);
      }
#pragma unroll
      for (int jj = 0; jj < 2; ++jj) {
        ldmatrix_x4(b_frag[2 * jj][0], b_frag[2 * jj][1], b_frag[2 * jj + 1][0], b_frag[2 * jj + 1][1],
                    &Bs[wn * 32 + jj * 16 + lane % 8 + lane / 16 * 8][kk + lane / 8 % 2 * 8]);
      }
#pragma unroll
      for (int i = 0; i < 2; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          mma_m16n8k16(acc[i][j], a_frag[i], b_frag[j][0], b_frag[j][1]);
        }
      }
    }
    __syncthreads();
  }
  // Accumulator d0, d1 is row lane / 4, columns 2 * (lane % 4) + {0, 1}; d2, d3 the row 8 below.
#pragma unroll
  for (int i = 0; i < 2; ++i) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int row = blockIdx.y * BM + wm * 32 + i * 16 + lane / 4;
      const int col = blockIdx.x * BN + wn * 32 + j * 8 + lane % 4 * 2;
      *reinterpret_cast<float2*>(&C_ptr[row * N + col]) = make_float2(acc[i][j][0], acc[i][j][1]);
      *reinterpret_cast<float2*>(&C_ptr[(row + 8) * N + col]) = make_float2(acc[i][j][2], acc[i][j][3]);
    }
  }
}
