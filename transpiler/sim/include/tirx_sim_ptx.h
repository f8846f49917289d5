// tirxc sim: the warp-wide PTX instructions the CPU implementations of PTX helpers call
// (transpiler/sim/ptx.py writes those helpers): ldmatrix / stmatrix, each a warp operation
// (tirx_sim_ops.h warp_op) that reads every lane's operands at once, with the fragment layouts
// of the PTX ISA (9.7.14.5); the mbarrier; and, in the headers included below, the narrow float
// formats, mma.sync and the asynchronous copies.
// (The bodies of the functions declared here are in tirx_sim_ptx.cpp.)
#pragma once
#include "tirx_sim_formats.h"
#include "tirx_sim_mma.h"

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
  if (checker != nullptr) check_matrix_rows(lanes, N, STORE);
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

}  // namespace tirx_sim

namespace tirx_sim {
// -- shared-memory addresses as PTX sees them: offsets in the block's shared window --------------
static inline unsigned int shared_offset(const void* p) {
  return (unsigned int)((const char*)p - current_block->shared);
}
static inline void* shared_at(unsigned int offset) { return current_block->shared + offset; }

// -- mbarrier: its 8 bytes in shared memory hold the state (PTX ISA 9.7.13.15): the phase's
// parity (bit 0), the transaction count (bits 1-21, signed), the pending arrivals (bits 22-41)
// and the expected arrivals (bits 42-61); bit 62 marks an initialised barrier.
struct Mbarrier {
  unsigned long long* word;
  int phase, tx, pending, expected;
};

Mbarrier mbarrier_read(const void* address, const char* what);

void mbarrier_init(const void* address, unsigned int count);

// arrive (drop: also one fewer expected from the next phase on), after adding `tx` expected
// bytes; the state returned is the phase arrived on
unsigned long long mbarrier_arrive(const void* address, unsigned int count, long long tx, bool drop);

void mbarrier_tx(const void* address, long long tx);

// try_wait.parity: whether the phase of this parity has completed; a scheduling point, so a
// loop of try_waits lets the arriving threads run (--step-limit bounds one that never ends)
unsigned int mbarrier_try_wait_parity(const void* address, unsigned int parity, bool yield);

// elect.sync: the lowest lane of the mask is the leader
unsigned int elect_one_of(unsigned int mask);
}  // namespace tirx_sim

#define __cvta_generic_to_shared(p) tirx_sim::shared_offset(p)
#include "tirx_sim_cluster.h"
#include "tirx_sim_tma.h"
#include "tirx_sim_wgmma.h"
#include "tirx_sim_tcgen05.h"

