// tirxc sim: the warp-wide PTX instructions the CPU implementations of PTX helpers call
// (transpiler/sim/ptx.py writes those helpers): ldmatrix / stmatrix, each a warp operation
// (tirx_sim_ops.h warp_op) that reads every lane's operands at once, with the fragment layouts
// of the PTX ISA (9.7.14.5); the mbarrier; and, in the headers included below, the narrow float
// formats, mma.sync and the asynchronous copies.
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

static inline Mbarrier mbarrier_read(const void* address, const char* what) {
  unsigned long long w;
  memcpy(&w, address, 8);
  if (!(w >> 62 & 1)) protocol_error(833, std::string(what) + " on an mbarrier that was not initialised (mbarrier.init)");
  Mbarrier m{(unsigned long long*)address, (int)(w & 1), 0, (int)(w >> 22 & 0xfffff), (int)(w >> 42 & 0xfffff)};
  int tx = (int)(w >> 1 & 0x1fffff);
  m.tx = tx & 0x100000 ? tx - 0x200000 : tx;
  return m;
}

static inline void mbarrier_write(const Mbarrier& m) {
  unsigned long long w = (unsigned long long)(m.phase & 1) | ((unsigned long long)(m.tx & 0x1fffff) << 1) |
                         ((unsigned long long)m.pending << 22) | ((unsigned long long)m.expected << 42) | (1ull << 62);
  memcpy(m.word, &w, 8);
}

// the phase completes when every expected arrival came and every expected byte arrived
static inline void mbarrier_settle(Mbarrier& m) {
  if (m.pending == 0 && m.tx < 0)
    protocol_error(835, "mbarrier: " + std::to_string(-m.tx) + " transaction bytes more than expect_tx announced");
  if (m.pending == 0 && m.tx == 0) {
    m.phase ^= 1;
    m.pending = m.expected;
    if (checker != nullptr) check_mbarrier_phase(m.word);
  }
  mbarrier_write(m);
}

static inline void mbarrier_init(const void* address, unsigned int count) {
  if (count < 1 || count > 0xfffff) fail("mbarrier.init with the arrival count " + std::to_string(count));
  Mbarrier m{(unsigned long long*)address, 0, 0, (int)count, (int)count};
  mbarrier_write(m);
  if (checker != nullptr) check_mbarrier_init(address);
}

// arrive (drop: also one fewer expected from the next phase on), after adding `tx` expected
// bytes; the state returned is the phase arrived on
static inline unsigned long long mbarrier_arrive(const void* address, unsigned int count, long long tx, bool drop) {
  Mbarrier m = mbarrier_read(address, "mbarrier.arrive");
  m.tx += (int)tx;
  if ((int)count > m.pending) protocol_error(834, "mbarrier.arrive: more arrivals than the phase expects (" +
                                   std::to_string(m.pending) + " pending)");
  unsigned long long state = (unsigned long long)m.phase;
  if (checker != nullptr) check_mbarrier_arrive(address);
  m.pending -= (int)count;
  if (drop) m.expected -= (int)count;
  mbarrier_settle(m);
  return state;
}

static inline void mbarrier_tx(const void* address, long long tx) {  // expect_tx (+) / complete_tx (-)
  Mbarrier m = mbarrier_read(address, "mbarrier.expect_tx / complete_tx");
  m.tx += (int)tx;
  mbarrier_settle(m);
}

// try_wait.parity: whether the phase of this parity has completed; a scheduling point, so a
// loop of try_waits lets the arriving threads run (--step-limit bounds one that never ends)
static inline unsigned int mbarrier_try_wait_parity(const void* address, unsigned int parity, bool yield) {
  if (yield) spin_point();
  Mbarrier m = mbarrier_read(address, "mbarrier.try_wait");
  bool done = (m.phase & 1) != (int)(parity & 1);
  if (done && checker != nullptr) check_mbarrier_waited(address);
  return (unsigned int)done;
}

// elect.sync: the lowest lane of the mask is the leader
static inline unsigned int elect_one_of(unsigned int mask) {
  unsigned int arrived = __ballot_sync(mask, 1);
  return (unsigned int)(current_fiber->linear % 32 == __builtin_ctz(arrived));
}
}  // namespace tirx_sim

#define __cvta_generic_to_shared(p) tirx_sim::shared_offset(p)
#include "tirx_sim_cluster.h"
#include "tirx_sim_tma.h"
#include "tirx_sim_wgmma.h"
#include "tirx_sim_tcgen05.h"

