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
static void check_tmem_block_start(Block* b);
static void check_tmem_block_end(Block* b);
static void check_tmem_lane_access(int lane, const unsigned int* cell, bool store);
static void check_tmem_wait_ld();
static void check_tmem_wait_st(int thread);
static void check_tmem_mma_row(const unsigned int* cell, int n);  // (tcgen05.cp's rows too)
static void check_tcgen05_commit(const void* mbar);
static void check_tmem_dealloc(TensorMemory* t, unsigned int column, unsigned int n);
static void check_tmem_alloc(TensorMemory* t, unsigned int column, unsigned int n);
static void check_tmem_leak(int site, const std::string& text);

// (one cluster at a time per OS thread, at most 16 blocks in it: the block's rank picks its area)
static thread_local std::unique_ptr<TensorMemory> tensor_memories[16];

static inline TensorMemory& tensor_memory() {
  std::unique_ptr<TensorMemory>& t = tensor_memories[current_block->rank];
  if (!t) {
    t.reset(new TensorMemory);
    memset(t->allocated, 0, sizeof t->allocated);
    t->relinquished = false;
  }
  return *t;
}

// a new block starts with no columns allocated and its permit to allocate
static void tmem_block_start(Block* b) {
  if (checker != nullptr) check_tmem_block_start(b);
  std::unique_ptr<TensorMemory>& t = tensor_memories[b->rank];
  if (!t) return;
  memset(t->allocated, 0, sizeof t->allocated);
  t->relinquished = false;
}

// at the block's end: the columns still allocated, as an error ("" when none)
static std::string tmem_block_end(Block* b) {
  if (checker != nullptr) check_tmem_block_end(b);
  std::unique_ptr<TensorMemory>& t = tensor_memories[b->rank];
  if (!t) return "";
  int first = -1, count = 0;
  for (int c = 0; c < 512; ++c)
    if (t->allocated[c]) {
      if (first < 0) first = c;
      ++count;
    }
  if (count == 0) return "";
  if (checker != nullptr)
    check_tmem_leak(t->alloc_site[first], std::to_string(count) + " tensor-memory columns allocated at the block's end "
                                          "(from column " + std::to_string(first) + "): a tcgen05.alloc without its dealloc");
  return where(b, nullptr) + ": the block ended with " + std::to_string(count) +
         " tensor-memory columns allocated (from column " + std::to_string(first) +
         "): a tcgen05.alloc without its tcgen05.dealloc";
}

static inline std::string columns_text(int first, int count) {
  return "columns " + std::to_string(first) + "-" + std::to_string(first + count - 1);
}

// -- alloc / dealloc / relinquish_alloc_permit: warp operations -------------------------------------
struct TmemAllocArgs {
  void* slot;  // alloc: where the address goes
  unsigned int taddr, columns;
};

static inline void check_uniform(void** lanes, const char* what) {
  TmemAllocArgs* first = (TmemAllocArgs*)lanes[0];
  for (int l = 1; l < 32; ++l) {
    TmemAllocArgs* a = (TmemAllocArgs*)lanes[l];
    if (a->taddr != first->taddr || a->columns != first->columns || a->slot != first->slot)
      fail(std::string(what) + ": the warp's lanes give different operands");
  }
}

static void tmem_alloc_op(void** lanes, unsigned int) {
  check_uniform(lanes, "tcgen05.alloc");
  TmemAllocArgs* a = (TmemAllocArgs*)lanes[0];
  unsigned int n = a->columns;
  if (n < 32 || n > 512 || (n & (n - 1)))
    fail("tcgen05.alloc of " + std::to_string(n) + " columns: a power of two from 32 to 512");
  TensorMemory& t = tensor_memory();
  if (t.relinquished) protocol_error(848, "tcgen05.alloc after this CTA's tcgen05.relinquish_alloc_permit");
  for (unsigned int start = 0; start < 512; start += n) {
    bool free = true;
    for (unsigned int c = start; c < start + n && free; ++c) free = !t.allocated[c];
    if (!free) continue;
    for (unsigned int c = start; c < start + n; ++c) {
      t.allocated[c] = true;
      t.alloc_site[c] = current_fiber->site;
      for (int lane = 0; lane < 128; ++lane) t.cells[lane][c] = 0xA5A5A5A5u;
    }
    memcpy(a->slot, &start, 4);
    access(a->slot, 4, WRITE);
    if (checker != nullptr) check_tmem_alloc(&t, start, n);
    return;
  }
  // no other CTA of the simulation holds tensor memory of this SM, so none would ever free it
  protocol_error(848, "tcgen05.alloc of " + std::to_string(n) + " columns: no free run of them in this CTA's 512 (the "
       "allocation would wait forever)");
}

