// tirxc sim: blocks, their fibers and the scheduler (docs/sim.md, "The engine"). Each block
// runs on one OS thread; its threads are fibers that run until a scheduling point (a
// barrier, a warp collective, __activemask, the end), round-robin in thread order.
#pragma once
#include <algorithm>
#include <atomic>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace tirx_sim {

enum class Wait { RUN, BARRIER, COLLECTIVE, ACTIVEMASK, DONE };

struct Fiber {
  Context context;
  char* stack = nullptr;
  uint3 thread_idx{0, 0, 0};
  int linear = 0;
  Wait wait = Wait::RUN;
  // what it waits at: a barrier's id, a collective's kind and mask, an __activemask site
  int kind = 0;
  unsigned int mask = 0;
  unsigned long long operand = 0;
  int operand_b = 0;
  int width = 32;
  unsigned long long result = 0;
  void* fn = nullptr;  // a warp operation's function (tirx_sim_ops.h warp_op)
  bool spun = false;  // it last stopped at a spin point (a poll that found nothing)
  int site = -1;  // with a check on: the site (codegen/cuda_sim.py) of the call it last made
};

struct NamedBarrier {  // bar.sync / bar.arrive with a thread count (ids 1-15 and counted id 0)
  int arrived = 0;
  int expected = 0;
};

struct Launch {
  void (*body)(const void* args) = nullptr;
  const void* args = nullptr;
  dim3 grid{1, 1, 1}, block{1, 1, 1};
  dim3 cluster{1, 1, 1};  // blocks per cluster (__cluster_dims__): its blocks run as one scheduler's fibers
  size_t shared_bytes = 0;
  long long block_limit = -1;  // --grid-limit: run only the first N blocks
  long long step_limit = 0;    // scheduling points per block, 0: no limit
  int jobs = 1;
  size_t stack_bytes = 64 * 1024;
  int schedule = 0;  // the order of each pass: 0 thread order, 1 reverse, else seeded random (--schedules)
  unsigned long long seed = 0;
};

struct Block;
struct Cluster {  // the blocks of one cluster, run together (tirx_sim_cluster.h: barriers, addresses)
  std::vector<Block*> blocks;
  unsigned int barrier_phase = 0;  // barrier.cluster: completed phases
  int barrier_arrived = 0;
  std::vector<unsigned int> arrived_in;  // per thread of the cluster: the phase it arrived in, plus one
};

struct Block {
  const Launch* launch = nullptr;
  Cluster* cluster = nullptr;
  int rank = 0;  // %cluster_ctarank
  uint3 block_idx{0, 0, 0};
  std::vector<Fiber> fibers;
  Context scheduler;
  char* shared = nullptr;
  long long steps = 0;
  int live = 0;        // threads that have not ended
  int at_barrier = 0;  // threads waiting at __syncthreads
  NamedBarrier named[16];
  std::string error;  // set by a fiber: the block stops at the next switch
};

static thread_local Block* current_block = nullptr;
static void tmem_block_start(Block* b);         // tensor memory (tirx_sim_tcgen05.h)
static std::string tmem_block_end(Block* b);
static thread_local Fiber* current_fiber = nullptr;

static std::atomic<bool> failed{false};
static void (*worker_start)() = nullptr;  // run by each OS thread that runs blocks (signal stacks)
static std::mutex error_lock;
static std::string first_error;

static inline std::string where(const Block* b, const Fiber* f) {
  char text[160];
  if (f != nullptr)
    snprintf(text, sizeof text, "block (%u, %u, %u) thread (%u, %u, %u) (warp %d, lane %d)", b->block_idx.x,
             b->block_idx.y, b->block_idx.z, f->thread_idx.x, f->thread_idx.y, f->thread_idx.z, f->linear / 32,
             f->linear % 32);
  else
    snprintf(text, sizeof text, "block (%u, %u, %u)", b->block_idx.x, b->block_idx.y, b->block_idx.z);
  return text;
}

static inline void yield_to_scheduler() {
  Block* b = current_block;
  Fiber* f = current_fiber;
  switch_context(&f->context, &b->scheduler);
}

// A located error of the running thread: the block stops; the fiber never resumes.
[[noreturn]] static inline void fail(const std::string& message) {
  Block* b = current_block;
  if (b->error.empty()) b->error = where(b, current_fiber) + ": " + message;
  current_fiber->wait = Wait::DONE;
  yield_to_scheduler();
  abort();  // unreachable: a failed block is never resumed
}

static void fiber_main() {
  Block* b = current_block;
  b->launch->body(b->launch->args);
  current_fiber->wait = Wait::DONE;
  yield_to_scheduler();
  abort();
}

