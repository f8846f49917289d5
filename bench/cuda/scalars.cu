// Hand-written twin of samples/scalars.tx: B[t] = sum_k A[t, k] with a while
// loop over `phase`, C[t] = (3t + 1) + 4. Both kernels are the same algorithm
// (the sample spells the scalars two ways); here both are plain C locals.
extern "C" __global__ void __launch_bounds__(64)
scalars_explicit_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr, int* __restrict__ C_ptr) {
  const int tx = threadIdx.x;
  float acc = 0.0f;
  int phase = 0;
  while (phase < 4) {
    acc += A_ptr[tx * 4 + phase];
    ++phase;
  }
  const int s = tx * 3 + 1;
  B_ptr[tx] = acc;
  C_ptr[tx] = s + phase;
}

extern "C" __global__ void __launch_bounds__(64)
scalars_sugar_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr, int* __restrict__ C_ptr) {
  const int tx = threadIdx.x;
  float acc = 0.0f;
  int phase = 0;
  while (phase < 4) {
    acc += A_ptr[tx * 4 + phase];
    ++phase;
  }
  const int s = tx * 3 + 1;
  B_ptr[tx] = acc;
  C_ptr[tx] = s + phase;
}