static void tmem_dealloc_op(void** lanes, unsigned int) {
  check_uniform(lanes, "tcgen05.dealloc");
  TmemAllocArgs* a = (TmemAllocArgs*)lanes[0];
  unsigned int column = a->taddr & 0xffffu, n = a->columns;
  if (a->taddr >> 16)
    protocol_error(848, "tcgen05.dealloc of an address with a lane (" + std::to_string(a->taddr >> 16) + "), not 0");
  if (n < 32 || n > 512 || (n & (n - 1)))
    fail("tcgen05.dealloc of " + std::to_string(n) + " columns: a power of two from 32 to 512");
  TensorMemory& t = tensor_memory();
  for (unsigned int c = column; c < column + n; ++c)
    if (c >= 512 || !t.allocated[c])
      protocol_error(848, "tcgen05.dealloc of " + columns_text((int)column, (int)n) + ": column " + std::to_string(c) +
           " is not allocated (a double free, or columns never allocated)");
  for (unsigned int c = column; c < column + n; ++c) t.allocated[c] = false;
  Tcgen05Scope scope(3);
  if (checker != nullptr) check_tmem_dealloc(&t, column, n);
}

static void tmem_relinquish_op(void**, unsigned int) { tensor_memory().relinquished = true; }

static inline void tmem_alloc(void* slot, unsigned int columns) {
  TmemAllocArgs a{slot, 0, columns};
  warp_op(tmem_alloc_op, &a);
}
static inline void tmem_dealloc(unsigned int taddr, unsigned int columns) {
  TmemAllocArgs a{nullptr, taddr, columns};
  warp_op(tmem_dealloc_op, &a);
}
static inline void tmem_relinquish() {
  TmemAllocArgs a{nullptr, 0, 0};
  warp_op(tmem_relinquish_op, &a);
}

// -- tcgen05.ld / st: warp operations ----------------------------------------------------------------
enum TmemShape { TMEM_32X32B, TMEM_16X64B, TMEM_16X128B, TMEM_16X256B };

// the cell register r of lane l holds, relative to the address: (row, column) (the ISA's images)
static inline void tmem_image(int shape, int l, int r, int* row, int* col) {
  switch (shape) {
    case TMEM_32X32B: *row = l; *col = r; return;
    case TMEM_16X64B: *row = l / 4 + 8 * (l % 2); *col = l / 2 % 2 + 2 * r; return;
    case TMEM_16X128B: *row = l / 4 + 8 * (r % 2); *col = l % 4 + 4 * (r / 2); return;
    default: *row = l / 4 + 8 * (r / 2 % 2); *col = r % 2 + 2 * (l % 4) + 8 * (r / 4); return;
  }
}

struct TmemCopyArgs {
  unsigned int taddr;
  unsigned int* regs[128];
  unsigned int values[128];
};

