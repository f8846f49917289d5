// tirxc sim: the context switch between fibers (docs/sim.md, "The engine"). On x86-64 a few
// instructions save the callee-saved registers, the SSE and x87 control words and the stack
// pointer; elsewhere ucontext, whose switch also saves the signal mask (a system call: slower).
// The switch's code and make_context are in tirx_sim_sched.cpp.
#pragma once
#include <cstddef>

namespace tirx_sim {

typedef void (*FiberEntry)();

#if defined(__x86_64__)
extern "C" void tirx_sim_switch(void** save_sp, void* load_sp);

struct Context {
  void* sp = nullptr;
};

// A fresh context on `stack` that starts in `entry` (which never returns).
void make_context(Context* c, char* stack, size_t size, FiberEntry entry);

static inline void switch_context(Context* from, Context* to) { tirx_sim_switch(&from->sp, to->sp); }

#else
}  // namespace tirx_sim
#include <ucontext.h>
namespace tirx_sim {

struct Context {
  ucontext_t uc;
};

void make_context(Context* c, char* stack, size_t size, FiberEntry entry);

static inline void switch_context(Context* from, Context* to) { swapcontext(&from->uc, &to->uc); }
#endif

}  // namespace tirx_sim
