// tirxc sim: blocks, their fibers and the scheduler (docs/sim.md, "The engine"). Each block
// runs on one OS thread; its threads are fibers that run until a scheduling point (a
// barrier, a warp collective, __activemask, the end), round-robin in thread order. The bodies
// are in tirx_sim_sched.cpp (the runtime's objects, compiled once: transpiler/sim/build.py).
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

// the block and the thread each OS thread runs now (__thread: a constant-initialised pointer that
// the kernel's threadIdx reads without a TLS wrapper call)
extern __thread Block* current_block;
extern __thread Fiber* current_fiber;
void tmem_block_start(Block* b);  // tensor memory (tirx_sim_tcgen05.h)
std::string tmem_block_end(Block* b);

extern void (*worker_start)();  // run by each OS thread that runs blocks (signal stacks)

std::string where(const Block* b, const Fiber* f);

static inline void yield_to_scheduler() {
  Block* b = current_block;
  Fiber* f = current_fiber;
  switch_context(&f->context, &b->scheduler);
}

// A located error of the running thread: the block stops; the fiber never resumes.
[[noreturn]] void fail(const std::string& message);

unsigned long long sync_block(int kind, int predicate);

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
void named_barrier(int id, int count, bool wait);

// __activemask(): the lanes of the warp that reach this call site before blocking anywhere
// else (docs/sim.md: maximal convergence). Resolved when no thread of the block can run.
unsigned int activemask(int site);

// Runs the grid: clusters of blocks (a block is a cluster of one without __cluster_dims__) in
// linear order, spread over launch.jobs OS threads; a cluster's blocks run on one of them as
// fibers of one scheduler. Returns the first error ("" when every block ended).
std::string run_grid(const Launch& L);

}  // namespace tirx_sim

#define threadIdx (tirx_sim::current_fiber->thread_idx)
#define blockIdx (tirx_sim::current_block->block_idx)
#define blockDim (tirx_sim::current_block->launch->block)
#define gridDim (tirx_sim::current_block->launch->grid)
#define tirx_sim_shared() (tirx_sim::current_block->shared)