// the cell of (row, column) from `taddr`, checked: the warp's lane quarter, allocated columns. A
// warp reaches the 32 lanes of its quarter (warp % 4) only: an address whose lane is in another
// quarter is an error; one in lanes 0-31 is taken within the warp's own quarter (tirxc's warpgroup
// copies give every warp the allocation's address, lane 0, and a warp of quarter q reads lanes 32q ..)
static inline unsigned int* tmem_cell(unsigned int taddr, int row, int col, const char* what) {
  int warp = current_fiber->linear / 32, quarter = warp % 4, low = 32 * quarter;
  int lane_field = (int)(taddr >> 16), column = (int)(taddr & 0xffffu) + col;
  if (lane_field >= 32 && lane_field / 32 != quarter)
    protocol_error(847, std::string(what) + ": warp " + std::to_string(warp) + " accesses tensor-memory lane " +
         std::to_string(lane_field + row) + "; a warp reaches only lanes " + std::to_string(low) + "-" +
         std::to_string(low + 31) + " (its warp % 4 quarter)");
  int lane = low + lane_field % 32 + row;
  if (lane >= low + 32)
    protocol_error(847, std::string(what) + ": warp " + std::to_string(warp) + " accesses tensor-memory lane " + std::to_string(lane) +
         ", past its quarter (lanes " + std::to_string(low) + "-" + std::to_string(low + 31) + ")");
  TensorMemory& t = tensor_memory();
  if (column >= 512 || !t.allocated[column])
    protocol_error(847, std::string(what) + ": tensor-memory column " + std::to_string(column) + " is not allocated");
  return &t.cells[lane][column];
}

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
static inline void tmem_wait_ld() {
  if (checker != nullptr) check_tmem_wait_ld();
}
// (under a check wait::st is what it is on the GPU, an aligned warp instruction: its lanes meet, so
// each lane's stores are complete, and ordered, for every lane after it)
static void tmem_wait_st_op(void** lanes, unsigned int) {
  for (int l = 0; l < 32; ++l) check_tmem_wait_st(current_fiber->linear / 32 * 32 + l);
}
static inline void tmem_wait_st() {
  if (checker != nullptr) warp_op(tmem_wait_st_op, nullptr);
}

// -- tcgen05.mma (cta_group::1, dense, A and B through shared-memory descriptors) -------------------
// A shared-memory matrix descriptor of tcgen05 (start, leading and stride byte offsets in 16-byte
// units at bits 0, 16, 32; base offset 49-51; the leading offset's mode 52; swizzle 61-63: 0 none,
// 2 128 B, 4 64 B, 6 32 B) as wgmma's descriptor (swizzle 62-63: 1 128 B, 2 64 B, 3 32 B), which
// tirx_sim_wgmma.h reads
static inline unsigned long long tcgen05_as_wgmma_desc(unsigned long long desc) {
  int swizzle = (int)(desc >> 61);
  if (swizzle == 1) fail("tcgen05.mma: the 128-byte swizzle with 32-byte atoms is not supported yet by tirxc sim");
  if (swizzle & 1 || swizzle > 6) fail("tcgen05.mma: a matrix descriptor with the swizzle mode " + std::to_string(swizzle));
  if (desc >> 49 & 7) fail("tcgen05.mma: a matrix descriptor with a base offset is not supported yet by tirxc sim");
  if (desc >> 52 & 1) fail("tcgen05.mma: a matrix descriptor with the absolute leading-offset mode is not supported "
                           "yet by tirxc sim");
  unsigned long long layout = swizzle == 2 ? 1 : swizzle == 4 ? 2 : swizzle == 6 ? 3 : 0;
  return (desc & 0x3fff3fff3fffull) | layout << 62;
}

static inline float tcgen05_operand(int type, unsigned long long desc, int mn, int k, bool mn_major) {
  switch (type) {
    case MMA_F16: return wgmma_element<MMA_F16>(desc, mn, k, mn_major);
    case MMA_BF16: return wgmma_element<MMA_BF16>(desc, mn, k, mn_major);
    case MMA_TF32: return wgmma_element<MMA_TF32>(desc, mn, k, mn_major);
    case MMA_E4M3: return wgmma_element<MMA_E4M3>(desc, mn, k, mn_major);
    case MMA_E5M2: return wgmma_element<MMA_E5M2>(desc, mn, k, mn_major);
    case MMA_S8: return wgmma_element<MMA_S8>(desc, mn, k, mn_major);
    default: return wgmma_element<MMA_U8>(desc, mn, k, mn_major);
  }
}

enum Tcgen05Kind { KIND_F16, KIND_TF32, KIND_F8F6F4, KIND_I8 };

// an operand's type from its 3-bit format field (the instruction descriptor's, per kind)
static inline int tcgen05_type(int kind, int format, const char* operand) {
  if (kind == KIND_F16 && format <= 1) return format == 0 ? MMA_F16 : MMA_BF16;
  if (kind == KIND_TF32 && format == 2) return MMA_TF32;
  if (kind == KIND_F8F6F4 && format <= 1) return format == 0 ? MMA_E4M3 : MMA_E5M2;
  if (kind == KIND_I8 && format <= 1) return format == 0 ? MMA_U8 : MMA_S8;
  if (kind == KIND_F8F6F4 && format >= 3 && format <= 5)
    fail(std::string("tcgen05.mma: ") + operand + " of the fp6 / fp4 formats is not supported yet by tirxc sim");
  fail(std::string("tcgen05.mma: the instruction descriptor's ") + operand + " format " + std::to_string(format) +
       " does not belong to this kind");
}

