// Hand-written twin of samples/block_reduce.tx: one partial sum per block of
// 256 threads (B[b] = sum(A[256b : 256b + 256]), 64 blocks), a shared-memory
// tree with __syncthreads() between steps; the second kernel stops the
// block-wide steps at 64 partial sums and lets warp 0 finish with
// __syncwarp() between steps.
extern "C" __global__ void __launch_bounds__(256)
block_reduce_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr) {
  __shared__ float sm[256];
  const int tx = threadIdx.x;
  sm[tx] = A_ptr[blockIdx.x * 256 + tx];
  __syncthreads();
#pragma unroll
  for (int stride = 128; stride > 0; stride >>= 1) {
    if (tx < stride) {
      sm[tx] += sm[tx + stride];
    }
    __syncthreads();
  }
  if (tx == 0) {
    B_ptr[blockIdx.x] = sm[0];
  }
}

extern "C" __global__ void __launch_bounds__(256)
block_reduce_warp_tail_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr) {
  __shared__ float sm[256];
  const int tx = threadIdx.x;
  const int warp = tx / 32;
  const int lane = tx % 32;
  sm[tx] = A_ptr[blockIdx.x * 256 + tx];
  __syncthreads();
#pragma unroll
  for (int stride = 128; stride > 32; stride >>= 1) {
    if (tx < stride) {
      sm[tx] += sm[tx + stride];
    }
    __syncthreads();
  }
  if (warp == 0) {
#pragma unroll
    for (int stride = 32; stride > 0; stride >>= 1) {
      if (lane < stride) {
        sm[lane] += sm[lane + stride];
      }
      __syncwarp();
    }
    if (lane == 0) {
      B_ptr[blockIdx.x] = sm[0];
    }
  }
}
