// tirxc sim: the state of the checkers (--racecheck, --synccheck; docs/sim.md "Race checking" and
// "Barrier protocols"), declared before the scheduler so that its barriers, collectives and the
// PTX operations can report to them. `checker` is null unless a check is on: then every hook is
// one test of a pointer. The hooks themselves are in tirx_sim_race.h, tirx_sim_sync.h and the
// other *_check.h headers, which only tirx_sim_check.cpp includes (compiled once into the runtime's
// objects); tirx_sim_hooks.h has the inline hooks the checked flavour's code calls.
//
// Findings go to a file, one line each, which transpiler/sim/findings.py turns into diagnostics:
//   R CODE SITE SITE0 BX BY BZ THREAD BLOCK0 THREAD0 SPACE OFFSET ELEMENT KIND KIND0  (two accesses)
//   S CODE SITE -1 BX BY BZ THREAD TEXT...                                    (a protocol finding)
// SITE is an index into the site table the sim printer wrote (codegen/cuda_sim.py), -1 unknown;
// SITE0 / BLOCK0 / THREAD0 name the earlier access (BLOCK0: its linear block); SPACE is g
// (global: OFFSET in the argument image) or s (shared: OFFSET in the block's shared area);
// ELEMENT is the element of the later access's buffer (-1 unknown); KIND / KIND0 are r (read),
// w (write) or a (atomic) for the later and the earlier access.
#pragma once
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace tirx_sim {

struct Block;
struct Fiber;

typedef std::vector<unsigned int> Clock;  // a vector clock over the block's threads

// A thread's vector clock. After a barrier its participants share one joined clock (`shared`)
// and differ only in their own component (`own`): a barrier of n threads costs O(n), not O(n^2)
// (a block's threads meet at __syncthreads again and again). The first other join gives the
// thread a private copy (`mine`).
struct ThreadClock {
  std::shared_ptr<const Clock> shared;
  Clock mine;
  bool is_private = false;
  unsigned int own = 1;
};

// One access as the shadow memory keeps it: by whom, at which of its clock ticks, from where.
struct Access {
  int thread = -1;  // linear thread index in its block; -1: none
  unsigned int clock = 0;
  int site = -1;
  int block = -1;  // linear block index
  unsigned int epoch = 0;  // the block's release epoch at the access (ordering across blocks)
  unsigned char bytes = 0;  // which of the cell's 4 bytes it touched (bit i: byte i)
  bool atomic = false;      // a read: an atomic load (ld.acquire / .relaxed / .volatile)
  unsigned char tcgen05 = 0;  // made by a tcgen05 operation: Checker::tcgen05_op then
};

// The shadow of 4 bytes of shared or global memory.
struct Cell {
  Access write;
  bool write_atomic = false;
  std::vector<Access> reads;  // reads since the write (those a later read covers dropped now and then)
  unsigned int compact_at = 8;  // the size of `reads` at which they are dropped next
  int pending = -1;  // the async operation (Checker::async) that has yet to write these bytes; -1 none
  bool write_async = false;     // `write` was the async proxy's (a TMA's)
  unsigned int written_at = 0;  // Checker::fence_time at `write`
};

// What an access does to the bytes (the race checker's shadow cells).
// (ATOMIC_LOAD: ld.acquire / .relaxed / .volatile, a read that conflicts with no read and no atomic)
enum AccessKind { READ = 0, WRITE = 1, ATOMIC = 2, ATOMIC_LOAD = 3 };

// The kinds of async groups, each with its own commit / wait_group (cp.async, cp.async.bulk,
// wgmma, tcgen05.commit's groups).
enum AsyncFamily { CP_ASYNC = 0, BULK = 1, WGMMA = 2, TCGEN05 = 3, ASYNC_FAMILIES = 4 };

// An asynchronous memory effect (cp.async now; TMA, wgmma, tcgen05 through async_issue) that
// completes at an event: a cp.async group of its thread, or an mbarrier phase.
struct AsyncOp {
  int thread;
  int site;
  char* address;
  size_t bytes;
  bool write;
  long long group;  // the thread's group of its family, -1 uncommitted; or -2: completes at `barrier`
  int family;       // AsyncFamily: whose commit / wait_group retire it
  const void* barrier;
  bool done;
};

// An mbarrier's history, by its address (docs/sim.md: barrier protocols).
struct MbarrierCheck {
  Access init;
  long long completed = 0;  // phases completed since init
  Clock arrivals;            // join of the clocks that arrived in the current phase
  Clock phase_clock[2];      // the clocks of the last completed phase of each parity
  std::vector<long long> seen;  // per thread: the last phase a wait of it observed (-2: none)
  unsigned int init_time = 0;   // Checker::fence_time at init
};

// A fence.proxy.async (`async`) or fence.mbarrier_init of a thread: when, and its own clock then.
struct ProxyFence {
  unsigned int time;
  unsigned int clock;
  bool async;
};

// wgmma's registers, per thread (docs/sim.md "wgmma groups"): the accumulators of the
// warpgroup's wgmmas that no wait_group has retired yet (`group` as AsyncOp's: -1 uncommitted),
// and the wgmma registers generic code accessed since the thread's last wgmma.fence.
struct PendingRegisters {
  std::vector<const void*> registers;
  int site;
  long long group;
};
struct RegisterChecks {
  std::vector<PendingRegisters> pending;
  std::unordered_map<const void*, int> touched;  // register -> the site of generic code's last access
  bool fenced = false;                           // a wgmma.fence since the thread began
  long long retired = 0;                         // the wgmma groups its wait_groups retired
};

struct Checker {
  bool races = false, protocols = false;
  FILE* out = nullptr;
  unsigned char* global_base = nullptr;  // the argument image
  size_t global_bytes = 0;
  std::vector<Cell> global_cells, shared_cells;
  std::vector<ThreadClock> clocks;  // per thread of the running block
  int block = 0;              // the running block, linear
  unsigned int epoch = 1;     // its release epoch
  unsigned int fenced_epoch = 0;  // the epoch its last GPU-scope fence closed (what its atomics release)
  std::map<int, unsigned int> imported;  // the epochs of other blocks it has acquired
  std::unordered_map<const void*, Clock> location_clocks;  // atomics in this block: their release clocks
  std::unordered_map<const void*, std::map<int, unsigned int>> location_epochs;  // across blocks
  std::vector<AsyncOp> async;
  std::vector<long long> groups;  // per thread and AsyncFamily: the groups committed so far
  std::unordered_map<const void*, MbarrierCheck> mbarriers;
  std::vector<RegisterChecks> registers;  // per thread of the running block
  int open_wgmma = -1;                    // the AsyncOp of the wgmma being issued (its operand reads)
  std::vector<std::vector<ProxyFence>> fences;  // per thread of the running block
  unsigned int fence_time = 0;                   // proxy fences so far (orders writes and fences in time)
  bool async_writing = false;                    // the access being recorded is an async proxy's write
  std::vector<Clock> named;  // per CTA of the cluster and barrier id (rank * 16 + id)
  // a cluster of several CTAs runs under one checker: thread t of CTA rank r is `r * block_threads
  // + t` (block_threads a multiple of 128 there, so warps and warpgroups keep their index), and
  // cta_blocks[r] is that CTA's linear block (tirx_sim_cluster_check.h)
  int block_threads = 0, threads = 0;
  std::vector<int> cta_blocks;
  size_t shared_cells_per_cta = 0;
  Clock cluster_arrivals;                 // barrier.cluster: the releasing arrivals of the current phase
  Clock cluster_released;                 // what the last completed phase releases to its waiters
  std::vector<Clock> cluster_fenced;      // per thread: its clock at its last fence of cluster scope
  std::vector<std::vector<std::pair<unsigned int, int>>> remote;  // per CTA, per thread: its last access
                                                                  // of that CTA's shared memory (clock, site)
  // tcgen05 operations (tirx_sim_tcgen05_check.h): the kind of the one making accesses now (0 none,
  // 1 an operation, 2 one whose completion event stands for its before_thread_sync fence, 3 a
  // dealloc, which needs no after_thread_sync fence); per thread, its own clock at each
  // tcgen05.fence::before_thread_sync and its clock at its last ::after_thread_sync
  int tcgen05_op = 0;
  std::vector<std::vector<unsigned int>> tcgen05_before;
  std::vector<Clock> tcgen05_after;
  std::set<std::tuple<int, int, int>> reported;  // (code, site, site0): each finding once
  int records = 0;
};

extern Checker* checker;  // (tirx_sim_check.cpp)
static const int MAX_FINDINGS = 200;

// -- hooks, defined in tirx_sim_race.h / tirx_sim_sync.h (compiled in tirx_sim_check.cpp) ------
void check_block_start(Block* b);
void check_barrier_release(Block* b, bool named, int id);
void check_named_arrive(Block* b, Fiber* f, int id);
void check_collective(Block* b, int warp, unsigned int mask);
bool check_deadlock(Block* b, const std::string& text);
void check_sync_participants(Block* b);
[[noreturn]] void protocol_error(int code, const std::string& message);
void atomic_sync(const void* p, size_t bytes, bool load = false);
void check_thread_fence();
void check_matrix_rows(void** lanes, int matrices, bool store);
void check_mbarrier_init(const void* address);
void check_mbarrier_arrive(const void* address);
void check_mbarrier_phase(const void* address);
void check_mbarrier_waited(const void* address);
void check_wgmma_issue(int first_thread, void** const* accumulators, int count);
void check_wgmma_read(const void* p, size_t bytes);
void check_wgmma_issued();
void check_proxy_read(const void* p, size_t bytes);
void check_proxy_barrier(const void* address);

void access_as(int thread, int site, const void* p, size_t bytes, int kind, const void* base = nullptr,
               size_t element_bytes = 1);
void async_issue(const void* p, size_t bytes, bool write, const void* barrier = nullptr, int family = CP_ASYNC);
void check_cp_async(const void* dst, const void* src, size_t read, size_t bytes);
void check_async_commit(int family = CP_ASYNC);
void check_cp_async_commit();
void check_async_wait(int newest, int family = CP_ASYNC);
void check_cp_async_wait(int newest);
void check_warpgroup(Block* b, int warpgroup);
void check_proxy_fence(bool async);
void check_wgmma_fence();
void register_access(const void* p, int site);
void check_cluster_arrive(bool release);
void check_cluster_phase();
void check_cluster_waited();
void check_cta_exit(Block* b);
void check_cluster_fence();
void check_tcgen05_fence(bool before);
void check_remote_access(int thread, int site, size_t offset);
void check_remote_arrive(const void* address);
bool tcgen05_ordered(const Access& earlier, int thread);
int tcgen05_completion_kind(const AsyncOp& op);
struct Tcgen05Scope {  // the accesses a tcgen05 operation makes while it lives are its own
  explicit Tcgen05Scope(int kind) { if (checker != nullptr) checker->tcgen05_op = kind; }
  ~Tcgen05Scope() { if (checker != nullptr) checker->tcgen05_op = 0; }
};
void check_remote_init(const MbarrierCheck& m, const void* address, const char* what);

}  // namespace tirx_sim
