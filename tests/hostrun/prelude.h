// The host prelude of tests/hostrun/oracle.py: just enough of CUDA, with CUDA's
// semantics, to compile a tirxc kernel's .cu as host C++ (g++) and run its body for
// one thread at a time. Integer and float32 / float64 kernels only: no half, bfloat16,
// fp8, vector types, dynamic shared memory, PTX or warp-wide operations.
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <climits>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __shared__ static  // one block at a time: every thread of it sees the same array
#define __constant__ static

struct uint3 { unsigned int x, y, z; };
struct dim3 { unsigned int x, y, z; };
static uint3 threadIdx, blockIdx;
static dim3 blockDim, gridDim;
static const int warpSize = 32;

struct tirx_host_trap {};  // __trap(): the case stops, main records "trap"
static inline void __trap() { throw tirx_host_trap(); }
static inline void __syncthreads() {}
static inline void __syncwarp(unsigned int = 0xffffffffu) {}
static inline void __threadfence() {}
static inline void __threadfence_block() {}

// printf: counted (every evaluation of a printf is a side effect the tests count) and
// sent to standard error, out of the way of the results on standard output
static long tirx_host_printf_count = 0;
static inline int tirx_host_printf(const char* format, ...) {
  ++tirx_host_printf_count;
  va_list args;
  va_start(args, format);
  int n = vfprintf(stderr, format, args);
  va_end(args);
  return n;
}
#define printf(...) tirx_host_printf(__VA_ARGS__)

// CUDA's integer intrinsics (the CUDA Math API): counts over 32 or 64 bits
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }

// CUDA's min / max overloads (crt/math_functions.hpp): mixed signedness compares as
// unsigned, floats are fminf / fmaxf (a NaN operand gives the other one)
#define TIRX_MINMAX(A, B, R)                                                   \
  static inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }        \
  static inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
