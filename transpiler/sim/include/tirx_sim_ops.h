// tirxc sim: CUDA's device functions on the CPU -- barriers and warp collectives (as
// scheduling points, tirx_sim_sched.h), atomics (real atomics: blocks run on several OS
// threads), integer intrinsics, math, min / max with CUDA's overloads, printf and __trap.
// The collectives' machinery is in tirx_sim_sched.cpp; the one-line wrappers stay here, inline.
#pragma once

namespace tirx_sim {

enum Collective { SHFL_IDX, SHFL_UP, SHFL_DOWN, SHFL_XOR, BALLOT, ANY, ALL, SYNCWARP, REDUCE_ADD, REDUCE_MIN,
                  REDUCE_MAX, REDUCE_UMIN, REDUCE_UMAX, REDUCE_AND, REDUCE_OR, REDUCE_XOR, MATCH_ANY, MATCH_ALL,
                  WARP_OP };

static const char* const COLLECTIVE_NAMES[] = {
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync", "__any_sync",
    "__all_sync", "__syncwarp", "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_min_sync",
    "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync", "__match_any_sync",
    "__match_all_sync", "a warp-wide PTX instruction"};

// A warp-wide instruction (ldmatrix, mma.sync ...): fn(lanes, mask) runs once, in the last lane
// to arrive, with every lane's argument (lanes[l]; null for a lane outside the mask) while the
// others wait, so it can read every lane's operands and write every lane's results.
typedef void (*WarpFn)(void** lanes, unsigned int mask);

unsigned long long collective(int kind, unsigned int mask, unsigned long long v, int b = 0, int width = 32, void* fn = nullptr);

static inline void warp_op(WarpFn fn, void* args, unsigned int mask = 0xffffffffu) {
  collective(WARP_OP, mask, (unsigned long long)(uintptr_t)args, 0, 32, (void*)fn);
}

template <typename T> static inline unsigned long long bits_of(T v) {
  static_assert(sizeof(T) <= 8, "a warp shuffle moves at most 8 bytes");
  unsigned long long u = 0;
  memcpy(&u, &v, sizeof(T));
  return u;
}
template <typename T> static inline T from_bits(unsigned long long u) {
  T v;
  memcpy(&v, &u, sizeof(T));
  return v;
}

[[noreturn]] void trap();
[[noreturn]] void trap_at(const char* what);

}  // namespace tirx_sim

// -- barriers and warp collectives ---------------------------------------------------------------
static inline void __syncthreads() { tirx_sim::sync_block(0, 1); }
static inline int __syncthreads_count(int p) { return (int)tirx_sim::sync_block(0, p); }
static inline int __syncthreads_and(int p) { return (int)tirx_sim::sync_block(1, p); }
static inline int __syncthreads_or(int p) { return (int)tirx_sim::sync_block(2, p); }
static inline void __syncwarp(unsigned int mask = 0xffffffffu) { tirx_sim::collective(tirx_sim::SYNCWARP, mask, 0); }
#define __activemask() tirx_sim::activemask(__COUNTER__)
template <typename T> static inline T __shfl_sync(unsigned m, T v, int src, int w = 32) {
  return tirx_sim::from_bits<T>(tirx_sim::collective(tirx_sim::SHFL_IDX, m, tirx_sim::bits_of(v), src, w));
}
template <typename T> static inline T __shfl_up_sync(unsigned m, T v, unsigned d, int w = 32) {
  return tirx_sim::from_bits<T>(tirx_sim::collective(tirx_sim::SHFL_UP, m, tirx_sim::bits_of(v), (int)d, w));
}
template <typename T> static inline T __shfl_down_sync(unsigned m, T v, unsigned d, int w = 32) {
  return tirx_sim::from_bits<T>(tirx_sim::collective(tirx_sim::SHFL_DOWN, m, tirx_sim::bits_of(v), (int)d, w));
}
template <typename T> static inline T __shfl_xor_sync(unsigned m, T v, int x, int w = 32) {
  return tirx_sim::from_bits<T>(tirx_sim::collective(tirx_sim::SHFL_XOR, m, tirx_sim::bits_of(v), x, w));
}
static inline unsigned __ballot_sync(unsigned m, int p) { return (unsigned)tirx_sim::collective(tirx_sim::BALLOT, m, p != 0); }
static inline int __any_sync(unsigned m, int p) { return (int)tirx_sim::collective(tirx_sim::ANY, m, p != 0); }
static inline int __all_sync(unsigned m, int p) { return (int)tirx_sim::collective(tirx_sim::ALL, m, p != 0); }
static inline unsigned __reduce_add_sync(unsigned m, unsigned v) { return (unsigned)tirx_sim::collective(tirx_sim::REDUCE_ADD, m, v); }
static inline int __reduce_add_sync(unsigned m, int v) { return (int)tirx_sim::collective(tirx_sim::REDUCE_ADD, m, (unsigned)v); }
static inline unsigned __reduce_min_sync(unsigned m, unsigned v) { return (unsigned)tirx_sim::collective(tirx_sim::REDUCE_UMIN, m, v); }
static inline int __reduce_min_sync(unsigned m, int v) { return (int)tirx_sim::collective(tirx_sim::REDUCE_MIN, m, (unsigned)v); }
static inline unsigned __reduce_max_sync(unsigned m, unsigned v) { return (unsigned)tirx_sim::collective(tirx_sim::REDUCE_UMAX, m, v); }
static inline int __reduce_max_sync(unsigned m, int v) { return (int)tirx_sim::collective(tirx_sim::REDUCE_MAX, m, (unsigned)v); }
static inline unsigned __reduce_and_sync(unsigned m, unsigned v) { return (unsigned)tirx_sim::collective(tirx_sim::REDUCE_AND, m, v); }
static inline unsigned __reduce_or_sync(unsigned m, unsigned v) { return (unsigned)tirx_sim::collective(tirx_sim::REDUCE_OR, m, v); }
static inline unsigned __reduce_xor_sync(unsigned m, unsigned v) { return (unsigned)tirx_sim::collective(tirx_sim::REDUCE_XOR, m, v); }
template <typename T> static inline unsigned __match_any_sync(unsigned m, T v) {
  return (unsigned)tirx_sim::collective(tirx_sim::MATCH_ANY, m, tirx_sim::bits_of(v));
}
template <typename T> static inline unsigned __match_all_sync(unsigned m, T v, int* pred) {
  unsigned r = (unsigned)tirx_sim::collective(tirx_sim::MATCH_ALL, m, tirx_sim::bits_of(v));
  *pred = r != 0;
  return r;
}
static inline void __trap() { tirx_sim::trap(); }
static inline void __threadfence() {  // (the race checker: what the block's next atomics release)
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  tirx_sim::check_thread_fence();
}
static inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_system() {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  tirx_sim::check_thread_fence();
}
static inline long long clock64() { return tirx_sim::current_block->steps; }

