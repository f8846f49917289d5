// tirxc sim: CUDA's vector types, and half / bfloat16 with the GPU's rounding (docs/sim.md,
// "Numerics"): conversions from float round to nearest even, arithmetic is done wider and
// rounded once.
#pragma once

// -- vector types (CUDA's alignments) ---------------------------------------------------------
#define TIRX_VEC2(T, N, A)                                                                       \
  struct __attribute__((aligned(A))) N##2 { T x, y; };                                           \
  static inline N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define TIRX_VEC4(T, N, A)                                                                       \
  struct __attribute__((aligned(A))) N##4 { T x, y, z, w; };                                     \
  static inline N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
TIRX_VEC2(float, float, 8)
TIRX_VEC4(float, float, 16)
TIRX_VEC2(double, double, 16)
TIRX_VEC2(int, int, 8)
TIRX_VEC4(int, int, 16)
TIRX_VEC2(unsigned int, uint, 8)
TIRX_VEC4(unsigned int, uint, 16)
TIRX_VEC4(signed char, char, 4)
TIRX_VEC4(unsigned char, uchar, 4)
TIRX_VEC2(short, short, 4)
TIRX_VEC4(short, short, 8)
TIRX_VEC2(long long, longlong, 16)
TIRX_VEC2(unsigned long long, ulonglong, 16)
#undef TIRX_VEC2
#undef TIRX_VEC4
struct float3 { float x, y, z; };
static inline float3 make_float3(float x, float y, float z) { return float3{x, y, z}; }

// -- math_constants.h --------------------------------------------------------------------------
#define CUDART_INF_F __builtin_inff()
#define CUDART_NAN_F __builtin_nanf("")
#define CUDART_INF __builtin_inf()
#define CUDART_NAN __builtin_nan("")
#define CUDART_PI_F 3.141592654f
#define CUDART_PI 3.1415926535897931e+0

// -- 16-bit floats ------------------------------------------------------------------------------
namespace tirx_sim {
static inline unsigned int f32_bits(float f) { unsigned int u; memcpy(&u, &f, 4); return u; }
static inline float f32_from(unsigned int u) { float f; memcpy(&f, &u, 4); return f; }

// float -> IEEE binary16, round to nearest even (cvt.rn.f16.f32)
static inline unsigned short f32_to_f16(float f) {
  unsigned int x = f32_bits(f);
  unsigned int sign = (x >> 16) & 0x8000u;
  unsigned int abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) return (unsigned short)(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  if (abs >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);  // rounds past 65504
  if (abs < 0x38800000u) {  // subnormal or zero in binary16: a multiple of 2^-24
    float scaled = f32_from(abs) * 16777216.0f;  // exact: a power of two
    float r = nearbyintf(scaled);  // nearest even under the default rounding mode
    return (unsigned short)(sign | (unsigned int)r);
  }
  unsigned int mant = abs + 0xfffu + ((abs >> 13) & 1u);  // round the 13 dropped bits to even
  return (unsigned short)(sign | ((mant - 0x38000000u) >> 13));
}

static inline float f16_to_f32(unsigned short h) {
  unsigned int sign = (unsigned int)(h & 0x8000u) << 16;
  unsigned int exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
  if (exp == 0) return f32_from(sign) + (sign ? -1.0f : 1.0f) * (float)mant * 5.9604644775390625e-08f;
  if (exp == 31) return f32_from(sign | 0x7f800000u | (mant << 13));
  return f32_from(sign | ((exp + 112) << 23) | (mant << 13));
}

// float -> bfloat16, round to nearest even (cvt.rn.bf16.f32); NaN stays NaN
static inline unsigned short f32_to_bf16(float f) {
  unsigned int x = f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((x >> 16) | 0x40u);
  return (unsigned short)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}
static inline float bf16_to_f32(unsigned short b) { return f32_from((unsigned int)b << 16); }
// double -> float rounded to odd: a float with 13 more bits than binary16 (16 more than
// bfloat16) rounded to odd rounds again to the 16-bit format as the exact value would
static inline float f64_to_f32_odd(double d) {
  float f = (float)d;
  if ((double)f == d || d != d || std::isinf(f)) return f;
  unsigned int u = f32_bits(f);
  if (fabs((double)f) > fabs(d)) u -= 1;  // toward zero
  return f32_from(u | 1u);
}
}  // namespace tirx_sim

