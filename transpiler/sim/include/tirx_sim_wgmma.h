// tirxc sim: wgmma.mma_async (docs/sim.md, "PTX"), a warpgroup operation: the 128 threads of a
// warpgroup (4 consecutive warps) arrive, then the last computes every thread's accumulators
// from every thread's operands, as mma.sync does for a warp. The shared-memory operands are read
// through their matrix descriptors (start, leading and stride byte offsets, swizzle) with the
// canonical layouts of the PTX ISA (9.7.15.5.1), each byte through async_read with the warpgroup's
// wgmma group as its completion event; the result is there at issue, so fence / commit_group /
// wait_group change no value (the race checker follows them: tirx_sim_wgmma_check.h).
// Accumulation as mma.sync's (tirx_sim_mma.h): exact products, added in k order in fp32 (s32
// exactly).
// (The bodies of the functions declared here are in tirx_sim_ptx.cpp.)
#pragma once

namespace tirx_sim {

typedef void (*GroupFn)(void** members);

// Runs fn once, in the last of the warpgroup's 128 threads to arrive, with every thread's args.
// The others wait as polls (a thread of the warpgroup that never arrives is reported by the
// deadlock check as a poll that never succeeds).
void warpgroup_op(GroupFn fn, void* args, const char* what);

struct WgmmaArgs {
  void** d;                 // this thread's accumulator registers (N / 2 of them)
  unsigned long long a_desc, b_desc;
  const unsigned int* a;    // A in registers (4 per thread), or null: A through a_desc
  unsigned int scale_d;
  int scale_a, scale_b, trans_a, trans_b;
};

// the byte offset of element (mn, k) of an operand from its descriptor's start: the canonical
// K-major and MN-major layouts, with W = the swizzle's bytes / 16 (1 without a swizzle)
static inline unsigned int wgmma_offset(int mn, int k, int bytes, unsigned int lbo, unsigned int sbo, int span,
                                        bool mn_major) {
  int kb = k * bytes;
  if (!mn_major) {
    if (span == 16) return (mn % 8) * 16 + (mn / 8) * sbo + kb % 16 + (kb / 16) * lbo;
    return (mn % 8) * span + (mn / 8) * sbo + kb;
  }
  int per_span = span / bytes;  // MN elements in one swizzle span
  if (span == 16) return (mn % 8) * bytes + (mn / 8) * sbo + (k % 8) * 16 + (k / 8) * lbo;
  return (mn % per_span) * bytes + (mn / per_span) * lbo + (k % 8) * span + (k / 8) * sbo;
}

// element (mn, k) of the operand a descriptor describes, exactly
template <int TYPE> static inline float wgmma_element(unsigned long long desc, int mn, int k, bool mn_major) {
  const int bytes = TYPE == MMA_TF32 ? 4 : mma_per_register(TYPE) == 2 ? 2 : 1;
  unsigned int start = (unsigned int)(desc & 0x3fff) << 4, lbo = (unsigned int)(desc >> 16 & 0x3fff) << 4;
  unsigned int sbo = (unsigned int)(desc >> 32 & 0x3fff) << 4;
  int layout = (int)(desc >> 62), mode = layout == 1 ? 3 : layout == 2 ? 2 : layout == 3 ? 1 : 0;
  if (desc >> 49 & 7) fail("wgmma: a matrix descriptor with a base offset is not supported yet by tirxc sim");
  unsigned int address = swizzled(start + wgmma_offset(mn, k, bytes, lbo, sbo, 16 << mode, mn_major), mode);
  unsigned int reg = 0;
  async_read(&reg, shared_at(address), bytes, AsyncEvent{Completion::WGMMA_GROUP, nullptr});
  return (float)mma_element(TYPE, reg, 0);
}

// D (64 x N) = A (64 x K) B (K x N) + (scale_d ? D : 0); thread t of the warpgroup, lane (g, q) of
// warp w = t / 32, holds D's rows 16w + g and 16w + g + 8, columns 8j + 2q and 8j + 2q + 1
// (registers 4j .. 4j + 3); A in registers as mma.sync's A fragment of rows 16w ..
template <int N, int K, int TA, int TB, int SATURATE> static void wgmma_op(void** members) {
  static thread_local float A[64][32], B[32][256];
  WgmmaArgs* first = (WgmmaArgs*)members[0];
  if (checker != nullptr) {  // the race checker follows the operation's group (tirx_sim_wgmma_check.h)
    void** accumulators[128];
    for (int t = 0; t < 128; ++t) accumulators[t] = ((WgmmaArgs*)members[t])->d;
    check_wgmma_issue(current_fiber->linear - current_fiber->linear % 128, accumulators, N / 2);
  }
  for (int t = 0; t < 128; ++t) {
    WgmmaArgs* m = (WgmmaArgs*)members[t];
    if (m->a_desc != first->a_desc || m->b_desc != first->b_desc || m->scale_d != first->scale_d)
      fail("wgmma.mma_async: the warpgroup's threads give different descriptors or scale-d");
  }
  if (first->a == nullptr) {
    for (int r = 0; r < 64; ++r)
      for (int k = 0; k < K; ++k) A[r][k] = wgmma_element<TA>(first->a_desc, r, k, first->trans_a);
  } else {
    const int e = mma_per_register(TA);
    for (int t = 0; t < 128; ++t) {
      WgmmaArgs* m = (WgmmaArgs*)members[t];
      int w = t / 32, g = t % 32 / 4, q = t % 4;
      for (int r = 0; r < 4; ++r)
        for (int i = 0; i < e; ++i)
          A[16 * w + g + 8 * (r % 2)][(r / 2) * (K / 2) + e * q + i] = (float)mma_element(TA, m->a[r], i);
    }
  }
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) B[k][n] = wgmma_element<TB>(first->b_desc, n, k, first->trans_b);
  float sa = (float)first->scale_a, sb = (float)first->scale_b;
  for (int t = 0; t < 128; ++t) {
    WgmmaArgs* m = (WgmmaArgs*)members[t];
    int w = t / 32, g = t % 32 / 4, q = t % 4;
    for (int j = 0; j < N / 2; ++j) {
      int row = 16 * w + g + 8 * (j % 4 / 2), col = 8 * (j / 4) + 2 * q + j % 2;
      unsigned int bits;
      memcpy(&bits, m->d[j], 4);
      if (SATURATE == 0) {
        float acc = m->scale_d ? f32_from(bits) : 0.0f;
        for (int k = 0; k < K; ++k) acc += (sa * A[row][k]) * (sb * B[k][col]);
        bits = f32_bits(acc);
      } else {
        long long acc = m->scale_d ? (long long)(int)bits : 0;
        for (int k = 0; k < K; ++k) acc += (long long)A[row][k] * (long long)B[k][col];
        if (SATURATE == 2) acc = acc > INT_MAX ? INT_MAX : acc < INT_MIN ? INT_MIN : acc;
        bits = (unsigned int)acc;
      }
      memcpy(m->d[j], &bits, 4);
    }
  }
  check_wgmma_issued();
}

template <int N, int K, int TA, int TB, int SATURATE>
static inline void wgmma(void** d, unsigned long long a_desc, const unsigned int* a, unsigned long long b_desc,
                         unsigned int scale_d, int scale_a, int scale_b, int trans_a, int trans_b) {
  WgmmaArgs m{d, a_desc, b_desc, a, scale_d, scale_a, scale_b, trans_a, trans_b};
  warpgroup_op(wgmma_op<N, K, TA, TB, SATURATE>, &m, "wgmma.mma_async");
}

}  // namespace tirx_sim
