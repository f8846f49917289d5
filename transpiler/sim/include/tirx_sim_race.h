// tirxc sim --racecheck (docs/sim.md, "Race checking"): happens-before by vector clocks over a
// block's threads, joined at __syncthreads, named barriers, warp collectives, mbarrier phases and
// atomics; across blocks by release epochs passed through atomics. Shadow state per 4 bytes of
// shared and global memory (Cell) holds the last write and the reads since; an access that
// overlaps one of them, one a write, neither ordered before the other, is a finding. Blocks run
// one at a time under the checker (the global shadow is not shared between OS threads).
#pragma once

namespace tirx_sim {

// -- the checker's thread identity: (CTA rank in the cluster, linear thread) as one index --------
// (check_thread and me are tirx_sim_hooks.h's: the kernel's hooks name threads so too)
static inline int local_of(int thread) { return thread % checker->block_threads; }
static inline int linear_block_of(int thread) { return checker->cta_blocks[thread / checker->block_threads]; }
static inline Block* cta_of(int thread) { return current_block->cluster->blocks[thread / checker->block_threads]; }
// whether linear block `block` runs in the running cluster (its clocks order it)
static inline bool in_cluster(int block) {
  if (block == checker->block) return true;
  for (int b : checker->cta_blocks)
    if (b == block) return true;
  return false;
}
// the cluster of linear block `block`, by its first block (the unit of the release epochs)
static inline int cluster_of(int block) {
  const Launch* L = current_block->launch;
  const dim3 c = L->cluster;
  if (c.x * c.y * c.z == 1) return block;
  long long x = block % L->grid.x, y = block / L->grid.x % L->grid.y, z = block / ((long long)L->grid.x * L->grid.y);
  return (int)(x - x % c.x + (long long)L->grid.x * (y - y % c.y + (long long)L->grid.y * (z - z % c.z)));
}

static inline void join_into(Clock& into, const Clock& from) {
  if (into.size() < from.size()) into.resize(from.size(), 0);
  for (size_t i = 0; i < from.size(); ++i)
    if (from[i] > into[i]) into[i] = from[i];
}

// thread `u`'s clock's component of thread `t`: what `u` has seen of `t`
static inline unsigned int clock_of(int u, int t) {
  const ThreadClock& c = checker->clocks[u];
  if (c.is_private) return c.mine[t];
  return t == u ? c.own : (*c.shared)[t];
}

static inline void tick(int thread) {
  ThreadClock& c = checker->clocks[thread];
  if (c.is_private)
    ++c.mine[thread];
  else
    ++c.own;
}

// `into` joined with thread u's clock
static inline void join_thread_into(Clock& into, int u) {
  const ThreadClock& c = checker->clocks[u];
  if (c.is_private) {
    join_into(into, c.mine);
    return;
  }
  join_into(into, *c.shared);
  if (c.own > into[u]) into[u] = c.own;
}

// thread u's clock joined with `from` (u acquires it)
static inline void acquire_into_thread(int u, const Clock& from) {
  ThreadClock& c = checker->clocks[u];
  if (!c.is_private) {
    c.mine = *c.shared;
    c.mine[u] = c.own;
    c.is_private = true;
  }
  join_into(c.mine, from);
}

static inline Access access_now(int thread, int site) {
  Access a;
  a.thread = thread;
  a.clock = clock_of(thread, thread);
  a.site = site;
  a.block = checker->cta_blocks.size() > 1 ? linear_block_of(thread) : checker->block;
  a.epoch = checker->epoch;
  a.tcgen05 = (unsigned char)checker->tcgen05_op;
  return a;
}

// whether `a` happened before what `thread` of the running block does now
static inline bool ordered_before(const Access& a, int thread) {
  if (a.thread < 0) return true;
  if (!in_cluster(a.block)) {
    auto it = checker->imported.find(cluster_of(a.block));
    return it != checker->imported.end() && it->second >= a.epoch;
  }
  return clock_of(thread, a.thread) >= a.clock;
}

// One finding line (tirx_sim_check.h gives the format), each (code, site, site0) once; `b`: the
// block of the thread it names.
static inline void write_record(char kind, int code, int site, int site0, const std::string& rest,
                                const Block* b = current_block) {
  if (checker->out == nullptr || checker->records >= MAX_FINDINGS) return;
  if (!checker->reported.insert(std::make_tuple(code, std::min(site, site0), std::max(site, site0))).second) return;
  ++checker->records;
  fprintf(checker->out, "%c E%04d %d %d %u %u %u %s\n", kind, code, site, site0, b->block_idx.x, b->block_idx.y,
          b->block_idx.z, rest.c_str());
  fflush(checker->out);
}

// A finding line of `thread` (the checker's index: its block and its thread in it are printed).
static inline void thread_record(int code, int thread, int site, int site0, const std::string& text) {
  write_record('S', code, site, site0, std::to_string(local_of(thread)) + " " + text, cta_of(thread));
}

// the code of a race with an access of linear block `earlier`: another thread of the block (E0820),
// another CTA of the cluster (E0827), another block (E0821)
static inline int race_code(int earlier, int thread) {
  if (!in_cluster(earlier)) return 821;
  return checker->cta_blocks.size() > 1 && earlier != linear_block_of(thread) ? 827 : 820;
}

static inline void race_found(int code, int thread, int site, const Access& earlier, char space, size_t offset,
                              long long element, int kind, char earlier_kind) {
  char text[160];
  if (space == 's') offset %= 4 * checker->shared_cells_per_cta;  // (the offset in its CTA's area)
  if (space == 't') offset %= 4 * 128 * 512;
  snprintf(text, sizeof text, "%d %d %d %c %zu %lld %c %c", local_of(thread), earlier.block, local_of(earlier.thread),
           space, offset, element, "rwaa"[kind], earlier_kind);
  write_record('R', code, site, earlier.site, text, cta_of(thread));
}

// An access of bytes an unfinished async operation (cells' `pending`) writes, or writes bytes it
// reads: E0822 (a read of bytes it has yet to write) or E0823.
static inline void pending_conflict(const Cell& c, const void* p, size_t bytes, int kind, int thread, int site,
                                    char space, size_t offset, long long element) {
  if (c.pending < 0) return;
  const AsyncOp& op = checker->async[c.pending];
  bool unfinished = !op.done;  // (done: the first wait that retires it)
  if (op.family == WGMMA && op.thread == thread - thread % 128)  // its warpgroup's threads: until their own wait
    unfinished = op.group < 0 || op.group >= checker->registers[thread].retired;
  bool overlaps = (const char*)p < op.address + op.bytes && op.address < (const char*)p + bytes;
  bool reads = kind == READ || kind == ATOMIC_LOAD;
  if (!unfinished || !overlaps || !(op.write || !reads)) return;
  Access issued;
  issued.thread = op.thread;
  issued.site = op.site;
  issued.block = checker->cta_blocks.size() > 1 ? linear_block_of(op.thread) : checker->block;
  race_found(op.write && reads ? 822 : 823, thread, site, issued, space, offset, element, kind,
             op.write ? 'w' : 'r');
}

static Cell* tmem_cells_of(const unsigned char* p, size_t bytes, size_t* offset);  // tirx_sim_tcgen05_check.h

// The shadow cells of [p, p + bytes), or null when the bytes are in neither shared, global nor
// tensor memory.
static inline Cell* cells_of(const void* p, size_t bytes, char* space, size_t* offset) {
  const unsigned char* c = (const unsigned char*)p;
  const Block* b = current_block;
  if (c >= (const unsigned char*)b->shared && c + bytes <= (const unsigned char*)b->shared + b->launch->shared_bytes) {
    *space = 's';
    *offset = (size_t)(c - (const unsigned char*)b->shared) + 4 * checker->shared_cells_per_cta * b->rank;
    return checker->shared_cells.data();
  }
  for (const Block* o : b->cluster->blocks)  // (distributed shared memory: another CTA's, by its rank)
    if (o != b && c >= (const unsigned char*)o->shared && c + bytes <= (const unsigned char*)o->shared + o->launch->shared_bytes) {
      *space = 's';
      *offset = (size_t)(c - (const unsigned char*)o->shared) + 4 * checker->shared_cells_per_cta * o->rank;
      return checker->shared_cells.data();
    }
  if (c >= checker->global_base && c + bytes <= checker->global_base + checker->global_bytes) {
    *space = 'g';
    *offset = (size_t)(c - checker->global_base);
    return checker->global_cells.data();
  }
  if (Cell* cells = tmem_cells_of(c, bytes, offset)) {
    *space = 't';
    return cells;
  }
  return nullptr;
}

// One access of `thread` (of the running block) from `site`: `base` and `element_bytes` name the
// buffer it goes through (for the element a finding names; null: unknown).
void access_as(int thread, int site, const void* p, size_t bytes, int kind, const void* base,
               size_t element_bytes) {
  if (checker == nullptr || !checker->races || bytes == 0) return;
  char space;
  size_t offset;
  Cell* cells = cells_of(p, bytes, &space, &offset);
  if (cells == nullptr) return;
  long long element = base != nullptr ? ((const char*)p - (const char*)base) / (long long)element_bytes : -1;
  if (space == 's' && checker->cta_blocks.size() > 1) check_remote_access(thread, site, offset);
  for (size_t w = offset / 4; w <= (offset + bytes - 1) / 4; ++w) {
    Cell& c = cells[w];
    // the bytes of this cell the access touches: accesses of other bytes of it do not conflict
    size_t low = std::max(offset, w * 4) - w * 4, high = std::min(offset + bytes, w * 4 + 4) - w * 4;
    unsigned char mine = (unsigned char)(((1u << high) - 1) & ~((1u << low) - 1));
    pending_conflict(c, p, bytes, kind, thread, site, space, w * 4, element);
    const Access& w0 = c.write;
    bool both_atomic = (kind == ATOMIC || kind == ATOMIC_LOAD) && c.write_atomic;
    if (w0.thread >= 0 && (w0.bytes & mine) && !both_atomic && !ordered_before(w0, thread)) {
      race_found(race_code(w0.block, thread), thread, site, w0, space, w * 4, element, kind, c.write_atomic ? 'a' : 'w');
    } else if (w0.thread >= 0 && (w0.bytes & mine) && checker->tcgen05_op && !tcgen05_ordered(w0, thread)) {
      race_found(828, thread, site, w0, space, w * 4, element, kind, 'w');
    }
    if (kind == READ || kind == ATOMIC_LOAD) {
      // reads ordered before this one are covered by it; of the other blocks' reads one is kept
      // (any write of this block races with each of them alike). They are dropped when the list
      // has doubled since the last time, so a read costs O(1) amortised
      std::vector<Access>& reads = c.reads;
      Access now = access_now(thread, site);
      now.bytes = mine;
      now.atomic = kind == ATOMIC_LOAD;
      if (reads.size() < c.compact_at) {
        reads.push_back(now);
        continue;
      }
      size_t keep = 0;
      int other = -1;
      for (size_t i = 0; i < reads.size(); ++i) {
        if (ordered_before(reads[i], thread)) continue;
        if (!in_cluster(reads[i].block)) {
          if (other >= 0) continue;
          other = (int)keep;
        }
        reads[keep++] = reads[i];
      }
      reads.resize(keep);
      reads.push_back(now);
      c.compact_at = (unsigned int)std::max<size_t>(8, 2 * reads.size());
      continue;
    }
    for (const Access& r : c.reads)
      if ((r.bytes & mine) && !(kind == ATOMIC && r.atomic) && !ordered_before(r, thread)) {
        race_found(race_code(r.block, thread), thread, site, r, space, w * 4, element, kind, 'r');
        break;
      } else if ((r.bytes & mine) && checker->tcgen05_op && !tcgen05_ordered(r, thread)) {
        race_found(828, thread, site, r, space, w * 4, element, kind, 'r');
        break;
      }
    // the reads of the bytes written are settled; the cell keeps one write (of these bytes)
    size_t keep = 0;
    for (size_t i = 0; i < c.reads.size(); ++i)
      if (!(c.reads[i].bytes & mine)) c.reads[keep++] = c.reads[i];
    c.reads.resize(keep);
    c.write = access_now(thread, site);
    c.write.bytes = mine;
    c.write_atomic = kind == ATOMIC;
    c.write_async = checker->async_writing;
    c.written_at = checker->fence_time;
  }
}

// A fence of GPU scope (__threadfence, fence.sc / fence.acq_rel.gpu, membar.gl; a release
// atomic's own): the block's accesses so far are what its next atomics release to other blocks.
void check_thread_fence() {
  if (checker == nullptr) return;
  checker->fenced_epoch = checker->epoch++;
  check_cluster_fence();  // (a release a later barrier.cluster.arrive.relaxed carries)
}

// An atomic operation on `p` (and the acquire / release semantics of ld.acquire, st.release ...):
// acq_rel on the location in the block, by vector clocks. Across blocks, by epochs, it acquires
// what other blocks released there and releases what this block did before its last GPU-scope
// fence (a relaxed atomic alone publishes nothing: the partial a block writes before drawing a
// ticket is ordered for the last block only by the fence between them).
void atomic_sync(const void* p, size_t bytes, bool load) {
  if (checker == nullptr) return;
  int t = me();
  access_as(t, current_fiber->site, p, bytes, load ? ATOMIC_LOAD : ATOMIC);
  Clock& location = checker->location_clocks[p];
  if (!location.empty()) acquire_into_thread(t, location);
  join_thread_into(location, t);
  tick(t);
  char space;
  size_t offset;
  if (cells_of(p, bytes, &space, &offset) != nullptr && space == 'g') {
    std::map<int, unsigned int>& epochs = checker->location_epochs[p];
    for (auto& e : epochs)
      if (e.first != checker->block && checker->imported[e.first] < e.second) checker->imported[e.first] = e.second;
    for (auto& e : checker->imported)
      if (epochs[e.first] < e.second) epochs[e.first] = e.second;
    unsigned int& released = epochs[checker->block];
    if (released < checker->fenced_epoch) released = checker->fenced_epoch;
  }
}

// -- asynchronous agents ------------------------------------------------------------------------
// The entry point for every async memory effect (cp.async here; TMA, wgmma, tcgen05 call it the
// same way): `write` or read of [p, p + bytes) by the running thread's async agent, which
// completes at `barrier`'s next phase (an mbarrier's address) or, with `barrier` null, at the
// cp.async wait_group / wait_all that retires the thread's current group. Call it before the
// complete_tx that completes its phase (an instantaneous copy may complete it at once). Until
// then a read of bytes it writes is E0822 and a write of bytes it reads or writes is E0823; at
// completion its write is an access of the issuing thread from the issuing site, ordered
// before the waits that observe the phase.
void async_issue(const void* p, size_t bytes, bool write, const void* barrier, int family) {
  if (checker == nullptr || bytes == 0) return;
  if (barrier != nullptr) check_proxy_barrier(barrier);  // (--synccheck's: E0838)
  if (!checker->races) return;
  int t = me();
  if (!write) {
    if (family == BULK) check_proxy_read(p, bytes);  // (a TMA store's or bulk copy's source)
    access_as(t, current_fiber->site, p, bytes, READ);
  }
  char space;
  size_t offset;
  Cell* cells = cells_of(p, bytes, &space, &offset);
  if (cells == nullptr) return;
  // an async write (a TMA refill) of bytes another async operation still reads or writes (a
  // wgmma not yet retired by its wait_group) conflicts at issue: its write lands while they read
  if (write)
    for (size_t w = offset / 4; w <= (offset + bytes - 1) / 4; ++w)
      pending_conflict(cells[w], p, bytes, WRITE, t, current_fiber->site, space, w * 4, -1);
  checker->async.push_back(
      AsyncOp{t, current_fiber->site, (char*)p, bytes, write, barrier ? -2 : -1, family, barrier, false});
  int index = (int)checker->async.size() - 1;
  for (size_t w = offset / 4; w <= (offset + bytes - 1) / 4; ++w) cells[w].pending = index;
}

static void async_complete(int index) {
  AsyncOp& op = checker->async[index];
  if (op.done) return;
  op.done = true;
  if (op.bytes == 0 || op.family == WGMMA) return;  // (a wgmma's cells stay marked: pending_conflict)
  char space;
  size_t offset;
  Cell* cells = cells_of(op.address, op.bytes, &space, &offset);
  if (cells == nullptr) return;
  for (size_t w = offset / 4; w <= (offset + op.bytes - 1) / 4; ++w)
    if (cells[w].pending == index) cells[w].pending = -1;
  if (!op.write) return;
  checker->async_writing = op.family != CP_ASYNC;  // (cp.async writes through the generic proxy)
  int outer = checker->tcgen05_op;
  if (op.family == TCGEN05) checker->tcgen05_op = tcgen05_completion_kind(op);
  access_as(op.thread, op.site, op.address, op.bytes, WRITE);
  checker->tcgen05_op = outer;
  checker->async_writing = false;
}

// cp.async's copy: the source is read now, the destination written at the wait
void check_cp_async(const void* dst, const void* src, size_t read, size_t bytes) {
  if (checker == nullptr) return;
  access_as(me(), current_fiber->site, src, read, READ);
  async_issue(dst, bytes, true);
}

// whose async operations a thread's commit / wait_group retire: its own, or for wgmma (a warpgroup
// operation, each of whose threads commits and waits alike) its warpgroup's first thread's
static inline int async_owner(int thread, int family) { return family == WGMMA ? thread - thread % 128 : thread; }

void check_async_commit(int family) {
  if (checker == nullptr || !checker->races) return;
  int t = me(), owner = async_owner(t, family);
  long long group = checker->groups[t * ASYNC_FAMILIES + family]++;
  for (AsyncOp& op : checker->async)
    if (op.thread == owner && op.family == family && op.group == -1 && !op.done) op.group = group;
  if (family == WGMMA)
    for (PendingRegisters& r : checker->registers[t].pending)
      if (r.group == -1) r.group = group;
}
void check_cp_async_commit() { check_async_commit(CP_ASYNC); }

// wait_group N (N < 0: wait_all): every group of the thread's family but the newest N has completed
void check_async_wait(int newest, int family) {
  if (checker == nullptr || !checker->races) return;
  int t = me(), owner = async_owner(t, family);
  long long limit = checker->groups[t * ASYNC_FAMILIES + family] - (newest < 0 ? 0 : newest);
  for (size_t i = 0; i < checker->async.size(); ++i) {
    const AsyncOp& op = checker->async[i];
    if (op.thread == owner && op.family == family && !op.done && op.group != -2 &&
        (newest < 0 || (op.group >= 0 && op.group < limit)))
      async_complete((int)i);
  }
  if (family == WGMMA) {
    if (limit > checker->registers[t].retired) checker->registers[t].retired = limit;
    std::vector<PendingRegisters>& pending = checker->registers[t].pending;
    size_t keep = 0;
    for (size_t i = 0; i < pending.size(); ++i)
      if (!(pending[i].group >= 0 && pending[i].group < limit)) pending[keep++] = pending[i];
    pending.resize(keep);
  }
}
void check_cp_async_wait(int newest) { check_async_wait(newest, CP_ASYNC); }

// the async effects that complete with an mbarrier's phase: their writes are ordered before
// the waits that observe the phase (the issuing thread's clock joins the phase's `arrivals`)
static inline void async_complete_barrier(const void* barrier, Clock& arrivals) {
  for (size_t i = 0; i < checker->async.size(); ++i) {
    const AsyncOp& op = checker->async[i];
    if (op.group != -2 || op.barrier != barrier || op.done) continue;
    async_complete((int)i);
    if (arrivals.empty()) arrivals.assign(checker->threads, 0);
    join_thread_into(arrivals, op.thread);
  }
}

// ldmatrix / stmatrix: each lane's row address, 16 bytes (matrix j's row r is lane 8j + r's)
void check_matrix_rows(void** lanes, int matrices, bool store) {
  if (checker == nullptr) return;
  int warp = current_fiber->linear / 32;
  for (int l = 0; l < 8 * matrices; ++l) {
    const void* row = *(const void* const*)lanes[l];
    int thread = warp * 32 + l;
    access_as(check_thread(current_block, thread), current_block->fibers[thread].site, row, 16, store ? WRITE : READ);
  }
}

// -- joins at the scheduler's synchronisation points ----------------------------------------------
// A block starts. The CTAs of a cluster start in rank order and share one state, made at rank 0:
// their threads are one clock space, their shared memory one shadow (a CTA's cells after the
// lower ranks'), their mbarriers one table.
void check_block_start(Block* b) {
  const Launch* L = b->launch;
  int linear = (int)(b->block_idx.x + (long long)L->grid.x * (b->block_idx.y + (long long)L->grid.y * b->block_idx.z));
  for (Fiber& f : b->fibers) f.site = -1;
  if (b->rank > 0) {
    checker->cta_blocks[b->rank] = linear;
    return;
  }
  int ctas = (int)b->cluster->blocks.size();
  checker->block_threads = ctas > 1 ? ((int)b->fibers.size() + 127) / 128 * 128 : (int)b->fibers.size();
  checker->cta_blocks.assign(ctas, linear);
  int n = checker->threads = checker->block_threads * ctas;
  checker->block = linear;
  checker->epoch = 1;
  checker->fenced_epoch = 0;
  checker->imported.clear();
  std::shared_ptr<const Clock> zero = std::make_shared<const Clock>(n, 0);
  checker->clocks.assign(n, ThreadClock());
  for (ThreadClock& c : checker->clocks) c.shared = zero;
  checker->shared_cells_per_cta = (L->shared_bytes + 3) / 4 + 1;
  checker->shared_cells.assign(checker->shared_cells_per_cta * ctas, Cell());
  checker->location_clocks.clear();
  checker->async.clear();
  checker->groups.assign((size_t)n * ASYNC_FAMILIES, 0);
  checker->mbarriers.clear();
  checker->registers.assign(n, RegisterChecks());
  checker->fences.assign(n, std::vector<ProxyFence>());
  checker->open_wgmma = -1;
  checker->named.assign((size_t)16 * ctas, Clock());
  checker->cluster_arrivals.clear();
  checker->cluster_released.clear();
  checker->cluster_fenced.assign(ctas > 1 ? n : 0, Clock());
  checker->remote.assign(ctas > 1 ? ctas : 0, std::vector<std::pair<unsigned int, int>>(n, {0u, -1}));
  checker->tcgen05_before.assign(n, std::vector<unsigned int>());
  checker->tcgen05_after.assign(n, Clock());
}

static void join_all(Block*, std::vector<int>& threads, const Clock* extra) {
  Clock joined(checker->threads, 0);
  if (extra != nullptr) join_into(joined, *extra);
  const Clock* last_shared = nullptr;  // threads that share a clock join it once
  for (int t : threads) {
    const ThreadClock& c = checker->clocks[t];
    if (c.is_private) {
      join_into(joined, c.mine);
    } else {
      if (c.shared.get() != last_shared) join_into(joined, *c.shared);
      last_shared = c.shared.get();
      if (c.own > joined[t]) joined[t] = c.own;
    }
  }
  std::shared_ptr<const Clock> shared = std::make_shared<const Clock>(std::move(joined));
  for (int t : threads) {
    ThreadClock& c = checker->clocks[t];
    c.own = (*shared)[t] + 1;
    c.shared = shared;
    c.is_private = false;
    c.mine.clear();
  }
}

// the threads a barrier releases: __syncthreads' waiters, or named barrier `id`'s and the last arriver
void check_barrier_release(Block* b, bool named, int id) {
  std::vector<int> threads;
  for (Fiber& f : b->fibers)
    if (f.wait == Wait::BARRIER && (named ? f.kind == 3 && f.operand_b == id : f.kind != 3))
      threads.push_back(check_thread(b, f.linear));
  if (named) {
    threads.push_back(me());
    Clock& arrived = checker->named[b->rank * 16 + id];
    join_all(b, threads, &arrived);
    arrived.clear();
  } else {
    join_all(b, threads, nullptr);
  }
}

void check_named_arrive(Block* b, Fiber* f, int id) {
  Clock& arrived = checker->named[b->rank * 16 + id];
  if (arrived.empty()) arrived.assign(checker->threads, 0);
  join_thread_into(arrived, check_thread(b, f->linear));
  tick(check_thread(b, f->linear));
}

// the 128 threads of a warpgroup operation (wgmma), joined after the operation is done
void check_warpgroup(Block* b, int warpgroup) {
  std::vector<int> threads;
  for (int t = warpgroup * 128; t < warpgroup * 128 + 128; ++t) threads.push_back(check_thread(b, t));
  join_all(b, threads, nullptr);
}

void check_collective(Block* b, int warp, unsigned int mask) {
  std::vector<int> threads;
  for (int l = 0; l < 32; ++l)
    if (mask >> l & 1) threads.push_back(check_thread(b, warp * 32 + l));
  join_all(b, threads, nullptr);
}

}  // namespace tirx_sim
