// tirxc sim: tcgen05 and tensor memory (docs/sim.md, "PTX": "Tensor memory and tcgen05").  Tensor
// memory is a per-CTA area of 128 lanes x 512 columns of 32-bit cells, kept for each block of the
// running cluster (by rank) on the OS thread that runs it; an address is (lane << 16) | column.
// `tcgen05.alloc` (a warp operation) takes the lowest free run of its column count, aligned to it,
// poisons it (0xA5A5A5A5: a cell no one wrote reads as garbage, as shared memory does) and writes
// the address (lane 0) to the shared slot; `dealloc` frees columns it names, each of which must be
// allocated (a double free is a located error), and a block that ends with columns allocated is an
// error naming them (under --synccheck, findings E0847 / E0848). `tcgen05.ld` / `st` are warp
// operations with the PTX ISA's register images; a warp reaches only its 32-lane quarter (warp %
// 4). The MMA reads its shared-memory operands through their matrix descriptors, decoded by wgmma's
// reader (tirx_sim_wgmma.h: one decoding of the canonical layouts and swizzles), and writes D in
// tensor memory at issue; `commit` arrives on its mbarrier at once (the MMAs before it are done),
// so wait::ld / wait::st and the fences change no value. Accumulation as wgmma's: exact products
// added in k order in fp32 (s32 exactly).
// (The bodies of the functions declared here are in tirx_sim_ptx.cpp.)
#pragma once
#include <memory>