// __syncthreads (and its _count / _and / _or forms): releases when every thread that has
// not ended waits at it (counted as they arrive: a scan per arrival made big blocks quadratic);
// each gets the reduction of the predicates (kind: 0 count, 1 and, 2 or).
static inline void complete_barrier(Block* b) {
  if (b->at_barrier == 0 || b->at_barrier != b->live) return;
  if (checker != nullptr) {
    check_sync_participants(b);
    check_barrier_release(b, false, 0);
  }
  unsigned long long count = 0, all = 1, any = 0;
  for (Fiber& f : b->fibers) {
    if (f.wait != Wait::BARRIER) continue;
    count += f.operand != 0;
    all &= f.operand != 0;
    any |= f.operand != 0;
  }
  for (Fiber& f : b->fibers) {
    if (f.wait != Wait::BARRIER) continue;
    f.result = f.kind == 0 ? count : f.kind == 1 ? all : any;
    f.wait = Wait::RUN;
  }
  b->at_barrier = 0;
}

static inline unsigned long long sync_block(int kind, int predicate) {
  Fiber* f = current_fiber;
  Block* b = current_block;
  f->wait = Wait::BARRIER;
  f->kind = kind;
  f->operand = predicate != 0;
  ++b->at_barrier;
  complete_barrier(b);
  if (f->wait != Wait::RUN) yield_to_scheduler();
  return f->result;
}

// A point where a thread lets the others run and stays runnable (a poll: an mbarrier try_wait,
// a load that may spin on a flag). Passes in which every thread only polled are counted: too many
// in a row and the block is stuck (SPIN_PASSES).
static inline void spin_point() {
  current_fiber->spun = true;
  yield_to_scheduler();
}
static const long long SPIN_PASSES = 100000;

// bar.sync id, count (wait) / bar.arrive id, count: releases the threads waiting at `id` when
// `count` threads have arrived (docs/sim.md: barriers).
static inline void named_barrier(int id, int count, bool wait) {
  Fiber* f = current_fiber;
  Block* b = current_block;
  if (id < 0 || id > 15) fail("bar.sync / bar.arrive with barrier id " + std::to_string(id) + " (0-15)");
  NamedBarrier& nb = b->named[id];
  if (nb.arrived == 0) {
    nb.expected = count;
  } else if (nb.expected != count) {
    protocol_error(832, "barrier " + std::to_string(id) + " expects " + std::to_string(count) + " threads here and " +
         std::to_string(nb.expected) + " where other threads arrived at it");
  }
  if (checker != nullptr) check_named_arrive(b, f, id);
  if (++nb.arrived >= count) {
    if (checker != nullptr) check_barrier_release(b, true, id);
    for (Fiber& g : b->fibers)
      if (g.wait == Wait::BARRIER && g.kind == 3 && g.operand_b == id) g.wait = Wait::RUN;
    nb.arrived = 0;
    return;
  }
  if (!wait) return;
  f->wait = Wait::BARRIER;
  f->kind = 3;
  f->operand_b = id;
  f->mask = (unsigned int)count;
  yield_to_scheduler();
}

// __activemask(): the lanes of the warp that reach this call site before blocking anywhere
// else (docs/sim.md: maximal convergence). Resolved when no thread of the block can run.
static inline unsigned int activemask(int site) {
  Fiber* f = current_fiber;
  f->wait = Wait::ACTIVEMASK;
  f->kind = site;
  yield_to_scheduler();
  return (unsigned int)f->result;
}

static inline bool resolve_activemasks(Block* b) {
  bool any = false;
  int n = (int)b->fibers.size();
  for (int i = 0; i < n; ++i) {
    Fiber& f = b->fibers[i];
    if (f.wait != Wait::ACTIVEMASK) continue;
    int warp = i / 32;
    unsigned int mask = 0;
    for (int j = warp * 32; j < n && j < warp * 32 + 32; ++j)
      if (b->fibers[j].wait == Wait::ACTIVEMASK && b->fibers[j].kind == f.kind) mask |= 1u << (j % 32);
    for (int j = warp * 32; j < n && j < warp * 32 + 32; ++j)
      if (b->fibers[j].wait == Wait::ACTIVEMASK && b->fibers[j].kind == f.kind) {
        b->fibers[j].result = mask;
        b->fibers[j].wait = Wait::RUN;
      }
    any = true;
  }
  return any;
}

static const char* (*collective_name)(int kind) = nullptr;  // set by tirx_sim_ops.h

