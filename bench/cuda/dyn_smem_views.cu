// Hand-written twin of samples/dyn_smem_views.tx: C = A + B for 64 floats,
// staged through two halves of one dynamic shared array (512 bytes).
extern "C" __global__ void __launch_bounds__(64)
dyn_kernel(const float* __restrict__ A_ptr, const float* __restrict__ B_ptr, float* __restrict__ C_ptr) {
  extern __shared__ float smem[];
  float* As = smem;
  float* Bs = smem + 64;
  const int tx = threadIdx.x;
  As[tx] = A_ptr[tx];
  Bs[tx] = B_ptr[tx];
  __syncthreads();
  C_ptr[tx] = As[tx] + Bs[tx];
}
