// Hand-written twin of samples/float4_copy.tx: B = A for an (n, 4) float32
// array, one 16-byte float4 per thread, ceil(n / 256) blocks of 256.
extern "C" __global__ void __launch_bounds__(256)
float4_copy_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr, int n) {
  const int i = blockIdx.x * 256 + threadIdx.x;
  if (i < n) {
    reinterpret_cast<float4*>(B_ptr)[i] = reinterpret_cast<const float4*>(A_ptr)[i];
  }
}