// -- atomics: the old value back ---------------------------------------------------------------
template <typename T, typename F> static inline T tirx_sim_rmw(T* p, F op) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "atomics on 2, 4 or 8 bytes");
  typedef typename std::conditional<sizeof(T) == 2, unsigned short,
          typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type>::type U;
  U* w = (U*)p;
  if (tirx_sim::checker != nullptr) tirx_sim::atomic_sync(p, sizeof(T));
  U old = __atomic_load_n(w, __ATOMIC_RELAXED);
  for (;;) {
    T value = tirx_sim::from_bits<T>(old);
    U desired = (U)tirx_sim::bits_of((T)op(value));
    if (__atomic_compare_exchange_n(w, &old, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) return value;
  }
}
template <typename T, typename U> static inline T atomicAdd(T* p, U v) { return tirx_sim_rmw(p, [&](T o) { return (T)(o + (T)v); }); }
template <typename T, typename U> static inline T atomicSub(T* p, U v) { return tirx_sim_rmw(p, [&](T o) { return (T)(o - (T)v); }); }
template <typename T, typename U> static inline T atomicMax(T* p, U v) { return tirx_sim_rmw(p, [&](T o) { return o < (T)v ? (T)v : o; }); }
template <typename T, typename U> static inline T atomicMin(T* p, U v) { return tirx_sim_rmw(p, [&](T o) { return (T)v < o ? (T)v : o; }); }
template <typename T, typename U> static inline T atomicExch(T* p, U v) { return tirx_sim_rmw(p, [&](T) { return (T)v; }); }
template <typename T, typename U> static inline T atomicAnd(T* p, U v) { return tirx_sim_rmw(p, [&](T o) { return (T)(o & (T)v); }); }
template <typename T, typename U> static inline T atomicOr(T* p, U v) { return tirx_sim_rmw(p, [&](T o) { return (T)(o | (T)v); }); }
template <typename T, typename U> static inline T atomicXor(T* p, U v) { return tirx_sim_rmw(p, [&](T o) { return (T)(o ^ (T)v); }); }
template <typename T, typename U, typename V> static inline T atomicCAS(T* p, U compare, V v) {
  return tirx_sim_rmw(p, [&](T o) { return o == (T)compare ? (T)v : o; });
}
static inline unsigned atomicInc(unsigned* p, unsigned v) { return tirx_sim_rmw(p, [&](unsigned o) { return o >= v ? 0u : o + 1; }); }
static inline unsigned atomicDec(unsigned* p, unsigned v) { return tirx_sim_rmw(p, [&](unsigned o) { return o == 0 || o > v ? v : o - 1; }); }
#define TIRX_SCOPED(name) \
  template <typename... A> static inline auto name##_block(A... a) { return name(a...); } \
  template <typename... A> static inline auto name##_system(A... a) { return name(a...); }