namespace tirx_sim {

struct TensorMemory {
  unsigned int cells[128][512];
  bool allocated[512];
  int alloc_site[512];  // (under a check: the site of the tcgen05.alloc of each allocated column)
  bool relinquished;
};

// the race checker's view of tensor memory (tirx_sim_tcgen05_check.h)
void check_tmem_block_start(Block* b);
void check_tmem_block_end(Block* b);
void check_tmem_lane_access(int lane, const unsigned int* cell, bool store);
void check_tmem_wait_ld();
void check_tmem_wait_st(int thread);
void check_tmem_mma_row(const unsigned int* cell, int n);  // (tcgen05.cp's rows too)
void check_tcgen05_commit(const void* mbar);
void check_tmem_dealloc(TensorMemory* t, unsigned int column, unsigned int n);
void check_tmem_alloc(TensorMemory* t, unsigned int column, unsigned int n);
void check_tmem_leak(int site, const std::string& text);

// (one cluster at a time per OS thread, at most 16 blocks in it: the block's rank picks its area)
extern thread_local std::unique_ptr<TensorMemory> tensor_memories[16];

TensorMemory& tensor_memory();

// a new block starts with no columns allocated and its permit to allocate
void tmem_block_start(Block* b);

// at the block's end: the columns still allocated, as an error ("" when none)
std::string tmem_block_end(Block* b);

// -- alloc / dealloc / relinquish_alloc_permit: warp operations -------------------------------------
struct TmemAllocArgs {
  void* slot;  // alloc: where the address goes
  unsigned int taddr, columns;
};

void tmem_alloc(void* slot, unsigned int columns);
void tmem_dealloc(unsigned int taddr, unsigned int columns);
void tmem_relinquish();

// -- tcgen05.ld / st: warp operations ----------------------------------------------------------------
enum TmemShape { TMEM_32X32B, TMEM_16X64B, TMEM_16X128B, TMEM_16X256B };

// the cell register r of lane l holds, relative to the address: (row, column) (the ISA's images)
void tmem_image(int shape, int l, int r, int* row, int* col);

struct TmemCopyArgs {
  unsigned int taddr;
  unsigned int* regs[128];
  unsigned int values[128];
};

// the cell of (row, column) from `taddr`, checked: the warp's lane quarter, allocated columns. A
// warp reaches the 32 lanes of its quarter (warp % 4) only: an address whose lane is in another
// quarter is an error; one in lanes 0-31 is taken within the warp's own quarter (tirxc's warpgroup
// copies give every warp the allocation's address, lane 0, and a warp of quarter q reads lanes 32q ..)
unsigned int* tmem_cell(unsigned int taddr, int row, int col, const char* what);

template <int SHAPE, int REGS, bool STORE> static void tmem_copy_op(void** lanes, unsigned int) {
  const char* what = STORE ? "tcgen05.st" : "tcgen05.ld";
  unsigned int taddr = ((TmemCopyArgs*)lanes[0])->taddr;
  for (int l = 1; l < 32; ++l)
    if (((TmemCopyArgs*)lanes[l])->taddr != taddr) fail(std::string(what) + ": the warp's lanes give different addresses");
  for (int l = 0; l < 32; ++l) {
    TmemCopyArgs* a = (TmemCopyArgs*)lanes[l];
    for (int r = 0; r < REGS; ++r) {
      int row, col;
      tmem_image(SHAPE, l, r, &row, &col);
      unsigned int* cell = tmem_cell(taddr, row, col, what);
      if (checker != nullptr) check_tmem_lane_access(l, cell, STORE);
      if (STORE)
        *cell = a->values[r];
      else
        *a->regs[r] = *cell;
    }
  }
}

template <int SHAPE, int REGS> static inline void tmem_load(unsigned int taddr, void* const* regs) {
  TmemCopyArgs a;
  a.taddr = taddr;
  for (int r = 0; r < REGS; ++r) a.regs[r] = (unsigned int*)regs[r];
  warp_op(tmem_copy_op<SHAPE, REGS, false>, &a);
}

template <int SHAPE, int REGS> static inline void tmem_store(unsigned int taddr, const unsigned int* values) {
  TmemCopyArgs a;
  a.taddr = taddr;
  memcpy(a.values, values, 4 * REGS);
  warp_op(tmem_copy_op<SHAPE, REGS, true>, &a);
}

// tcgen05.wait::ld / st: the thread's loads / stores are done (they were at issue; the checker
// notes the wait)
void tmem_wait_ld();
void tmem_wait_st();

// -- tcgen05.mma (cta_group::1, dense, A and B through shared-memory descriptors) -------------------
// A shared-memory matrix descriptor of tcgen05 (start, leading and stride byte offsets in 16-byte
// units at bits 0, 16, 32; base offset 49-51; the leading offset's mode 52; swizzle 61-63: 0 none,
// 2 128 B, 4 64 B, 6 32 B) as wgmma's descriptor (swizzle 62-63: 1 128 B, 2 64 B, 3 32 B), which
// tirx_sim_wgmma.h reads
unsigned long long tcgen05_as_wgmma_desc(unsigned long long desc);

float tcgen05_operand(int type, unsigned long long desc, int mn, int k, bool mn_major);

enum Tcgen05Kind { KIND_F16, KIND_TF32, KIND_F8F6F4, KIND_I8 };

// an operand's type from its 3-bit format field (the instruction descriptor's, per kind)
int tcgen05_type(int kind, int format, const char* operand);

// the tensor-memory lane of D's row `row` (M 128: the identity; M 64: 16 rows per 32-lane quarter)
static inline int tcgen05_d_lane(int m, int row) { return m == 128 ? row : 32 * (row / 16) + row % 16; }

// D (M x N, tensor memory at d_tmem) = A (M x K) B (K x N) + (enable_input_d ? D * 2^-shift : 0)
void tcgen05_mma(int kind, unsigned int d_tmem, unsigned long long a_desc, unsigned long long b_desc, unsigned int idesc, unsigned int enable_input_d, int scale_input_d, const unsigned int* disabled_lanes);

// -- tcgen05.cp: shared memory (by descriptor) -> tensor memory, issued by one thread -------------
// The shapes' lane patterns (tirxc's copy_async lowering has the same table): row r of a copy
// goes to lane `first(r)` and, with multicast, to `copies` lanes `stride` apart.
enum Tcgen05CpShape { CP_128X256B, CP_4X256B, CP_128X128B, CP_64X128B_02_13, CP_64X128B_01_23, CP_32X128B_WARPX4 };

void tcgen05_cp(int shape, unsigned int taddr, unsigned long long s_desc);

// tcgen05.commit: the thread's MMAs and copies before it are done (they ran at issue), so the
// arrive-on happens now, on the barrier of each CTA of `cta_mask` with multicast
void tcgen05_commit(const void* mbar, int cta_mask = -1);

}  // namespace tirx_sim
