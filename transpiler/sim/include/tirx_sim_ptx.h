// tirxc sim: the warp-wide PTX instructions the CPU implementations of PTX helpers call
// (transpiler/sim/ptx.py writes those helpers): ldmatrix / stmatrix and mma.sync, each a warp
// operation (tirx_sim_ops.h warp_op) that reads every lane's operands at once, with the
// fragment layouts of the PTX ISA (9.7.14.5).
#pragma once

namespace tirx_sim {

// -- ldmatrix / stmatrix .m8n8 .b16: matrix j's row r is at the address lane 8j + r gives ---------
struct MatrixArgs {
  const void* address;
  unsigned int* regs[4];  // ldmatrix: where each matrix's fragment goes
  unsigned int values[4];  // stmatrix: each matrix's fragment
};

static inline unsigned short* element_of(void** lanes, int matrix, int row, int col) {
  MatrixArgs* a = (MatrixArgs*)lanes[matrix * 8 + row];
  return (unsigned short*)a->address + col;
}

// lane i's fragment of an 8x8 matrix: (row i/4, columns 2(i%4) and 2(i%4)+1), or transposed
// ((rows 2(i%4) and 2(i%4)+1, column i/4)); the lower element in the low half
template <int N, bool TRANS, bool STORE> static void matrix_op(void** lanes, unsigned int mask) {
  for (int i = 0; i < 32; ++i) {
    MatrixArgs* mine = (MatrixArgs*)lanes[i];
    for (int j = 0; j < N; ++j) {
      unsigned short* lo;
      unsigned short* hi;
      if (TRANS) {
        lo = element_of(lanes, j, 2 * (i % 4), i / 4);
        hi = element_of(lanes, j, 2 * (i % 4) + 1, i / 4);
      } else {
        lo = element_of(lanes, j, i / 4, 2 * (i % 4));
        hi = lo + 1;
      }
      if (STORE) {
        *lo = (unsigned short)(mine->values[j] & 0xffffu);
        *hi = (unsigned short)(mine->values[j] >> 16);
      } else {
        *mine->regs[j] = (unsigned int)*lo | ((unsigned int)*hi << 16);
      }
    }
  }
}

template <int N, bool TRANS> static inline void ldmatrix(const void* address, unsigned int* r0, unsigned int* r1 = nullptr,
                                                         unsigned int* r2 = nullptr, unsigned int* r3 = nullptr) {
  MatrixArgs a{address, {r0, r1, r2, r3}, {0, 0, 0, 0}};
  warp_op(matrix_op<N, TRANS, false>, &a);
}

template <int N, bool TRANS> static inline void stmatrix(const void* address, unsigned int v0, unsigned int v1 = 0,
                                                         unsigned int v2 = 0, unsigned int v3 = 0) {
  MatrixArgs a{address, {nullptr, nullptr, nullptr, nullptr}, {v0, v1, v2, v3}};
  warp_op(matrix_op<N, TRANS, true>, &a);
}

// -- mma.sync.aligned.m16n8k{8,16}.row.col.f32.{f16,bf16}.{f16,bf16}.f32 ----------------------------
struct MmaArgs {
  unsigned int a[4], b[2];
  float c[4];
  float* d[4];
};

template <typename H> static inline float half_of(unsigned int reg, int high) {
  H h;
  unsigned short bits = (unsigned short)(high ? reg >> 16 : reg & 0xffffu);
  memcpy(&h, &bits, 2);
  return (float)h;
}

// A (16 x K, row-major fragments): lane (g, t) = (i/4, i%4) holds rows g and g+8, columns
// 2t, 2t+1 (+8 for K = 16's second half); B (K x 8): columns g, rows 2t, 2t+1 (+8); C and D:
// rows g and g+8, columns 2t and 2t+1. Products are exact in float; they are added in k order
// in float (docs/sim.md: the hardware's order of accumulation is not documented).
template <int K, typename H> static void mma_op(void** lanes, unsigned int mask) {
  float A[16][16], B[16][8];
  for (int i = 0; i < 32; ++i) {
    MmaArgs* m = (MmaArgs*)lanes[i];
    int g = i / 4, t = i % 4;
    for (int h = 0; h < 2; ++h) {
      A[g][2 * t + h] = half_of<H>(m->a[0], h);
      A[g + 8][2 * t + h] = half_of<H>(m->a[1], h);
      B[2 * t + h][g] = half_of<H>(m->b[0], h);
      if (K == 16) {
        A[g][2 * t + 8 + h] = half_of<H>(m->a[2], h);
        A[g + 8][2 * t + 8 + h] = half_of<H>(m->a[3], h);
        B[2 * t + 8 + h][g] = half_of<H>(m->b[1], h);
      }
    }
  }
  for (int i = 0; i < 32; ++i) {
    MmaArgs* m = (MmaArgs*)lanes[i];
    int g = i / 4, t = i % 4;
    for (int e = 0; e < 4; ++e) {
      int row = g + (e >= 2 ? 8 : 0), col = 2 * t + (e & 1);
      float acc = m->c[e];
      for (int k = 0; k < K; ++k) acc += A[row][k] * B[k][col];
      *m->d[e] = acc;
    }
  }
}

template <int K, typename H> static inline void mma_sync(float* d0, float* d1, float* d2, float* d3, const unsigned int* a,
                                                         const unsigned int* b, const float* c) {
  MmaArgs m{{a[0], a[1], K == 16 ? a[2] : 0u, K == 16 ? a[3] : 0u}, {b[0], K == 16 ? b[1] : 0u},
            {c[0], c[1], c[2], c[3]}, {d0, d1, d2, d3}};
  warp_op(mma_op<K, H>, &m);
}

}  // namespace tirx_sim