static inline std::string wait_text(const Fiber& f) {
  char text[120];
  switch (f.wait) {
    case Wait::BARRIER:
      if (f.kind != 3) return "__syncthreads";
      snprintf(text, sizeof text, "bar.sync %d, %u", f.operand_b, f.mask);
      return text;
    case Wait::ACTIVEMASK: return "__activemask";
    case Wait::COLLECTIVE:
      snprintf(text, sizeof text, "%s (mask 0x%08x)", collective_name ? collective_name(f.kind) : "a warp collective",
               f.mask);
      return text;
    case Wait::RUN: return "a poll (mbarrier try_wait, or a load of a flag) that never succeeds";
    default: return "nothing";
  }
}

// The waiting threads, as runs of consecutive linear ids that wait at the same thing.
static inline std::string deadlock_text(Block* b, std::string text) {
  int n = (int)b->fibers.size(), runs = 0;
  for (int i = 0; i < n;) {
    if (b->fibers[i].wait == Wait::DONE) {
      ++i;
      continue;
    }
    std::string what = wait_text(b->fibers[i]);
    int j = i + 1;
    while (j < n && b->fibers[j].wait != Wait::DONE && wait_text(b->fibers[j]) == what) ++j;
    if (runs++ == 8) {
      text += " ...";
      break;
    }
    char part[80];
    if (j - i == 1)
      snprintf(part, sizeof part, " thread %d", i);
    else
      snprintf(part, sizeof part, " threads %d-%d", i, j - 1);
    text += std::string(part) + " wait at " + what + ";";
    i = j;
  }
  return text + " (threads by linear index, x fastest)";
}

static inline std::string deadlock(Block* b) {
  return deadlock_text(b, where(b, nullptr) + ": deadlock: no thread can go on:");
}

// Prepares a block to run from its start (poisoned shared memory, fresh fibers).
static void start_block(Block* b) {
  const Launch* L = b->launch;
  int n = (int)b->fibers.size();
  memset(b->shared, 0xA5, L->shared_bytes);  // poison: shared memory no thread wrote reads as garbage
  b->error.clear();
  b->steps = 0;
  b->live = n;
  b->at_barrier = 0;
  for (NamedBarrier& nb : b->named) nb = NamedBarrier();
  current_block = b;
  if (checker != nullptr) check_block_start(b);
  tmem_block_start(b);
  for (int i = 0; i < n; ++i) {
    Fiber& f = b->fibers[i];
    f.linear = i;
    f.thread_idx = uint3{(unsigned)(i % L->block.x), (unsigned)(i / L->block.x % L->block.y),
                         (unsigned)(i / (L->block.x * L->block.y))};
    f.wait = Wait::RUN;
    make_context(&f.context, f.stack, L->stack_bytes, fiber_main);
  }
}

// Runs blocks (one, or the blocks of a cluster) to their end or the first error, each pass
// running every runnable thread of each block in turn; false after an error, which the erring
// block's `error` holds.
static bool run_blocks(Block* const* blocks, int count) {
  const Launch* L = blocks[0]->launch;
  long long idle = 0;  // passes in a row in which every thread that ran only polled
  // the order of each pass over a block's threads (--schedules): thread order, reverse, or a
  // seeded shuffle per pass, drawn per block from the seed, the schedule and the block's index
  const int n = (int)blocks[0]->fibers.size();
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = L->schedule == 1 ? n - 1 - i : i;
  const Block* first = blocks[0];
  long long linear_block = first->block_idx.x + (long long)L->grid.x * (first->block_idx.y + (long long)L->grid.y * first->block_idx.z);
  std::mt19937_64 chooser(L->seed * 1000003ull + (unsigned long long)L->schedule * 7919ull + (unsigned long long)linear_block);
  for (;;) {
    bool ran = false, progress = false, finished = true;
    for (int k = 0; k < count; ++k) {
      Block* b = blocks[k];
      int done = 0;
      current_block = b;
      if (L->schedule >= 2) std::shuffle(order.begin(), order.end(), chooser);
      for (int i = 0; i < n; ++i) {
        Fiber& f = b->fibers[order[i]];
        if (f.wait == Wait::RUN) {
          ran = true;
          current_fiber = &f;
          f.spun = false;
          switch_context(&b->scheduler, &f.context);
          if (!b->error.empty()) return false;
          progress |= !f.spun;
          if (f.wait == Wait::DONE) {
            --b->live;
            complete_barrier(b);
            if (checker != nullptr && b->live == 0) check_cta_exit(b);
          }
          ++b->steps;  // (clock64() reads it: counted with or without a limit)
          if (L->step_limit && b->steps > L->step_limit) {
            b->error = where(b, nullptr) + ": step limit reached (" + std::to_string(L->step_limit) +
                       " scheduling points; --step-limit): the block does not finish";
            return false;
          }
        }
        done += f.wait == Wait::DONE;
      }
      finished = finished && done == n;
    }
    if (finished) {
      for (int k = 0; k < count; ++k) blocks[k]->error = tmem_block_end(blocks[k]);  // (a leak)
      for (int k = 0; k < count; ++k)
        if (!blocks[k]->error.empty()) return false;
      return true;
    }
    if (!ran) {
      bool resolved = false;
      for (int k = 0; k < count; ++k) resolved = resolve_activemasks(blocks[k]) || resolved;
      if (!resolved) {
        Block* b = blocks[0];
        for (int k = 0; k < count && b->live == 0; ++k) b = blocks[k];
        b->error = deadlock(b);
        if (checker != nullptr) check_deadlock(b, b->error);
        return false;
      }
    }
    idle = ran && !progress ? idle + 1 : 0;
    if (idle > SPIN_PASSES) {
      Block* b = blocks[0];
      b->error = deadlock_text(b, where(b, nullptr) + ": deadlock: every thread that can run polls, " +
                                      std::to_string(SPIN_PASSES) + " times in a row, for what no thread does:");
      if (checker != nullptr) check_deadlock(b, b->error);
      return false;
    }
  }
}

