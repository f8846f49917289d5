// Hand-written twin of samples/buffer_api.tx.
// pointers:     B[t] = A[t], C[t] = A[63 - t], D[t] = 2 * A[t] through small
//               __device__ helpers taking pointers (t < 64)
// vector_copy:  B = A, 256 floats, one float4 per thread
// view_permute: B[t] = A[4t] + A[4t + 3]; C = A.reshape(64, 4).T
__device__ __forceinline__ float ld(const float* p) { return *p; }
__device__ __forceinline__ float ld_at(const float* base, int i) { return base[i]; }
__device__ __forceinline__ void st(float* p, float v) { *p = v; }

extern "C" __global__ void __launch_bounds__(64)
pointers_kernel(float* __restrict__ A_ptr, float* __restrict__ B_ptr, float* __restrict__ C_ptr, float* __restrict__ D_ptr) {
  const int tx = threadIdx.x;
  B_ptr[tx] = ld(&A_ptr[tx]);
  C_ptr[tx] = ld_at(A_ptr, 63 - tx);
  st(&D_ptr[tx], A_ptr[tx] * 2.0f);
}

extern "C" __global__ void __launch_bounds__(64)
vector_copy_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr) {
  const int tx = threadIdx.x;
  reinterpret_cast<float4*>(B_ptr)[tx] = reinterpret_cast<const float4*>(A_ptr)[tx];
}

extern "C" __global__ void __launch_bounds__(64)
view_permute_kernel(const float* __restrict__ A_ptr, float* __restrict__ B_ptr, float* __restrict__ C_ptr) {
  const int tx = threadIdx.x;
  B_ptr[tx] = A_ptr[tx * 4] + A_ptr[tx * 4 + 3];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    C_ptr[i * 64 + tx] = A_ptr[tx * 4 + i];
  }
}
