// Hand-written twin of samples/registers_unroll.tx: each of 128 threads loads
// its row of 4 floats into registers and writes (r0 + r1) + (r2 + r3).
extern "C" __global__ void __launch_bounds__(128)
registers_unroll_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr) {
  const int tx = threadIdx.x;
  float r[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    r[k] = A_ptr[tx * 4 + k];
  }
  B_ptr[tx] = (r[0] + r[1]) + (r[2] + r[3]);
}