struct __half {
  unsigned short x;
  __half() = default;
  __half(float f) : x(tirx_sim::f32_to_f16(f)) {}
  __half(double d) : x(tirx_sim::f32_to_f16(tirx_sim::f64_to_f32_odd(d))) {}
  __half(int i) : x(tirx_sim::f32_to_f16((float)i)) {}
  __half(unsigned int i) : x(tirx_sim::f32_to_f16((float)i)) {}
  __half(long long i) : x(tirx_sim::f32_to_f16((float)i)) {}
  __half(unsigned long long i) : x(tirx_sim::f32_to_f16((float)i)) {}
  __half(short i) : x(tirx_sim::f32_to_f16((float)i)) {}
  __half(unsigned short i) : x(tirx_sim::f32_to_f16((float)i)) {}
  operator float() const { return tirx_sim::f16_to_f32(x); }
};
typedef __half half;
struct __nv_bfloat16 {
  unsigned short x;
  __nv_bfloat16() = default;
  __nv_bfloat16(float f) : x(tirx_sim::f32_to_bf16(f)) {}
  __nv_bfloat16(double d) : x(tirx_sim::f32_to_bf16(tirx_sim::f64_to_f32_odd(d))) {}
  __nv_bfloat16(int i) : x(tirx_sim::f32_to_bf16((float)i)) {}
  __nv_bfloat16(unsigned int i) : x(tirx_sim::f32_to_bf16((float)i)) {}
  __nv_bfloat16(long long i) : x(tirx_sim::f32_to_bf16((float)i)) {}
  __nv_bfloat16(short i) : x(tirx_sim::f32_to_bf16((float)i)) {}
  operator float() const { return tirx_sim::bf16_to_f32(x); }
};
typedef __nv_bfloat16 nv_bfloat16;

// one rounding per operation: the result in double (exact for + - *), rounded to odd in float,
// then to the format
#define TIRX_HALF_OPS(H, FROM)                                                                   \
  static inline H operator+(H a, H b) { return H(FROM((double)(float)a + (double)(float)b)); }   \
  static inline H operator-(H a, H b) { return H(FROM((double)(float)a - (double)(float)b)); }   \
  static inline H operator*(H a, H b) { return H(FROM((double)(float)a * (double)(float)b)); }   \
  static inline H operator/(H a, H b) { return H(FROM((double)(float)a / (double)(float)b)); }                         \
  static inline H operator-(H a) { H r = a; r.x ^= 0x8000u; return r; }                         \
  static inline H& operator+=(H& a, H b) { return a = a + b; }                                   \
  static inline H& operator-=(H& a, H b) { return a = a - b; }                                   \
  static inline H& operator*=(H& a, H b) { return a = a * b; }                                   \
  static inline H& operator/=(H& a, H b) { return a = a / b; }                                   \
  static inline bool operator<(H a, H b) { return (float)a < (float)b; }                         \
  static inline bool operator<=(H a, H b) { return (float)a <= (float)b; }                       \
  static inline bool operator>(H a, H b) { return (float)a > (float)b; }                         \
  static inline bool operator>=(H a, H b) { return (float)a >= (float)b; }                       \
  static inline bool operator==(H a, H b) { return (float)a == (float)b; }                       \
  static inline bool operator!=(H a, H b) { return (float)a != (float)b; }
TIRX_HALF_OPS(__half, tirx_sim::f64_to_f32_odd)
TIRX_HALF_OPS(__nv_bfloat16, tirx_sim::f64_to_f32_odd)
#undef TIRX_HALF_OPS

struct __attribute__((aligned(4))) __half2 { __half x, y; };
typedef __half2 half2;
struct __attribute__((aligned(4))) __nv_bfloat162 { __nv_bfloat16 x, y; };
typedef __nv_bfloat162 nv_bfloat162;

static inline __half __float2half(float f) { return __half(f); }
static inline __half __float2half_rn(float f) { return __half(f); }
static inline float __half2float(__half h) { return (float)h; }
static inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
static inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
static inline float __bfloat162float(__nv_bfloat16 b) { return (float)b; }
static inline __half2 __floats2half2_rn(float a, float b) { return __half2{__half(a), __half(b)}; }
static inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162{a, b}; }
static inline __half2 __halves2half2(__half a, __half b) { return __half2{a, b}; }
static inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162{a, b}; }
static inline float2 __half22float2(__half2 h) { return float2{(float)h.x, (float)h.y}; }
static inline float2 __bfloat1622float2(__nv_bfloat162 h) { return float2{(float)h.x, (float)h.y}; }
static inline short __half_as_short(__half h) { return (short)h.x; }
static inline unsigned short __half_as_ushort(__half h) { return h.x; }
static inline __half __short_as_half(short s) { __half h; h.x = (unsigned short)s; return h; }
static inline __half __ushort_as_half(unsigned short s) { __half h; h.x = s; return h; }
static inline short __bfloat16_as_short(__nv_bfloat16 h) { return (short)h.x; }
static inline unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return h.x; }
static inline __nv_bfloat16 __short_as_bfloat16(short s) { __nv_bfloat16 h; h.x = (unsigned short)s; return h; }
static inline __nv_bfloat16 __ushort_as_bfloat16(unsigned short s) { __nv_bfloat16 h; h.x = s; return h; }
static inline __half __hmax(__half a, __half b) { return (float)a >= (float)b || b.x != b.x ? a : b; }
static inline __half __hmin(__half a, __half b) { return (float)a <= (float)b ? a : b; }
static inline __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a >= (float)b ? a : b; }
static inline __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a <= (float)b ? a : b; }