TIRX_MINMAX(int, int, int)
TIRX_MINMAX(unsigned int, unsigned int, unsigned int)
TIRX_MINMAX(int, unsigned int, unsigned int)
TIRX_MINMAX(unsigned int, int, unsigned int)
TIRX_MINMAX(long, long, long)
TIRX_MINMAX(unsigned long, unsigned long, unsigned long)
TIRX_MINMAX(long long, long long, long long)
TIRX_MINMAX(unsigned long long, unsigned long long, unsigned long long)
TIRX_MINMAX(long long, unsigned long long, unsigned long long)
TIRX_MINMAX(unsigned long long, long long, unsigned long long)
#undef TIRX_MINMAX
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }
static inline double min(double a, double b) { return fmin(a, b); }
static inline double max(double a, double b) { return fmax(a, b); }
static inline double min(float a, double b) { return fmin(a, b); }
static inline double max(float a, double b) { return fmax(a, b); }
static inline double min(double a, float b) { return fmin(a, b); }
static inline double max(double a, float b) { return fmax(a, b); }
static inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
static inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
static inline long long llmin(long long a, long long b) { return a < b ? a : b; }
static inline long long llmax(long long a, long long b) { return a > b ? a : b; }
static inline unsigned long long ullmin(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long ullmax(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
// abs: CUDA's overloads (int, long, long long, float, double), so that abs of an
// unsigned value is ambiguous here as it is for nvcc
static inline long abs(long x) { return x < 0 ? -x : x; }
static inline long long abs(long long x) { return x < 0 ? -x : x; }
static inline float abs(float x) { return fabsf(x); }
static inline double abs(double x) { return fabs(x); }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }

// bit casts
static inline int __float_as_int(float x) { int r; memcpy(&r, &x, 4); return r; }
static inline unsigned int __float_as_uint(float x) { unsigned int r; memcpy(&r, &x, 4); return r; }
static inline float __int_as_float(int x) { float r; memcpy(&r, &x, 4); return r; }
static inline float __uint_as_float(unsigned int x) { float r; memcpy(&r, &x, 4); return r; }
static inline long long __double_as_longlong(double x) { long long r; memcpy(&r, &x, 8); return r; }
static inline double __longlong_as_double(long long x) { double r; memcpy(&r, &x, 8); return r; }

// math_constants.h
#define CUDART_INF_F __builtin_inff()
#define CUDART_NAN_F __builtin_nanf("")
#define CUDART_INF __builtin_inf()
#define CUDART_NAN __builtin_nan("")
#define CUDART_PI_F 3.141592654f
#define CUDART_PI 3.1415926535897931e+0

// atomics: one thread at a time, so a plain read-modify-write; the old value back
template <typename T, typename U> static inline T atomicAdd(T* p, U v) { T old = *p; *p = (T)(old + v); return old; }
template <typename T, typename U> static inline T atomicSub(T* p, U v) { T old = *p; *p = (T)(old - v); return old; }
template <typename T, typename U> static inline T atomicMax(T* p, U v) { T old = *p; *p = old < (T)v ? (T)v : old; return old; }
template <typename T, typename U> static inline T atomicMin(T* p, U v) { T old = *p; *p = (T)v < old ? (T)v : old; return old; }
template <typename T, typename U> static inline T atomicExch(T* p, U v) { T old = *p; *p = (T)v; return old; }
template <typename T, typename U> static inline T atomicAnd(T* p, U v) { T old = *p; *p = old & (T)v; return old; }
template <typename T, typename U> static inline T atomicOr(T* p, U v) { T old = *p; *p = old | (T)v; return old; }
template <typename T, typename U> static inline T atomicXor(T* p, U v) { T old = *p; *p = old ^ (T)v; return old; }
template <typename T, typename U, typename V>
static inline T atomicCAS(T* p, U compare, V v) { T old = *p; if (old == (T)compare) *p = (T)v; return old; }
template <typename T> static inline T __ldg(const T* p) { return *p; }

// warp-wide operations, for one lane: its own value
template <typename T> static inline T __shfl_sync(unsigned, T v, int, int = 32) { return v; }
template <typename T> static inline T __shfl_xor_sync(unsigned, T v, int, int = 32) { return v; }
template <typename T> static inline T __shfl_up_sync(unsigned, T v, unsigned, int = 32) { return v; }
template <typename T> static inline T __shfl_down_sync(unsigned, T v, unsigned, int = 32) { return v; }
static inline unsigned __ballot_sync(unsigned, int p) { return p ? 1u : 0u; }
static inline int __any_sync(unsigned, int p) { return p != 0; }
static inline int __all_sync(unsigned, int p) { return p != 0; }

// the results, one line each: "@@ case slot index value" (floats as hexadecimal)
static inline void tirx_emit(int c, int s, long i, long long v) { fprintf(stdout, "@@ %d %d %ld %lld\n", c, s, i, v); }
static inline void tirx_emit(int c, int s, long i, unsigned long long v) {
  fprintf(stdout, "@@ %d %d %ld %llu\n", c, s, i, v);
}
static inline void tirx_emit(int c, int s, long i, double v) {
  if (std::isnan(v)) fprintf(stdout, "@@ %d %d %ld nan\n", c, s, i);
  else fprintf(stdout, "@@ %d %d %ld %a\n", c, s, i, v);
}
static inline void tirx_emit(int c, int s, long i, signed char v) { tirx_emit(c, s, i, (long long)v); }
static inline void tirx_emit(int c, int s, long i, short v) { tirx_emit(c, s, i, (long long)v); }
static inline void tirx_emit(int c, int s, long i, int v) { tirx_emit(c, s, i, (long long)v); }
static inline void tirx_emit(int c, int s, long i, long v) { tirx_emit(c, s, i, (long long)v); }
static inline void tirx_emit(int c, int s, long i, bool v) { tirx_emit(c, s, i, (long long)v); }
static inline void tirx_emit(int c, int s, long i, char v) { tirx_emit(c, s, i, (long long)v); }
static inline void tirx_emit(int c, int s, long i, unsigned char v) { tirx_emit(c, s, i, (unsigned long long)v); }
static inline void tirx_emit(int c, int s, long i, unsigned short v) { tirx_emit(c, s, i, (unsigned long long)v); }
static inline void tirx_emit(int c, int s, long i, unsigned int v) { tirx_emit(c, s, i, (unsigned long long)v); }
static inline void tirx_emit(int c, int s, long i, unsigned long v) { tirx_emit(c, s, i, (unsigned long long)v); }
static inline void tirx_emit(int c, int s, long i, float v) { tirx_emit(c, s, i, (double)v); }
