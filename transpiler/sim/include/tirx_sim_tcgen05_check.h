// tirxc sim --racecheck on tensor memory (docs/sim.md, "Race checking"): the checker's view of
// tcgen05 (the values are tirx_sim_tcgen05.h's). Each 4-byte cell of the running block's tensor
// memory has a shadow Cell like shared memory's (SPACE t in a finding: OFFSET / 4 is lane * 512 +
// column), so E0820 / E0822 / E0823 cover it. tcgen05.ld reads the cells as each lane of the warp,
// tcgen05.st writes them as each lane, pending until the warp's tcgen05.wait::st; an MMA's D is
// written by its issuing thread's async agent, pending until the mbarrier phase of the
// tcgen05.commit that follows it completes (the commit attaches the thread's uncommitted MMAs to
// its barrier), so a tcgen05.ld of D that no wait on that phase orders after the commit is reported
// with the MMA's line. A thread whose tcgen05.ld no tcgen05.wait::ld follows before its end is
// E0846 at the ld. Under --synccheck a tensor-memory access outside the warp's lanes or the
// allocated columns is E0847, an allocation error (a double free, an allocation after relinquish
// or one never satisfied, a leak) E0848 (tirx_sim_tcgen05.h reports them through protocol_error).
#pragma once

namespace tirx_sim {

// the running block's shadow (one block at a time under a check), and per thread the site of a
// tcgen05.ld not waited for (-2: none)
static thread_local std::vector<Cell> tmem_shadow;
static thread_local std::vector<int> tmem_unwaited;

static Cell* tmem_cells_of(const unsigned char* p, size_t bytes, size_t* offset) {
  std::unique_ptr<TensorMemory>& t = tensor_memories[current_block->rank];
  if (!t) return nullptr;
  const unsigned char* base = (const unsigned char*)t->cells;
  if (p < base || p + bytes > base + sizeof t->cells) return nullptr;
  if (tmem_shadow.empty()) tmem_shadow.assign((size_t)128 * 512 * current_block->cluster->blocks.size(), Cell());
  *offset = (size_t)(p - base) + sizeof t->cells * current_block->rank;  // (each CTA's cells after the lower ranks')
  return tmem_shadow.data();
}

void check_tmem_block_start(Block* b) {
  if (b->rank > 0) return;  // (a cluster's CTAs share the state made at rank 0)
  tmem_shadow.clear();
  tmem_unwaited.assign(checker->threads, -2);
}

static const char tmem_store_wait = 0;  // (the completion event of a tcgen05.st: its thread's wait::st)

// a cell of tensor memory that lane `lane` of the running warp reads (ld) or writes (st). A store
// is asynchronous: pending, as that lane's write, until the lane's tcgen05.wait::st
void check_tmem_lane_access(int lane, const unsigned int* cell, bool store) {
  if (!checker->races) return;
  int local = current_fiber->linear / 32 * 32 + lane, site = current_block->fibers[local].site;
  int thread = check_thread(current_block, local);
  if (!store) {
    Tcgen05Scope scope(1);
    access_as(thread, site, cell, 4, READ);
    tmem_unwaited[thread] = site;
    return;
  }
  size_t offset;
  Cell* cells = tmem_cells_of((const unsigned char*)cell, 4, &offset);
  checker->async.push_back(AsyncOp{thread, site, (char*)cell, 4, true, -2, TCGEN05, &tmem_store_wait, false});
  cells[offset / 4].pending = (int)checker->async.size() - 1;
}

void check_tmem_wait_ld() {
  if (!tmem_unwaited.empty()) tmem_unwaited[me()] = -2;
}

void check_tmem_wait_st(int t) {
  if (!checker->races) return;
  t = check_thread(current_block, t);
  for (size_t i = 0; i < checker->async.size(); ++i) {
    const AsyncOp& op = checker->async[i];
    if (op.thread == t && op.barrier == &tmem_store_wait && !op.done) async_complete((int)i);
  }
}

// an MMA writes `n` cells of D's row from `cell`: pending in the thread's tcgen05 group. The
// thread's MMAs run in issue order, so an earlier one's pending write of the same cells is
// superseded by this one (it would complete before it, unobserved by any wait in between).
void check_tmem_mma_row(const unsigned int* cell, int n) {
  if (!checker->races) return;
  size_t offset;
  Cell* cells = tmem_cells_of((const unsigned char*)cell, 4 * (size_t)n, &offset);
  int earlier = cells != nullptr ? cells[offset / 4].pending : -1;
  if (earlier >= 0) {
    AsyncOp& op = checker->async[earlier];
    if (op.thread == me() && op.family == TCGEN05 && op.address == (char*)cell &&
        op.bytes == 4 * (size_t)n)
      op.done = true;
  }
  async_issue(cell, 4 * (size_t)n, true, nullptr, TCGEN05);
}

// tcgen05.commit: the thread's MMAs not yet committed complete with `mbar`'s phase
void check_tcgen05_commit(const void* mbar) {
  if (!checker->races) return;
  int t = me();
  for (AsyncOp& op : checker->async)
    if (op.thread == t && op.family == TCGEN05 && op.group == -1 && !op.done) {
      op.group = -2;
      op.barrier = mbar;
    }
}

void check_tmem_block_end(Block* b) {
  if (!checker->races) return;
  for (int t = check_thread(b, 0); t < check_thread(b, (int)b->fibers.size()); ++t)
    if (tmem_unwaited[t] != -2) {  // (one finding for the block: the same line in every thread)
      thread_record(846, t, tmem_unwaited[t], -1, "tcgen05.ld not followed by tcgen05.wait::ld: its registers are "
                    "not usable until the wait (the thread ended without one)");
      return;
    }
}

// tcgen05.dealloc: the freed cells are written (by the deallocating thread), so a load or store of
// them that the dealloc is not ordered after (another warp still reading) is a race (E0820)
void check_tmem_dealloc(TensorMemory* t, unsigned int column, unsigned int n) {
  if (!checker->races) return;
  for (int lane = 0; lane < 128; ++lane) access(&t->cells[lane][column], 4 * (size_t)n, WRITE);
}

// tcgen05.alloc: the allocated cells are written (poisoned) by the allocating thread, so a tcgen05
// operation of another thread must be ordered after it by a thread sync and the after_thread_sync
// fence (the before_thread_sync fence after an alloc is not asked for: the samples' manual form
// publishes the address with the barrier and the after fence alone)
void check_tmem_alloc(TensorMemory* t, unsigned int column, unsigned int n) {
  if (!checker->races) return;
  Tcgen05Scope scope(2);
  for (int lane = 0; lane < 128; ++lane) access(&t->cells[lane][column], 4 * (size_t)n, WRITE);
}

// -- tcgen05.fence::before_thread_sync / ::after_thread_sync --------------------------------------
// A thread sync (a barrier, an mbarrier phase) orders a tcgen05 operation of one thread before one
// of another thread only with tcgen05.fence::before_thread_sync after the first (in its thread) and
// tcgen05.fence::after_thread_sync before the second (in its thread), both on the right side of the
// sync. An MMA's (or cp's) write completes at its tcgen05.commit's mbarrier phase, which stands for
// its before fence; a dealloc needs no after fence. Without them the two are unordered: E0828.
void check_tcgen05_fence(bool before) {
  if (checker == nullptr || !checker->races) return;
  int t = me();
  if (before) {
    checker->tcgen05_before[t].push_back(clock_of(t, t));
    tick(t);  // (an access after the fence is not covered by it)
    return;
  }
  Clock& seen = checker->tcgen05_after[t];
  seen.assign(checker->threads, 0);
  join_thread_into(seen, t);
}

int tcgen05_completion_kind(const AsyncOp& op) { return op.barrier == &tmem_store_wait ? 1 : 2; }

// whether `earlier` (ordered before `thread`'s access by the clocks) is ordered before it as tcgen05
// operations must be: the fences on both sides of the sync
bool tcgen05_ordered(const Access& earlier, int thread) {
  // (one warp's tcgen05 operations are the warp's, in its order: alloc, ld and st are warp-wide)
  if (earlier.thread / 32 == thread / 32 || !in_cluster(earlier.block)) return true;
  unsigned int fenced = earlier.clock;
  if (earlier.tcgen05 == 1) {  // its thread's first before_thread_sync fence after it
    const std::vector<unsigned int>& fences = checker->tcgen05_before[earlier.thread];
    auto it = std::lower_bound(fences.begin(), fences.end(), earlier.clock);
    if (it == fences.end()) return false;
    fenced = *it;
  }
  if (checker->tcgen05_op == 3) return clock_of(thread, earlier.thread) >= fenced;
  const Clock& after = checker->tcgen05_after[thread];
  return (size_t)earlier.thread < after.size() && after[earlier.thread] >= fenced;
}

void check_tmem_leak(int site, const std::string& text) {  // (at the alloc's site)
  if (checker->protocols) write_record('S', 848, site, -1, "0 " + text);
}

}  // namespace tirx_sim