static inline void record_error(const std::string& message) {
  std::lock_guard<std::mutex> guard(error_lock);
  if (!failed.exchange(true)) first_error = message;
}

// Runs the grid: clusters of blocks (a block is a cluster of one without __cluster_dims__) in
// linear order, spread over launch.jobs OS threads; a cluster's blocks run on one of them as
// fibers of one scheduler. Returns the first error ("" when every block ended).
static std::string run_grid(const Launch& L) {
  const dim3 c = L.cluster;
  const int size = (int)(c.x * c.y * c.z);
  const dim3 clusters{L.grid.x / c.x, L.grid.y / c.y, L.grid.z / c.z};
  long long total = (long long)clusters.x * clusters.y * clusters.z;
  if (L.block_limit >= 0 && L.block_limit < total * size) total = (L.block_limit + size - 1) / size;
  int threads = (int)(L.block.x * L.block.y * L.block.z);
  std::atomic<long long> next{0};
  auto worker = [&]() {
    if (worker_start != nullptr) worker_start();
    Cluster cluster;
    std::vector<Block> blocks(size);
    std::vector<char> stacks((size_t)size * threads * L.stack_bytes);
    std::vector<char*> areas;
    for (int r = 0; r < size; ++r) {
      Block& b = blocks[r];
      b.launch = &L;
      b.cluster = &cluster;
      b.rank = r;
      b.fibers.resize(threads);
      for (int i = 0; i < threads; ++i) b.fibers[i].stack = stacks.data() + ((size_t)r * threads + i) * L.stack_bytes;
      areas.push_back((char*)aligned_alloc(1024, ((L.shared_bytes + 1023) / 1024 + 1) * 1024));
      b.shared = areas.back();
      cluster.blocks.push_back(&b);
    }
    for (long long id = next++; id < total && !failed.load(); id = next++) {
      uint3 at{(unsigned)(id % clusters.x), (unsigned)(id / clusters.x % clusters.y),
               (unsigned)(id / ((long long)clusters.x * clusters.y))};
      cluster.barrier_phase = 0;
      cluster.barrier_arrived = 0;
      cluster.arrived_in.assign((size_t)size * threads, 0);
      for (int r = 0; r < size; ++r) {  // rank r: x fastest within the cluster
        blocks[r].block_idx = uint3{at.x * c.x + r % c.x, at.y * c.y + r / c.x % c.y, at.z * c.z + r / (c.x * c.y)};
        start_block(&blocks[r]);
      }
      if (!run_blocks(cluster.blocks.data(), size))
        for (Block& b : blocks)
          if (!b.error.empty()) record_error(b.error);
    }
    for (char* area : areas) free(area);
  };
  int jobs = L.jobs < 1 ? 1 : L.jobs;
  if (jobs > total) jobs = (int)(total < 1 ? 1 : total);
  if (jobs == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    for (int j = 0; j < jobs; ++j) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
  }
  return failed.load() ? first_error : std::string();
}

}  // namespace tirx_sim

#define threadIdx (tirx_sim::current_fiber->thread_idx)
#define blockIdx (tirx_sim::current_block->block_idx)
#define blockDim (tirx_sim::current_block->launch->block)
#define gridDim (tirx_sim::current_block->launch->grid)
#define tirx_sim_shared() (tirx_sim::current_block->shared)