// the tensor-memory lane of D's row `row` (M 128: the identity; M 64: 16 rows per 32-lane quarter)
static inline int tcgen05_d_lane(int m, int row) { return m == 128 ? row : 32 * (row / 16) + row % 16; }

// D (M x N, tensor memory at d_tmem) = A (M x K) B (K x N) + (enable_input_d ? D * 2^-shift : 0)
static inline void tcgen05_mma(int kind, unsigned int d_tmem, unsigned long long a_desc, unsigned long long b_desc,
                               unsigned int idesc, unsigned int enable_input_d, int scale_input_d,
                               const unsigned int* disabled_lanes) {
  Tcgen05Scope scope(1);  // (the checkers: its shared-memory reads are a tcgen05 operation's)
  if (idesc & 4) fail("tcgen05.mma: the sparse instruction descriptor (bit 2) is not supported yet by tirxc sim");
  int d_format = (int)(idesc >> 4 & 3);
  bool integer = kind == KIND_I8;
  if (d_format != (integer ? 2 : 1))
    fail(std::string("tcgen05.mma: ") + (d_format == 0 ? "f16 accumulators are not supported yet by tirxc sim"
                                                       : "the instruction descriptor's D format does not fit the kind"));
  int ta = tcgen05_type(kind, (int)(idesc >> 7 & 7), "A"), tb = tcgen05_type(kind, (int)(idesc >> 10 & 7), "B");
  bool neg_a = idesc >> 13 & 1, neg_b = idesc >> 14 & 1, a_mn = idesc >> 15 & 1, b_mn = idesc >> 16 & 1;
  bool saturate = idesc >> 3 & 1;
  int n = (int)(idesc >> 17 & 0x3f) << 3, m = (int)(idesc >> 24 & 0x1f) << 4;
  const int k_total = kind == KIND_F16 ? 16 : kind == KIND_TF32 ? 8 : 32;
  if ((m != 64 && m != 128) || n < 8 || n > 256 || n % (m == 64 ? 8 : 16))
    fail("tcgen05.mma: M " + std::to_string(m) + ", N " + std::to_string(n) + " is not a cta_group::1 shape");
  if (integer && (neg_a || neg_b)) fail("tcgen05.mma: kind::i8 has no negation");
  unsigned long long ad = tcgen05_as_wgmma_desc(a_desc), bd = tcgen05_as_wgmma_desc(b_desc);
  static thread_local float A[128][32], B[32][256];
  for (int r = 0; r < m; ++r)
    for (int k = 0; k < k_total; ++k) A[r][k] = (neg_a ? -1.0f : 1.0f) * tcgen05_operand(ta, ad, r, k, a_mn);
  for (int c = 0; c < n; ++c)
    for (int k = 0; k < k_total; ++k) B[k][c] = (neg_b ? -1.0f : 1.0f) * tcgen05_operand(tb, bd, c, k, b_mn);
  TensorMemory& t = tensor_memory();
  int base_lane = (int)(d_tmem >> 16), base_col = (int)(d_tmem & 0xffffu);
  for (int r = 0; r < m; ++r) {
    int lane = base_lane + tcgen05_d_lane(m, r);
    if (lane >= 128) protocol_error(847, "tcgen05.mma: D's lane " + std::to_string(lane) + " is outside tensor memory");
    if (disabled_lanes != nullptr && disabled_lanes[lane / 32] >> (lane % 32) & 1) continue;
    if (base_col + n > 512) protocol_error(847, "tcgen05.mma: D's columns pass column 511");
    if (checker != nullptr) check_tmem_mma_row(&t.cells[lane][base_col], n);
    for (int c = 0; c < n; ++c) {
      int column = base_col + c;
      if (column >= 512 || !t.allocated[column])
        protocol_error(847, "tcgen05.mma: D's tensor-memory column " + std::to_string(column) + " is not allocated");
      unsigned int& cell = t.cells[lane][column];
      if (!integer) {
        float acc = enable_input_d ? ldexpf(f32_from(cell), -scale_input_d) : 0.0f;
        for (int k = 0; k < k_total; ++k) acc += A[r][k] * B[k][c];
        cell = f32_bits(acc);
      } else {
        long long acc = enable_input_d ? (long long)(int)cell : 0;
        for (int k = 0; k < k_total; ++k) acc += (long long)A[r][k] * (long long)B[k][c];
        if (saturate) acc = acc > INT_MAX ? INT_MAX : acc < INT_MIN ? INT_MIN : acc;
        cell = (unsigned int)acc;
      }
    }
  }
}

