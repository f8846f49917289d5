// tirxc sim's runtime, compiled once into an object the kernels link against
// (transpiler/sim/build.py): the mbarrier, clusters, the asynchronous copies, the warpgroup
// rendezvous and tensor memory (the bodies of what tirx_sim_ptx.h, tirx_sim_cluster.h,
// tirx_sim_tma.h, tirx_sim_wgmma.h and tirx_sim_tcgen05.h declare).
#include "tirx_sim.h"

namespace tirx_sim {

// -- tirx_sim_ptx.h -----------------------------------------------------------------------
Mbarrier mbarrier_read(const void* address, const char* what) {
  unsigned long long w;
  memcpy(&w, address, 8);
  if (!(w >> 62 & 1)) protocol_error(833, std::string(what) + " on an mbarrier that was not initialised (mbarrier.init)");
  Mbarrier m{(unsigned long long*)address, (int)(w & 1), 0, (int)(w >> 22 & 0xfffff), (int)(w >> 42 & 0xfffff)};
  int tx = (int)(w >> 1 & 0x1fffff);
  m.tx = tx & 0x100000 ? tx - 0x200000 : tx;
  return m;
}

static void mbarrier_write(const Mbarrier& m) {
  unsigned long long w = (unsigned long long)(m.phase & 1) | ((unsigned long long)(m.tx & 0x1fffff) << 1) |
                         ((unsigned long long)m.pending << 22) | ((unsigned long long)m.expected << 42) | (1ull << 62);
  memcpy(m.word, &w, 8);
}

// the phase completes when every expected arrival came and every expected byte arrived
static void mbarrier_settle(Mbarrier& m) {
  if (m.pending == 0 && m.tx < 0)
    protocol_error(835, "mbarrier: " + std::to_string(-m.tx) + " transaction bytes more than expect_tx announced");
  if (m.pending == 0 && m.tx == 0) {
    m.phase ^= 1;
    m.pending = m.expected;
    if (checker != nullptr) check_mbarrier_phase(m.word);
  }
  mbarrier_write(m);
}

void mbarrier_init(const void* address, unsigned int count) {
  if (count < 1 || count > 0xfffff) fail("mbarrier.init with the arrival count " + std::to_string(count));
  Mbarrier m{(unsigned long long*)address, 0, 0, (int)count, (int)count};
  mbarrier_write(m);
  if (checker != nullptr) check_mbarrier_init(address);
}

unsigned long long mbarrier_arrive(const void* address, unsigned int count, long long tx, bool drop) {
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

void mbarrier_tx(const void* address, long long tx) {  // expect_tx (+) / complete_tx (-)
  Mbarrier m = mbarrier_read(address, "mbarrier.expect_tx / complete_tx");
  m.tx += (int)tx;
  mbarrier_settle(m);
}

unsigned int mbarrier_try_wait_parity(const void* address, unsigned int parity, bool yield) {
  if (yield) spin_point();
  Mbarrier m = mbarrier_read(address, "mbarrier.try_wait");
  bool done = (m.phase & 1) != (int)(parity & 1);
  if (done && checker != nullptr) check_mbarrier_waited(address);
  return (unsigned int)done;
}

unsigned int elect_one_of(unsigned int mask) {
  unsigned int arrived = __ballot_sync(mask, 1);
  return (unsigned int)(current_fiber->linear % 32 == __builtin_ctz(arrived));
}

// -- tirx_sim_cluster.h -------------------------------------------------------------------
Block* cluster_block(unsigned int rank, const char* what) {
  Cluster* c = current_block->cluster;
  if (rank >= c->blocks.size())
    fail(std::string(what) + ": CTA rank " + std::to_string(rank) + " is not in the cluster of " +
         std::to_string(c->blocks.size()));
  return c->blocks[rank];
}

unsigned int cluster_address(const void* p, unsigned int rank) {
  cluster_block(rank, "mapa");
  return (rank + 1) << CLUSTER_RANK_SHIFT | shared_offset(p);
}

void* cluster_pointer(const void* p, unsigned int rank) {
  return cluster_block(rank, "mapa")->shared + shared_offset(p);
}

void* cluster_shared_at(unsigned int address) {
  unsigned int rank = address >> CLUSTER_RANK_SHIFT;
  unsigned int offset = address & ((1u << CLUSTER_RANK_SHIFT) - 1);
  return (rank == 0 ? current_block : cluster_block(rank - 1, "a shared::cluster address"))->shared + offset;
}

static int cluster_live() {
  int live = 0;
  for (Block* b : current_block->cluster->blocks) live += b->live;
  return live;
}

void cluster_arrive(bool release) {
  Cluster* c = current_block->cluster;
  unsigned int& mine = c->arrived_in[(size_t)current_block->rank * current_block->fibers.size() + current_fiber->linear];
  if (mine == c->barrier_phase + 1) fail("barrier.cluster.arrive twice in one phase (no wait between)");
  mine = c->barrier_phase + 1;
  ++c->barrier_arrived;
  if (checker != nullptr) check_cluster_arrive(release);  // (tirx_sim_cluster_check.h)
}

void cluster_wait() {
  Cluster* c = current_block->cluster;
  unsigned int& mine = c->arrived_in[(size_t)current_block->rank * current_block->fibers.size() + current_fiber->linear];
  if (mine == 0) fail("barrier.cluster.wait without an arrive before it");
  unsigned int phase = mine - 1;
  while (c->barrier_phase == phase) {
    if (c->barrier_arrived >= cluster_live()) {  // (threads that ended count as arrived)
      if (checker != nullptr) check_cluster_phase();
      c->barrier_arrived = 0;
      ++c->barrier_phase;
      break;
    }
    spin_point();
  }
  mine = 0;
  if (checker != nullptr) check_cluster_waited();
}

unsigned int cluster_register(const char* name, int axis) {
  const Block* b = current_block;
  const dim3 c = b->launch->cluster;
  unsigned int dims[3] = {c.x, c.y, c.z};
  unsigned int block[3] = {b->block_idx.x, b->block_idx.y, b->block_idx.z};
  unsigned int grid[3] = {b->launch->grid.x, b->launch->grid.y, b->launch->grid.z};
  std::string n = name;
  if (n == "clusterid") return block[axis] / dims[axis];
  if (n == "nclusterid") return grid[axis] / dims[axis];
  if (n == "cluster_ctaid") return block[axis] % dims[axis];
  if (n == "cluster_nctaid") return dims[axis];
  if (n == "cluster_ctarank") return (unsigned int)b->rank;
  if (n == "cluster_nctarank") return c.x * c.y * c.z;
  return c.x * c.y * c.z > 1;  // is_explicit_cluster
}

// -- tirx_sim_tma.h -----------------------------------------------------------------------
void cp_async_copy(void* dst, const void* src, unsigned int bytes, unsigned int read) {
  static const unsigned char zeros[16] = {0};
  AsyncEvent group{Completion::CP_ASYNC_GROUP, nullptr};
  if (read > bytes) read = bytes;
  if (read) async_move(dst, src, read, group);
  if (bytes > read) async_move((char*)dst + read, nullptr, bytes - read, group, zeros);
}

static TensorMap tensor_map_at(unsigned long long address, int rank, const char* what) {
  TensorMap m;
  memcpy(&m, (const void*)address, sizeof m);
  if (m.valid != 1) fail(std::string(what) + ": the operand is not a tensor map the launch encoded");
  if (m.rank != rank)
    fail(std::string(what) + " names " + std::to_string(rank) + " coordinates, the tensor map has rank " +
         std::to_string(m.rank));
  if (m.interleave != 0) fail(std::string(what) + ": not supported yet by tirxc sim: interleaved tensor maps");
  if (m.swizzle > 3) fail(std::string(what) + ": not supported yet by tirxc sim: swizzle mode " +
                          std::to_string(m.swizzle));
  return m;
}

// What an OOB element reads as: zeros, or (OOB fill 1 on a float type) the canonical NaN.
static void oob_pattern(const TensorMap& m, unsigned char* out) {
  memset(out, 0, 8);
  if (m.oob_fill != 1) return;
  unsigned long long nan = 0;
  switch (m.data_type) {
    case 6: case 9: nan = 0x7fffull; break;          // FLOAT16, BFLOAT16
    case 7: case 10: case 11: case 12: nan = 0x7fffffffull; break;  // FLOAT32 (FTZ), TFLOAT32 (FTZ)
    case 8: nan = 0x7fffffffffffffffull; break;      // FLOAT64
    default: return;
  }
  memcpy(out, &nan, m.element_bytes);
}

static unsigned int tensor_box_bytes(const TensorMap& m) {
  unsigned int bytes = m.element_bytes;
  for (int i = 0; i < m.rank; ++i) bytes *= (m.box[i] + m.element_strides[i] - 1) / m.element_strides[i];
  return bytes;
}

static void check_box_destination(unsigned int offset, const TensorMap& m, const char* what) {
  unsigned int align = m.swizzle ? 128u : 16u;  // (the 1024-byte span of a swizzle is the caller's to keep)
  if (offset % align) fail(std::string(what) + ": the shared address " + std::to_string(offset) +
                           " is not aligned to " + std::to_string(align) + " bytes");
}

void tma_load(void* dst, unsigned long long map, const int* coords, int rank, const void* mbar, int cta_mask) {
  const char* what = "cp.async.bulk.tensor (load)";
  TensorMap m = tensor_map_at(map, rank, what);
  unsigned int base = shared_offset(dst), barrier = shared_offset(mbar);
  check_box_destination(base, m, what);
  unsigned char fill[8];
  oob_pattern(m, fill);
  for (int cta = 0; cta < 16; ++cta) {
    if (cta_mask < 0 ? cta > 0 : !(cta_mask >> cta & 1)) continue;
    Block* into = cta_mask < 0 ? current_block : cluster_block((unsigned int)cta, "cp.async.bulk.tensor .multicast");
    const void* bar = into->shared + barrier;
    AsyncEvent done{Completion::MBARRIER, bar};
    tensor_box(m, coords, [&](unsigned int offset, const char* global) {
      async_move(into->shared + swizzled(base + offset, m.swizzle), global, m.element_bytes, done, fill);
    });
    mbarrier_tx(bar, -(long long)tensor_box_bytes(m));
  }
}

void tma_store(unsigned long long map, const int* coords, int rank, const void* src) {
  const char* what = "cp.async.bulk.tensor (store)";
  TensorMap m = tensor_map_at(map, rank, what);
  unsigned int base = shared_offset(src);
  check_box_destination(base, m, what);
  AsyncEvent group{Completion::BULK_GROUP, nullptr};
  tensor_box(m, coords, [&](unsigned int offset, const char* global) {
    if (global != nullptr) async_move((void*)global, shared_at(swizzled(base + offset, m.swizzle)), m.element_bytes, group);
  });
}

void tma_reduce(unsigned long long map, const int* coords, int rank, const void* src, char op) {
  const char* what = "cp.reduce.async.bulk.tensor";
  TensorMap m = tensor_map_at(map, rank, what);
  bool floating = m.data_type == 6 || m.data_type == 7 || m.data_type == 9;
  bool integral = m.data_type >= 2 && m.data_type <= 5;  // u32, s32, u64, s64
  if (!integral && !(floating && (op == '+' || op == '<' || op == '>')))
    fail(std::string(what) + ": not supported yet by tirxc sim for this element type and operation");
  unsigned int base = shared_offset(src);
  check_box_destination(base, m, what);
  AsyncEvent group{Completion::BULK_GROUP, nullptr};
  tensor_box(m, coords, [&](unsigned int offset, const char* global) {
    if (global == nullptr) return;
    unsigned char value[8];
    async_read(value, shared_at(swizzled(base + offset, m.swizzle)), m.element_bytes, group);
    if (m.element_bytes == 2) reduce_element<unsigned short>((void*)global, value, m, op);
    if (m.element_bytes == 4) reduce_element<unsigned int>((void*)global, value, m, op);
    if (m.element_bytes == 8) reduce_element<unsigned long long>((void*)global, value, m, op);
  });
}

void bulk_copy(void* dst, const void* src, unsigned int bytes, const void* mbar) {
  if (bytes % 16) fail("cp.async.bulk of " + std::to_string(bytes) + " bytes (a multiple of 16)");
  AsyncEvent done{mbar != nullptr ? Completion::MBARRIER : Completion::BULK_GROUP, mbar};
  async_move(dst, src, bytes, done);
  if (mbar != nullptr) mbarrier_tx(mbar, -(long long)bytes);
}

// -- tirx_sim_wgmma.h ---------------------------------------------------------------------
void warpgroup_op(GroupFn fn, void* args, const char* what) {
  struct Rendezvous {
    int arrived = 0;
    unsigned int generation = 0;
    void* args[128];
  };
  // (a block has at most 1024 threads, a cluster at most 16 blocks; one cluster per OS thread)
  static thread_local Rendezvous groups[16 * 8];
  Fiber* f = current_fiber;
  if (current_block->fibers.size() % 128)
    fail(std::string(what) + " in a block whose threads are not whole warpgroups (128 threads)");
  Rendezvous& r = groups[current_block->rank * 8 + f->linear / 128];
  r.args[f->linear % 128] = args;
  unsigned int generation = r.generation;
  if (++r.arrived == 128) {
    r.arrived = 0;
    fn(r.args);
    // the race checker: the operation is the warpgroup's, so what the last thread did for it
    // (wgmma's shared-memory reads) is ordered before each thread's next step, as an aligned
    // warpgroup instruction is (the releases of a stage that follow its wait_group)
    if (checker != nullptr) check_warpgroup(current_block, f->linear / 128);
    ++r.generation;
    return;
  }
  while (r.generation == generation) spin_point();
}

thread_local std::unique_ptr<TensorMemory> tensor_memories[16];

// -- tirx_sim_tcgen05.h -------------------------------------------------------------------
TensorMemory& tensor_memory() {
  std::unique_ptr<TensorMemory>& t = tensor_memories[current_block->rank];
  if (!t) {
    t.reset(new TensorMemory);
    memset(t->allocated, 0, sizeof t->allocated);
    t->relinquished = false;
  }
  return *t;
}

void tmem_block_start(Block* b) {
  if (checker != nullptr) check_tmem_block_start(b);
  std::unique_ptr<TensorMemory>& t = tensor_memories[b->rank];
  if (!t) return;
  memset(t->allocated, 0, sizeof t->allocated);
  t->relinquished = false;
}

std::string tmem_block_end(Block* b) {
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

static std::string columns_text(int first, int count) {
  return "columns " + std::to_string(first) + "-" + std::to_string(first + count - 1);
}

static void check_uniform(void** lanes, const char* what) {
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

void tmem_alloc(void* slot, unsigned int columns) {
  TmemAllocArgs a{slot, 0, columns};
  warp_op(tmem_alloc_op, &a);
}

void tmem_dealloc(unsigned int taddr, unsigned int columns) {
  TmemAllocArgs a{nullptr, taddr, columns};
  warp_op(tmem_dealloc_op, &a);
}

void tmem_relinquish() {
  TmemAllocArgs a{nullptr, 0, 0};
  warp_op(tmem_relinquish_op, &a);
}

void tmem_image(int shape, int l, int r, int* row, int* col) {
  switch (shape) {
    case TMEM_32X32B: *row = l; *col = r; return;
    case TMEM_16X64B: *row = l / 4 + 8 * (l % 2); *col = l / 2 % 2 + 2 * r; return;
    case TMEM_16X128B: *row = l / 4 + 8 * (r % 2); *col = l % 4 + 4 * (r / 2); return;
    default: *row = l / 4 + 8 * (r / 2 % 2); *col = r % 2 + 2 * (l % 4) + 8 * (r / 4); return;
  }
}

unsigned int* tmem_cell(unsigned int taddr, int row, int col, const char* what) {
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

void tmem_wait_ld() {
  if (checker != nullptr) check_tmem_wait_ld();
}

// (under a check wait::st is what it is on the GPU, an aligned warp instruction: its lanes meet, so
// each lane's stores are complete, and ordered, for every lane after it)
static void tmem_wait_st_op(void** lanes, unsigned int) {
  for (int l = 0; l < 32; ++l) check_tmem_wait_st(current_fiber->linear / 32 * 32 + l);
}

void tmem_wait_st() {
  if (checker != nullptr) warp_op(tmem_wait_st_op, nullptr);
}

unsigned long long tcgen05_as_wgmma_desc(unsigned long long desc) {
  int swizzle = (int)(desc >> 61);
  if (swizzle == 1) fail("tcgen05.mma: the 128-byte swizzle with 32-byte atoms is not supported yet by tirxc sim");
  if (swizzle & 1 || swizzle > 6) fail("tcgen05.mma: a matrix descriptor with the swizzle mode " + std::to_string(swizzle));
  if (desc >> 49 & 7) fail("tcgen05.mma: a matrix descriptor with a base offset is not supported yet by tirxc sim");
  if (desc >> 52 & 1) fail("tcgen05.mma: a matrix descriptor with the absolute leading-offset mode is not supported "
                           "yet by tirxc sim");
  unsigned long long layout = swizzle == 2 ? 1 : swizzle == 4 ? 2 : swizzle == 6 ? 3 : 0;
  return (desc & 0x3fff3fff3fffull) | layout << 62;
}

float tcgen05_operand(int type, unsigned long long desc, int mn, int k, bool mn_major) {
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

int tcgen05_type(int kind, int format, const char* operand) {
  if (kind == KIND_F16 && format <= 1) return format == 0 ? MMA_F16 : MMA_BF16;
  if (kind == KIND_TF32 && format == 2) return MMA_TF32;
  if (kind == KIND_F8F6F4 && format <= 1) return format == 0 ? MMA_E4M3 : MMA_E5M2;
  if (kind == KIND_I8 && format <= 1) return format == 0 ? MMA_U8 : MMA_S8;
  if (kind == KIND_F8F6F4 && format >= 3 && format <= 5)
    fail(std::string("tcgen05.mma: ") + operand + " of the fp6 / fp4 formats is not supported yet by tirxc sim");
  fail(std::string("tcgen05.mma: the instruction descriptor's ") + operand + " format " + std::to_string(format) +
       " does not belong to this kind");
}

void tcgen05_mma(int kind, unsigned int d_tmem, unsigned long long a_desc, unsigned long long b_desc, unsigned int idesc, unsigned int enable_input_d, int scale_input_d, const unsigned int* disabled_lanes) {
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

void tcgen05_cp(int shape, unsigned int taddr, unsigned long long s_desc) {
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

void tcgen05_commit(const void* mbar, int cta_mask) {
  if (checker != nullptr) check_tcgen05_commit(mbar);
  if (cta_mask < 0) {
    mbarrier_arrive(mbar, 1, 0, false);
    return;
  }
  for (unsigned int rank = 0; rank < 16; ++rank)
    if (cta_mask >> rank & 1) mbarrier_arrive(cluster_pointer(mbar, rank), 1, 0, false);
}

}  // namespace tirx_sim
