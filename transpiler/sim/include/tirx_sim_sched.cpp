// tirxc sim's runtime, compiled once into an object the kernels link against
// (transpiler/sim/build.py): the fibers' context switch, the scheduler and the warp collectives
// (the bodies of what tirx_sim_fiber.h, tirx_sim_sched.h and tirx_sim_ops.h declare).
#include "tirx_sim.h"

namespace tirx_sim {

__thread Block* current_block = nullptr;
__thread Fiber* current_fiber = nullptr;
void (*worker_start)() = nullptr;
static std::atomic<bool> failed{false};
static std::mutex error_lock;
static std::string first_error;

// -- tirx_sim_fiber.h -------------------------------------------------------------------------
#if defined(__x86_64__)
asm(R"(
.text
.globl tirx_sim_switch
.hidden tirx_sim_switch
.type tirx_sim_switch,@function
tirx_sim_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
.size tirx_sim_switch, .-tirx_sim_switch
)");

// A fresh context on `stack` that starts in `entry` (which never returns).
void make_context(Context* c, char* stack, size_t size, FiberEntry entry) {
  uintptr_t top = ((uintptr_t)(stack + size)) & ~(uintptr_t)15;
  void** sp = (void**)top;
  *--sp = nullptr;           // entry's return address slot: entry sees rsp % 16 == 8
  *--sp = (void*)entry;      // where `ret` goes
  for (int i = 0; i < 6; ++i) *--sp = nullptr;  // rbp rbx r12 r13 r14 r15
  unsigned int csr;
  unsigned short cw;
  asm volatile("stmxcsr %0" : "=m"(csr));
  asm volatile("fnstcw %0" : "=m"(cw));
  --sp;
  memcpy((char*)sp, &csr, 4);
  memcpy((char*)sp + 4, &cw, 2);
  c->sp = sp;
}
#else
void make_context(Context* c, char* stack, size_t size, FiberEntry entry) {
  getcontext(&c->uc);
  c->uc.uc_stack.ss_sp = stack;
  c->uc.uc_stack.ss_size = size;
  c->uc.uc_link = nullptr;
  makecontext(&c->uc, entry, 0);
}
#endif

// -- tirx_sim_sched.h ---------------------------------------------------------------------
std::string where(const Block* b, const Fiber* f) {
  char text[160];
  if (f != nullptr)
    snprintf(text, sizeof text, "block (%u, %u, %u) thread (%u, %u, %u) (warp %d, lane %d)", b->block_idx.x,
             b->block_idx.y, b->block_idx.z, f->thread_idx.x, f->thread_idx.y, f->thread_idx.z, f->linear / 32,
             f->linear % 32);
  else
    snprintf(text, sizeof text, "block (%u, %u, %u)", b->block_idx.x, b->block_idx.y, b->block_idx.z);
  return text;
}

[[noreturn]] void fail(const std::string& message) {
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
static void complete_barrier(Block* b) {
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

unsigned long long sync_block(int kind, int predicate) {
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

void named_barrier(int id, int count, bool wait) {
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

unsigned int activemask(int site) {
  Fiber* f = current_fiber;
  f->wait = Wait::ACTIVEMASK;
  f->kind = site;
  yield_to_scheduler();
  return (unsigned int)f->result;
}

static bool resolve_activemasks(Block* b) {
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

static std::string wait_text(const Fiber& f) {
  char text[120];
  switch (f.wait) {
    case Wait::BARRIER:
      if (f.kind != 3) return "__syncthreads";
      snprintf(text, sizeof text, "bar.sync %d, %u", f.operand_b, f.mask);
      return text;
    case Wait::ACTIVEMASK: return "__activemask";
    case Wait::COLLECTIVE:
      snprintf(text, sizeof text, "%s (mask 0x%08x)", COLLECTIVE_NAMES[f.kind],
               f.mask);
      return text;
    case Wait::RUN: return "a poll (mbarrier try_wait, or a load of a flag) that never succeeds";
    default: return "nothing";
  }
}

// The waiting threads, as runs of consecutive linear ids that wait at the same thing.
static std::string deadlock_text(Block* b, std::string text) {
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

static std::string deadlock(Block* b) {
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

static void record_error(const std::string& message) {
  std::lock_guard<std::mutex> guard(error_lock);
  if (!failed.exchange(true)) first_error = message;
}

std::string run_grid(const Launch& L) {
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

// -- tirx_sim_ops.h -----------------------------------------------------------------------
// Each lane of the mask's result, computed by the last lane to arrive from every lane's operand;
// "" or why the collective is wrong.
static std::string finish_collective(Block* b, int warp, unsigned int mask) {
  Fiber* lanes = b->fibers.data() + warp * 32;
  int kind = lanes[__builtin_ctz(mask)].kind;
  if (kind == WARP_OP) {
    void* args[32] = {nullptr};
    for (int l = 0; l < 32; ++l)
      if (mask >> l & 1) args[l] = (void*)lanes[l].operand;
    ((WarpFn)lanes[__builtin_ctz(mask)].fn)(args, mask);
    if (checker != nullptr) check_collective(b, warp, mask);
    for (int l = 0; l < 32; ++l)
      if (mask >> l & 1) lanes[l].wait = Wait::RUN;
    return std::string();
  }
  unsigned long long fold = 0;
  bool first = true;
  for (int l = 0; l < 32; ++l) {
    if (!(mask >> l & 1)) continue;
    unsigned long long v = lanes[l].operand;
    switch (kind) {
      case BALLOT: case ANY: case ALL: fold |= (unsigned long long)(v != 0) << l; break;
      case REDUCE_ADD: fold = first ? v : (unsigned int)(fold + v); break;
      case REDUCE_MIN: fold = first || (int)v < (int)fold ? v : fold; break;
      case REDUCE_MAX: fold = first || (int)v > (int)fold ? v : fold; break;
      case REDUCE_UMIN: fold = first || (unsigned int)v < (unsigned int)fold ? v : fold; break;
      case REDUCE_UMAX: fold = first || (unsigned int)v > (unsigned int)fold ? v : fold; break;
      case REDUCE_AND: fold = first ? v : fold & v; break;
      case REDUCE_OR: fold = first ? v : fold | v; break;
      case REDUCE_XOR: fold = first ? v : fold ^ v; break;
      default: break;
    }
    first = false;
  }
  for (int l = 0; l < 32; ++l) {
    if (!(mask >> l & 1)) continue;
    Fiber& f = lanes[l];
    int w = f.width, base = l & ~(w - 1), src = l;
    switch (kind) {
      case SHFL_IDX: src = base + (f.operand_b & (w - 1)); break;
      case SHFL_UP: src = (l - base) < f.operand_b ? l : l - f.operand_b; break;
      case SHFL_DOWN: src = (l - base) + f.operand_b >= w ? l : l + f.operand_b; break;
      case SHFL_XOR: src = l ^ f.operand_b; src = src >= base + w ? l : src; break;
      default: break;
    }
    if (kind <= SHFL_XOR) {
      if (!(mask >> src & 1))
        return "lane " + std::to_string(l) + "'s " + COLLECTIVE_NAMES[kind] + " reads lane " + std::to_string(src) +
               ", which is not in its mask";
      f.result = lanes[src].operand;
    } else if (kind == ANY) {
      f.result = fold != 0;
    } else if (kind == ALL) {
      f.result = fold == mask;
    } else if (kind == MATCH_ANY || kind == MATCH_ALL) {
      unsigned int same = 0;
      for (int j = 0; j < 32; ++j)
        if ((mask >> j & 1) && lanes[j].operand == f.operand) same |= 1u << j;
      f.result = kind == MATCH_ANY ? same : (same == mask ? mask : 0);
      f.operand_b = same == mask;  // match_all's predicate
    } else {
      f.result = fold;
    }
    f.wait = Wait::RUN;
  }
  if (checker != nullptr) check_collective(b, warp, mask);
  return std::string();
}

unsigned long long collective(int kind, unsigned int mask, unsigned long long v, int b, int width, void* fn) {
  Block* blk = current_block;
  Fiber* f = current_fiber;
  int warp = f->linear / 32, lane = f->linear % 32;
  if (!(mask >> lane & 1)) fail(std::string(COLLECTIVE_NAMES[kind]) + " with a mask that leaves out its own lane");
  if (width < 1 || width > 32 || (width & (width - 1))) fail(std::string(COLLECTIVE_NAMES[kind]) + " with a width that is not a power of two up to 32");
  int n = (int)blk->fibers.size();
  if (warp * 32 + 32 - __builtin_clz(mask) > n) fail(std::string(COLLECTIVE_NAMES[kind]) + " with a mask that names a lane past the block's last thread");
  f->wait = Wait::COLLECTIVE;
  f->kind = kind;
  f->mask = mask;
  f->operand = v;
  f->operand_b = b;
  f->width = width;
  f->fn = fn;
  Fiber* lanes = blk->fibers.data() + warp * 32;
  bool complete = true;
  for (int l = 0; l < 32 && complete; ++l)
    if (mask >> l & 1)
      complete = lanes[l].wait == Wait::COLLECTIVE && lanes[l].mask == mask && lanes[l].kind == kind &&
                 lanes[l].fn == fn;
  if (complete) {
    std::string wrong = finish_collective(blk, warp, mask);
    if (!wrong.empty()) fail(wrong);
  } else {
    yield_to_scheduler();
  }
  return f->result;
}

[[noreturn]] void trap() { fail("__trap()"); }

[[noreturn]] void trap_at(const char* what) { fail(std::string("__trap(): ") + what); }

}  // namespace tirx_sim