TIRX_SCOPED(atomicAdd) TIRX_SCOPED(atomicSub) TIRX_SCOPED(atomicMax) TIRX_SCOPED(atomicMin) TIRX_SCOPED(atomicExch)
TIRX_SCOPED(atomicAnd) TIRX_SCOPED(atomicOr) TIRX_SCOPED(atomicXor) TIRX_SCOPED(atomicCAS)
#undef TIRX_SCOPED
template <typename T> static inline T __ldg(const T* p) { return *p; }

// -- integer intrinsics ------------------------------------------------------------------------
static inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned int)x); }
static inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
static inline int __popc(unsigned int x) { return __builtin_popcount(x); }
static inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int __ffsll(long long x) { return __builtin_ffsll(x); }
static inline unsigned int __brev(unsigned int x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(x);
}
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned int __umulhi(unsigned int a, unsigned int b) { return (unsigned int)(((unsigned long long)a * b) >> 32); }
static inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}

// -- CUDA's min / max / abs overloads (crt/math_functions.hpp): mixed signedness compares as
// unsigned, floats as fminf / fmaxf (a NaN operand gives the other one)
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
static inline long abs(long x) { return x < 0 ? -x : x; }
static inline long long abs(long long x) { return x < 0 ? -x : x; }
static inline float abs(float x) { return fabsf(x); }
static inline double abs(double x) { return fabs(x); }

// -- math: the host's libm (docs/sim.md, "Numerics": within CUDA's ulp bounds, not equal to them)
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
#define __expf tirx_sim_expf
static inline float tirx_sim_expf(float x) { return expf(x); }
#define __exp10f tirx_sim_exp10f
static inline float tirx_sim_exp10f(float x) { return exp10f(x); }
#define __logf tirx_sim_logf
static inline float tirx_sim_logf(float x) { return logf(x); }
#define __log2f tirx_sim_log2f
static inline float tirx_sim_log2f(float x) { return log2f(x); }
#define __log10f tirx_sim_log10f
static inline float tirx_sim_log10f(float x) { return log10f(x); }
#define __sinf tirx_sim_sinf
static inline float tirx_sim_sinf(float x) { return sinf(x); }
#define __cosf tirx_sim_cosf
static inline float tirx_sim_cosf(float x) { return cosf(x); }
#define __tanf tirx_sim_tanf
static inline float tirx_sim_tanf(float x) { return tanf(x); }
#define __powf tirx_sim_powf
static inline float tirx_sim_powf(float x, float y) { return powf(x, y); }
static inline float __fdividef(float x, float y) { return x / y; }
static inline float __frcp_rn(float x) { return 1.0f / x; }
static inline float __fsqrt_rn(float x) { return sqrtf(x); }
static inline float __saturatef(float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float rcbrtf(float x) { return 1.0f / cbrtf(x); }
static inline float sinpif(float x) { return sinf((float)M_PI * x); }
static inline float cospif(float x) { return cosf((float)M_PI * x); }
static inline float normcdff(float x) { return 0.5f * erfcf(-x * (float)M_SQRT1_2); }

// bit casts
static inline int __float_as_int(float x) { int r; memcpy(&r, &x, 4); return r; }
static inline unsigned int __float_as_uint(float x) { unsigned int r; memcpy(&r, &x, 4); return r; }
static inline float __int_as_float(int x) { float r; memcpy(&r, &x, 4); return r; }
static inline float __uint_as_float(unsigned int x) { float r; memcpy(&r, &x, 4); return r; }
static inline long long __double_as_longlong(double x) { long long r; memcpy(&r, &x, 8); return r; }
static inline double __longlong_as_double(long long x) { double r; memcpy(&r, &x, 8); return r; }
static inline float __int2float_rn(int x) { return (float)x; }
static inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
static inline int __float2int_rz(float x) { return (int)x; }

// math on 16-bit floats, through float
static inline __half hexp(__half x) { return __half(expf((float)x)); }
static inline __half hlog(__half x) { return __half(logf((float)x)); }
static inline __half hsqrt(__half x) { return __half(sqrtf((float)x)); }
static inline __half hrsqrt(__half x) { return __half(1.0f / sqrtf((float)x)); }
static inline __nv_bfloat16 hexp(__nv_bfloat16 x) { return __nv_bfloat16(expf((float)x)); }
static inline __nv_bfloat16 hlog(__nv_bfloat16 x) { return __nv_bfloat16(logf((float)x)); }
static inline __nv_bfloat16 hsqrt(__nv_bfloat16 x) { return __nv_bfloat16(sqrtf((float)x)); }
static inline __nv_bfloat16 hrsqrt(__nv_bfloat16 x) { return __nv_bfloat16(1.0f / sqrtf((float)x)); }