// -- tcgen05.cp: shared memory (by descriptor) -> tensor memory, issued by one thread -------------
// The shapes' lane patterns (tirxc's copy_async lowering has the same table): row r of a copy
// goes to lane `first(r)` and, with multicast, to `copies` lanes `stride` apart.
enum Tcgen05CpShape { CP_128X256B, CP_4X256B, CP_128X128B, CP_64X128B_02_13, CP_64X128B_01_23, CP_32X128B_WARPX4 };

static inline void tcgen05_cp(int shape, unsigned int taddr, unsigned long long s_desc) {
  Tcgen05Scope scope(1);
  static const int rows_of[] = {128, 4, 128, 64, 64, 32}, bytes_of[] = {32, 32, 16, 16, 16, 16};
  static const int copies_of[] = {1, 1, 1, 2, 2, 4}, stride_of[] = {0, 0, 0, 64, 32, 32};
  unsigned long long desc = tcgen05_as_wgmma_desc(s_desc);
  unsigned int start = (unsigned int)(desc & 0x3fff) << 4, lbo = (unsigned int)(desc >> 16 & 0x3fff) << 4;
  unsigned int sbo = (unsigned int)(desc >> 32 & 0x3fff) << 4;
  int layout = (int)(desc >> 62), mode = layout == 1 ? 3 : layout == 2 ? 2 : layout == 3 ? 1 : 0;
  TensorMemory& t = tensor_memory();
  int base_lane = (int)(taddr >> 16), base_col = (int)(taddr & 0xffffu), words = bytes_of[shape] / 4;
  for (int r = 0; r < rows_of[shape]; ++r) {
    int first = shape == CP_4X256B ? 32 * r : shape == CP_64X128B_01_23 ? r / 32 * 64 + r % 32 : r;
    unsigned int row[8];
    for (int w = 0; w < words; ++w) {  // (a 4-byte word never crosses a 16-byte chunk: one address each)
      unsigned int address = swizzled(start + wgmma_offset(r, 4 * w, 1, lbo, sbo, 16 << mode, false), mode);
      memcpy(&row[w], shared_at(address), 4);
      access(shared_at(address), 4, READ);
    }
    for (int c = 0; c < copies_of[shape]; ++c) {
      int lane = base_lane + first + c * stride_of[shape];
      if (lane >= 128) protocol_error(847, "tcgen05.cp: lane " + std::to_string(lane) + " is outside tensor memory");
      for (int w = 0; w < words; ++w)
        if (base_col + w >= 512 || !t.allocated[base_col + w])
          protocol_error(847, "tcgen05.cp: tensor-memory column " + std::to_string(base_col + w) + " is not allocated");
      memcpy(&t.cells[lane][base_col], row, 4 * words);
      if (checker != nullptr) check_tmem_mma_row(&t.cells[lane][base_col], words);
    }
  }
}

// tcgen05.commit: the thread's MMAs and copies before it are done (they ran at issue), so the
// arrive-on happens now, on the barrier of each CTA of `cta_mask` with multicast
static inline void tcgen05_commit(const void* mbar, int cta_mask = -1) {
  if (checker != nullptr) check_tcgen05_commit(mbar);
  if (cta_mask < 0) {
    mbarrier_arrive(mbar, 1, 0, false);
    return;
  }
  for (unsigned int rank = 0; rank < 16; ++rank)
    if (cta_mask >> rank & 1) mbarrier_arrive(cluster_pointer(mbar, rank), 1, 0, false);
}

}  // namespace tirx_sim
