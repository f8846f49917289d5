// Hand-written twin of samples/math_ops.tx (see the sample for what each
// column holds): integer operators with Python's floor division and modulo on
// possibly negative operands, float32 math, and float16 arithmetic.
#include <cuda_fp16.h>

__device__ __forceinline__ int floordiv(int a, int b) {
  const int q = a / b;
  return (q * b != a && ((a < 0) != (b < 0))) ? q - 1 : q;
}

__device__ __forceinline__ int floormod(int a, int b) {
  const int r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

extern "C" __global__ void __launch_bounds__(256)
int_ops_kernel(const int* __restrict__ A_ptr, const int* __restrict__ B_ptr, int* __restrict__ C_ptr) {
  const int tx = threadIdx.x;
  const int a = A_ptr[tx];
  const int b = B_ptr[tx];
  int* c = C_ptr + tx * 10;
  c[0] = floordiv(a, b);
  c[1] = floormod(a, b);
  c[2] = a >> 3;              // a // 8: an arithmetic shift is a floor division
  c[3] = a & 7;               // a % 8: floor modulo by a power of two
  c[4] = (a & 0xFF) | ((b & 7) << 8);
  c[5] = (a ^ b) + ~a;
  c[6] = a >> 2;
  c[7] = ((a < b && a != 0) || !(b > 3)) ? a : b;
  c[8] = a >= 0 ? min(a, 100) : max(a, -100);
  c[9] = (a > b ? 1 : 0) + (a == b ? 2 : 0) + (a <= -b ? 4 : 0);
}

extern "C" __global__ void __launch_bounds__(256)
float_ops_kernel(const float* __restrict__ X_ptr, const int* __restrict__ I_ptr, const __half* __restrict__ H_ptr,
                 float* __restrict__ Y_ptr, __half* __restrict__ HO_ptr) {
  const int tx = threadIdx.x;
  const float x = X_ptr[tx];
  const int k = I_ptr[tx];
  const __half h = H_ptr[tx];
  float* y = Y_ptr + tx * 9;
  y[0] = expf(x * 0.5f);
  y[1] = sqrtf(fabsf(x));
  y[2] = static_cast<float>(k * 3 - 7) / 4.0f;
  y[3] = static_cast<float>(k) * x;
  y[4] = fmaxf(x, 0.0f) + fminf(x, 0.0f) * 0.25f;
  y[5] = x > 0.0f ? x * 2.0f : tanhf(x);
  y[6] = static_cast<float>(static_cast<int>(x * 10.0f));
  y[7] = logf(x * x + 1.0f);
  HO_ptr[tx * 2] = __hadd(__hmul(h, __float2half(2.0f)), h);
  HO_ptr[tx * 2 + 1] = __hsub(__float2half(x), h);
  y[8] = __half2float(h) + x;
}
