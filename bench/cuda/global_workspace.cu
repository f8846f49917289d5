// Hand-written twin of samples/global_workspace.tx: total[0] = sum(A[0:n]) in
// one launch of ceil(n / 256) blocks of 256, with the "last block" pattern of
// CUDA's threadFenceReduction sample. Each block tree-reduces its 256 values
// in shared memory and writes its partial sum; the block that draws the last
// ticket adds the partials up in a fixed order. partials (one float per block)
// and tickets (one int) are global workspaces the caller zero-fills before
// every launch, as tirxc's launcher does.
#define BLOCK 256

// sm[0] = sm[0] + ... + sm[BLOCK - 1]; every thread of the block calls it.
__device__ __forceinline__ void block_tree_sum(float* sm, int tx) {
#pragma unroll
  for (int stride = BLOCK / 2; stride >= 1; stride /= 2) {
    if (tx < stride) {
      sm[tx] += sm[tx + stride];
    }
    __syncthreads();
  }
}

extern "C" __global__ void __launch_bounds__(BLOCK)
global_sum_kernel(const float* __restrict__ A_ptr, float* __restrict__ total_ptr, int n,
                  float* __restrict__ partials_ptr, int* __restrict__ tickets_ptr) {
  __shared__ float sm[BLOCK];
  __shared__ bool is_last;
  const int tx = threadIdx.x;
  const int blocks = (n + BLOCK - 1) / BLOCK;
  const int i = blockIdx.x * BLOCK + tx;
  sm[tx] = i < n ? A_ptr[i] : 0.0f;
  __syncthreads();
  block_tree_sum(sm, tx);
  if (tx == 0) {
    partials_ptr[blockIdx.x] = sm[0];
    __threadfence();   // the partial is visible before the ticket is drawn
    is_last = atomicAdd(tickets_ptr, 1) == blocks - 1;
  }
  __syncthreads();
  if (is_last) {   // block-uniform: every thread reaches the barriers below
    float acc = 0.0f;
    for (int j = tx; j < blocks; j += BLOCK) {
      acc += partials_ptr[j];
    }
    sm[tx] = acc;
    __syncthreads();
    block_tree_sum(sm, tx);
    if (tx == 0) {
      total_ptr[0] = sm[0];
    }
  }
}
