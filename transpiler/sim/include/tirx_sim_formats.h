// tirxc sim: the narrow floating-point formats of the PTX ISA (f16, bf16, e4m3, e5m2) as bit
// patterns, decoded exactly and encoded with the rounding and saturation a `cvt` names
// (docs/sim.md, "Numerics"). The scalar __half / __nv_bfloat16 types (tirx_sim_types.h) keep their
// own conversions; this is what the packed and fp8 instructions use.
#pragma once

namespace tirx_sim {

struct Format {
  int exp_bits, mant_bits;
  bool has_inf;        // e4m3 has no infinity: its all-ones exponent is finite but for one NaN
  unsigned int nan;    // the canonical NaN a cvt writes
};
static const Format FORMAT_F16{5, 10, true, 0x7fffu};
static const Format FORMAT_BF16{8, 7, true, 0x7fffu};
static const Format FORMAT_E4M3{4, 3, false, 0x7fu};
static const Format FORMAT_E5M2{5, 2, true, 0x7fu};

static inline int format_bias(const Format& f) { return (1 << (f.exp_bits - 1)) - 1; }
static inline unsigned int format_exp_ones(const Format& f) { return (1u << f.exp_bits) - 1; }

static inline double format_max(const Format& f) {  // the largest finite value
  int top = (int)format_exp_ones(f) - (f.has_inf ? 1 : 0);
  int mant = f.has_inf ? (2 << f.mant_bits) - 1 : (2 << f.mant_bits) - 2;
  return ldexp((double)mant, top - format_bias(f) - f.mant_bits);
}

// the exact value of a bit pattern
static inline double format_decode(unsigned int bits, const Format& f) {
  unsigned int mant_mask = (1u << f.mant_bits) - 1;
  bool negative = bits >> (f.exp_bits + f.mant_bits) & 1;
  unsigned int e = bits >> f.mant_bits & format_exp_ones(f), m = bits & mant_mask;
  double value;
  if (f.has_inf && e == format_exp_ones(f))
    value = m ? NAN : INFINITY;
  else if (!f.has_inf && e == format_exp_ones(f) && m == mant_mask)
    value = NAN;
  else if (e == 0)
    value = ldexp((double)m, 1 - format_bias(f) - f.mant_bits);
  else
    value = ldexp((double)(m + (1u << f.mant_bits)), (int)e - format_bias(f) - f.mant_bits);
  return negative ? -value : value;
}

// x rounded to the format: to nearest even (rn) or toward zero (rz); `satfinite` clamps what is
// past the largest finite value (an infinity included) to it, `relu` makes a negative result 0;
// a NaN gives the canonical NaN. A format without infinity always saturates.
static inline unsigned int format_encode(double x, const Format& f, bool rz, bool satfinite, bool relu) {
  if (x != x) return f.nan;
  unsigned int sign = std::signbit(x) ? 1u << (f.exp_bits + f.mant_bits) : 0u;
  if (relu && sign) return 0;
  double a = fabs(x), top = format_max(f);
  unsigned int max_bits = (unsigned int)(f.has_inf ? (format_exp_ones(f) - 1) << f.mant_bits | ((1u << f.mant_bits) - 1)
                                                   : format_exp_ones(f) << f.mant_bits | ((1u << f.mant_bits) - 2));
  unsigned int inf_bits = format_exp_ones(f) << f.mant_bits;
  if (std::isinf(a)) return sign | (satfinite || !f.has_inf ? max_bits : inf_bits);
  if (a == 0) return sign;
  int emin = 1 - format_bias(f), exp;
  frexp(a, &exp);  // a = m * 2^exp, m in [0.5, 1)
  int quantum = (exp - 1 > emin ? exp - 1 : emin) - f.mant_bits;
  double scaled = ldexp(a, -quantum);
  double r = ldexp(rz ? trunc(scaled) : nearbyint(scaled), quantum);  // (nearbyint: to even)
  if (r > top) return sign | (satfinite || !f.has_inf || rz ? max_bits : inf_bits);
  if (r == 0) return sign;
  if (r < ldexp(1.0, emin)) return sign | (unsigned int)ldexp(r, f.mant_bits - emin);
  frexp(r, &exp);
  unsigned int e = (unsigned int)(exp - 1 + format_bias(f));
  unsigned int m = (unsigned int)(ldexp(r, f.mant_bits - (exp - 1)) - ldexp(1.0, f.mant_bits));
  return sign | e << f.mant_bits | m;
}

// cvt.{rn,rz}{.relu}{.satfinite}.{f16x2,bf16x2,e4m3x2,e5m2x2}.f32 d, a, b: a in the upper half
static inline unsigned int cvt_pair(float a, float b, const Format& f, bool rz, bool satfinite, bool relu) {
  int width = 1 + f.exp_bits + f.mant_bits;
  return format_encode(a, f, rz, satfinite, relu) << width | format_encode(b, f, rz, satfinite, relu);
}

// cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a: each byte of a, the low one into the low half (exact)
static inline unsigned int cvt_fp8_pair_to_f16x2(unsigned short a, const Format& from, bool relu) {
  unsigned int lo = format_encode(format_decode(a & 0xffu, from), FORMAT_F16, false, false, relu);
  unsigned int hi = format_encode(format_decode(a >> 8 & 0xffu, from), FORMAT_F16, false, false, relu);
  return lo | hi << 16;
}
}  // namespace tirx_sim

namespace tirx_sim {
// mul.rn.f32x2 / add.rn.f32x2 on packed pairs (.x in the low word), each lane rounded once
static inline unsigned long long f32x2(unsigned long long a, unsigned long long b, bool add) {
  float ax = f32_from((unsigned int)a), ay = f32_from((unsigned int)(a >> 32));
  float bx = f32_from((unsigned int)b), by = f32_from((unsigned int)(b >> 32));
  float x = add ? ax + bx : ax * bx, y = add ? ay + by : ay * by;
  return (unsigned long long)f32_bits(x) | (unsigned long long)f32_bits(y) << 32;
}

// min.bf16x2 / max.bf16x2: per half, a NaN operand gives the other one (both: the canonical
// NaN), and -0 is below +0
static inline unsigned int bf16x2_min_max(unsigned int a, unsigned int b, bool max) {
  unsigned int out = 0;
  for (int h = 0; h < 2; ++h) {
    unsigned int x = a >> 16 * h & 0xffffu, y = b >> 16 * h & 0xffffu, r;
    double fx = format_decode(x, FORMAT_BF16), fy = format_decode(y, FORMAT_BF16);
    if (fx != fx && fy != fy) r = FORMAT_BF16.nan;
    else if (fx != fx) r = y;
    else if (fy != fy) r = x;
    else if (fx == fy) r = (std::signbit(fx) != max) ? x : y;  // equal: the zero of the right sign
    else r = (fx < fy) != max ? x : y;
    out |= r << 16 * h;
  }
  return out;
}
}  // namespace tirx_sim

namespace tirx_sim {
// red.add.noftz.{f16x2,bf16x2}: each half of *p plus the same half of v, rounded to nearest even
static inline void packed_add(unsigned int* p, unsigned int v, const Format& f) {
  unsigned int old = __atomic_load_n(p, __ATOMIC_RELAXED), sum;
  do {
    sum = 0;
    for (int h = 0; h < 2; ++h)
      sum |= format_encode(format_decode(old >> 16 * h & 0xffffu, f) + format_decode(v >> 16 * h & 0xffffu, f), f,
                           false, false, false) << 16 * h;
  } while (!__atomic_compare_exchange_n(p, &old, sum, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
}
}  // namespace tirx_sim
