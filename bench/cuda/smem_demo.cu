// Hand-written twin of samples/smem_demo.tx: B = 2 * A, 128 floats, one block.
extern "C" __global__ void __launch_bounds__(128)
smem_demo_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr) {
  __shared__ float sm[128];
  const int tx = threadIdx.x;
  sm[tx] = A_ptr[tx];
  __syncthreads();
  B_ptr[tx] = sm[tx] * 2.0f;
}
