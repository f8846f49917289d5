// tirxc sim: the hooks the checked flavour's code calls around its accesses (codegen/cuda_sim.py,
// transpiler/sim/ptx_hooks.py), over the checkers' entry points tirx_sim_check.h declares.
#pragma once

namespace tirx_sim {

// the checker's index of a thread: (CTA rank in the cluster, linear thread) as one index
static inline int check_thread(const Block* b, int linear) { return b->rank * checker->block_threads + linear; }
static inline int me() { return check_thread(current_block, current_fiber->linear); }

static inline void access(const void* p, size_t bytes, int kind) {
  if (checker != nullptr) access_as(me(), current_fiber->site, p, bytes, kind);
}

// The printer's hooks (codegen/cuda_sim.py, racecheck on): `*rd(B, &B[i], site)` reads B[i].
template <typename B, typename T> static inline T* rd(B* base, T* p, int site) {
  access_as(me(), site, (const void*)p, sizeof(T), READ, (const void*)base, sizeof(B));
  return p;
}
// `wr(B, &B[i], site) = v` stores v, then reports the write (the value is computed first, as
// C++17 sequences an assignment's right operand before its left). A store of the value the
// bytes already hold is no access: it cannot change what any read sees (compute-sanitizer calls
// such a hazard benign), and a thread-scope copy that every thread makes alike is one.
template <typename B, typename T> struct Store {
  B* base;
  T* p;
  int site;
  template <typename V> T& operator=(const V& value) {
    unsigned char before[sizeof(T)];
    memcpy(before, (const void*)p, sizeof(T));
    *p = value;
    if (memcmp(before, (const void*)p, sizeof(T)) != 0)
      access_as(me(), site, (const void*)p, sizeof(T), WRITE, (const void*)base, sizeof(B));
    return *p;
  }
};
template <typename B, typename T> static inline Store<B, T> wr(B* base, T* p, int site) { return Store<B, T>{base, p, site}; }
// A call from a site: the runtime's barriers, atomics and PTX operations name it in findings.
static inline void at(int site) { current_fiber->site = site; }

// `*rg(&acc[i], site)`: a generic read or write of acc[i], a register some wgmma uses
template <typename T> static inline T* rg(T* p, int site) {
  if (checker != nullptr && checker->races) register_access((const void*)p, site);
  return p;
}

}  // namespace tirx_sim
