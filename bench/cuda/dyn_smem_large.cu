// Hand-written twin of samples/dyn_smem_large.tx: each of 8 blocks of 256
// threads stages its 16384-float row of A in 64 KiB of dynamic shared memory
// (the launch raises the kernel's dynamic shared limit), then writes it out
// reversed: B[b, j] = A[b, 16383 - j].
#define L 16384
#define HALF 8192

extern "C" __global__ void __launch_bounds__(256)
dyn_smem_large_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr) {
  extern __shared__ float smem[];
  const int tx = threadIdx.x;
  const float* a = A_ptr + blockIdx.x * L;
  float* b = B_ptr + blockIdx.x * L;
  for (int k = 0; k < 64; ++k) {
    smem[k * 256 + tx] = a[k * 256 + tx];
  }
  __syncthreads();
  for (int k = 0; k < 32; ++k) {
    const int j = k * 256 + tx;
    b[j] = smem[L - 1 - j];
    b[HALF + j] = smem[HALF - 1 - j];
  }
}
