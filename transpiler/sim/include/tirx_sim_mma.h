// tirxc sim: mma.sync.aligned.m16n8k{4,8,16,32}.row.col with fp32 or s32 accumulators, a warp
// operation (tirx_sim_ops.h warp_op) that reads every lane's fragments at once, with the fragment
// layouts of the PTX ISA (9.7.14.5.x): lane (g, t) = (lane / 4, lane % 4); a register holds e =
// 32 / bits elements (f16 / bf16: 2, tf32: 1, s8 / u8 / e4m3 / e5m2: 4), the lowest first.
//   A (16 x K): register r, element i at row g + 8 (r % 2), column (r / 2) (K / 2) + e t + i
//   B (K x 8):  register r, element i at row r (K / 2) + e t + i, column g
//   C, D:       element j at row g + 8 (j / 2), column 2 t + j % 2
// Floating-point products are exact in fp32 (at most 11 x 11 significant bits) and are added
// to the accumulator one at a time in k order, each sum rounded to fp32 (docs/sim.md,
// "Numerics": the tensor cores' order and width of accumulation are not documented). Integer
// products are summed exactly; s32 wraps, `.satfinite` clamps to the s32 range.
#pragma once

namespace tirx_sim {

enum MmaType { MMA_F16, MMA_BF16, MMA_TF32, MMA_E4M3, MMA_E5M2, MMA_S8, MMA_U8 };

static inline constexpr int mma_per_register(int type) {
  return type <= MMA_BF16 ? 2 : type == MMA_TF32 ? 1 : 4;
}

// element i of a fragment register, exactly
static inline double mma_element(int type, unsigned int reg, int i) {
  switch (type) {
    case MMA_F16: return format_decode(reg >> 16 * i & 0xffffu, FORMAT_F16);
    case MMA_BF16: return format_decode(reg >> 16 * i & 0xffffu, FORMAT_BF16);
    case MMA_TF32: return (double)f32_from(reg & ~0x1fffu);  // a tf32 is the upper 19 bits of its register
    case MMA_E4M3: return format_decode(reg >> 8 * i & 0xffu, FORMAT_E4M3);
    case MMA_E5M2: return format_decode(reg >> 8 * i & 0xffu, FORMAT_E5M2);
    case MMA_S8: return (double)(signed char)(reg >> 8 * i & 0xffu);
    default: return (double)(unsigned char)(reg >> 8 * i & 0xffu);
  }
}

struct MmaArgs {
  unsigned int a[4], b[2];
  unsigned int c[4];  // the accumulator's bits (float or int)
  void* d[4];
};

// SATURATE: 0 for fp32 accumulators; for s32, 1 wraps and 2 saturates (`.satfinite`)
template <int K, int TA, int TB, int SATURATE> static void mma_op(void** lanes, unsigned int mask) {
  const int ea = mma_per_register(TA), eb = mma_per_register(TB);
  double A[16][32], B[32][8];
  for (int l = 0; l < 32; ++l) {
    MmaArgs* m = (MmaArgs*)lanes[l];
    int g = l / 4, t = l % 4;
    for (int r = 0; r < K / (2 * ea); ++r)
      for (int i = 0; i < ea; ++i) A[g + 8 * (r % 2)][(r / 2) * (K / 2) + ea * t + i] = mma_element(TA, m->a[r], i);
    for (int r = 0; r < K / (4 * eb); ++r)
      for (int i = 0; i < eb; ++i) B[r * (K / 2) + eb * t + i][g] = mma_element(TB, m->b[r], i);
  }
  for (int l = 0; l < 32; ++l) {
    MmaArgs* m = (MmaArgs*)lanes[l];
    int g = l / 4, t = l % 4;
    for (int j = 0; j < 4; ++j) {
      int row = g + 8 * (j / 2), col = 2 * t + j % 2;
      unsigned int bits;
      if (SATURATE == 0) {
        float acc = f32_from(m->c[j]);
        for (int k = 0; k < K; ++k) acc += (float)(A[row][k] * B[k][col]);
        bits = f32_bits(acc);
      } else {
        long long acc = (long long)(int)m->c[j];
        for (int k = 0; k < K; ++k) acc += (long long)(A[row][k] * B[k][col]);
        if (SATURATE == 2) acc = acc > INT_MAX ? INT_MAX : acc < INT_MIN ? INT_MIN : acc;
        bits = (unsigned int)acc;
      }
      memcpy(m->d[j], &bits, 4);
    }
  }
}

template <int K, int TA, int TB, int SATURATE, typename D>
static inline void mma_sync(D* d0, D* d1, D* d2, D* d3, const unsigned int* a, const unsigned int* b, const D* c) {
  MmaArgs m{{0, 0, 0, 0}, {0, 0}, {0, 0, 0, 0}, {d0, d1, d2, d3}};
  memcpy(m.a, a, 4 * (K / (2 * mma_per_register(TA))));
  memcpy(m.b, b, 4 * (K / (4 * mma_per_register(TB))));
  memcpy(m.c, c, 16);
  warp_op(mma_op<K, TA, TB, SATURATE>, &m);
}

}  // namespace tirx_sim
