// tirxc sim: the context switch between fibers (docs/sim.md, "The engine"). On x86-64 a few
// instructions save the callee-saved registers, the SSE and x87 control words and the stack
// pointer; elsewhere ucontext, whose switch also saves the signal mask (a system call: slower).
#pragma once
#include <cstddef>

namespace tirx_sim {

typedef void (*FiberEntry)();

#if defined(__x86_64__)
extern "C" void tirx_sim_switch(void** save_sp, void* load_sp);
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

struct Context {
  void* sp = nullptr;
};

// A fresh context on `stack` that starts in `entry` (which never returns).
static inline void make_context(Context* c, char* stack, size_t size, FiberEntry entry) {
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

static inline void switch_context(Context* from, Context* to) { tirx_sim_switch(&from->sp, to->sp); }

#else
}  // namespace tirx_sim
#include <ucontext.h>
namespace tirx_sim {

struct Context {
  ucontext_t uc;
};

static inline void make_context(Context* c, char* stack, size_t size, FiberEntry entry) {
  getcontext(&c->uc);
  c->uc.uc_stack.ss_sp = stack;
  c->uc.uc_stack.ss_size = size;
  c->uc.uc_link = nullptr;
  makecontext(&c->uc, entry, 0);
}

static inline void switch_context(Context* from, Context* to) { swapcontext(&from->uc, &to->uc); }
#endif

}  // namespace tirx_sim
