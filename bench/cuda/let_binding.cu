// Hand-written twin of samples/let_binding.tx.
// let_const:   B[t] = A[(t + 32) % 64] * 32
// let_runtime: B[t] = A[(t + 2m) mod 64] + 2m   (floor modulo; 64 is a power
//              of two, so `& 63` is exact on two's complement)
extern "C" __global__ void __launch_bounds__(64)
let_const_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr) {
  const int tx = threadIdx.x;
  B_ptr[tx] = A_ptr[(tx + 32) & 63] * 32.0f;
}

extern "C" __global__ void __launch_bounds__(64)
let_runtime_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr, int m) {
  const int tx = threadIdx.x;
  const int half = m * 2;
  B_ptr[tx] = A_ptr[(tx + half) & 63] + static_cast<float>(half);
}
