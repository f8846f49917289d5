// tirxc sim: the asynchronous copies -- cp.async, TMA tensor copies through a tensor map, bulk
// copies -- and the one place their bytes move (docs/sim.md, "Asynchronous copies"). Each copy
// is made when it is issued, so a wait finds it done; every byte it moves goes through
// async_move with the copy's completion event (the mbarrier that completes it, or the issuing
// thread's bulk / cp.async group), which is where the race checker attributes the access.
// (The bodies of the functions declared here are in tirx_sim_ptx.cpp.)
#pragma once

namespace tirx_sim {

enum class Completion { MBARRIER, BULK_GROUP, CP_ASYNC_GROUP, WGMMA_GROUP };
struct AsyncEvent {
  Completion kind;
  const void* mbarrier;  // MBARRIER: the barrier whose transaction count the bytes complete
};

// The bytes of one asynchronous copy (src null: the fill byte pattern `fill`, OOB elements). The
// race checker sees a TMA or bulk copy's write complete at its mbarrier phase or at its bulk
// group's wait, and the shared memory a bulk store reads as read until that wait (cp.async's
// copies reach it through their own hooks, ptx_hooks.py).
static inline void async_move(void* dst, const void* src, size_t bytes, AsyncEvent done,
                              const unsigned char* fill = nullptr) {
  if (done.kind == Completion::MBARRIER) {
    async_issue(dst, bytes, true, done.mbarrier, BULK);
  } else if (done.kind == Completion::BULK_GROUP) {
    if (src != nullptr) async_issue(src, bytes, false, nullptr, BULK);
    async_issue(dst, bytes, true, nullptr, BULK);
  }
  if (src != nullptr)
    memcpy(dst, src, bytes);
  else
    memcpy(dst, fill, bytes);
}

// The bytes an asynchronous operation reads without copying them (wgmma's shared-memory operands,
// a bulk reduction's source). The race checker sees wgmma's read as the issuing thread's read at
// issue (a read of a stage the TMA has not filled, a missing mbarrier wait, is a race) that stays
// pending until its group's wgmma.wait_group (tirx_sim_wgmma_check.h); a bulk reduction's source
// stays read until its bulk group's wait.
static inline void async_read(void* out, const void* src, size_t bytes, AsyncEvent done) {
  if (done.kind == Completion::WGMMA_GROUP)
    check_wgmma_read(src, bytes);
  else if (done.kind == Completion::BULK_GROUP)
    async_issue(src, bytes, false, nullptr, BULK);
  memcpy(out, src, bytes);
}

// -- cp.async.{ca,cg}.shared.global: `read` bytes from global, zeros after (src-size) --------------
void cp_async_copy(void* dst, const void* src, unsigned int bytes, unsigned int read);

// -- tensor maps: the sim's encoding of the 128 bytes of a `tirx_tensor_map` parameter, which the
// entry (transpiler/sim/entry.py) writes from the description the launcher gives
// cuTensorMapEncodeTiled: the mapped buffer's address, extents and byte strides (innermost first),
// box, element strides, interleave, swizzle, OOB fill.
struct TensorMap {
  unsigned long long address;
  unsigned long long dims[5];
  unsigned long long strides[5];  // bytes; strides[0] is the element's size
  unsigned short box[5];
  unsigned char element_strides[5];
  unsigned char rank, element_bytes, data_type, interleave, swizzle, oob_fill, valid;
};
static_assert(sizeof(TensorMap) <= 128, "a TensorMap fits the 128 bytes of a tensor map parameter");

// The swizzle of a shared byte address (mode 1, 2, 3: 32, 64, 128 bytes): bits [4, 4 + mode) XOR
// bits [7, 7 + mode), as the tensor cores' descriptors use it (target/tma.py swizzle_address).
static inline unsigned int swizzled(unsigned int address, int mode) {
  return address ^ (((address >> 7) & ((1u << mode) - 1)) << 4);
}

// Each element of the box at `coords`, in the box's dense order (dimension 0 fastest), with its
// shared byte offset (before the swizzle) and its global address (null when out of bounds).
template <typename F> static inline void tensor_box(const TensorMap& m, const int* coords, F each) {
  int count[5] = {1, 1, 1, 1, 1};
  long long total = 1;
  for (int i = 0; i < m.rank; ++i) {
    count[i] = (m.box[i] + m.element_strides[i] - 1) / m.element_strides[i];
    total *= count[i];
  }
  for (long long e = 0; e < total; ++e) {
    long long rest = e;
    bool inside = true;
    unsigned long long address = m.address;
    for (int i = 0; i < m.rank; ++i) {
      long long c = (long long)coords[i] + (rest % count[i]) * m.element_strides[i];
      rest /= count[i];
      inside = inside && c >= 0 && (unsigned long long)c < m.dims[i];
      address += (unsigned long long)c * m.strides[i];
    }
    each((unsigned int)(e * m.element_bytes), inside ? (char*)address : nullptr);
  }
}

// cp.async.bulk.tensor.Nd.shared::{cta,cluster}.global.tile.mbarrier::complete_tx::bytes: the box
// into this CTA's shared memory, OOB elements filled, then the box's bytes complete on `mbar`;
// with .multicast::cluster, into each CTA of `cta_mask` at the same shared offset, completing on
// the mbarrier at mbar's offset in that CTA.
void tma_load(void* dst, unsigned long long map, const int* coords, int rank, const void* mbar, int cta_mask = -1);

// cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group: the box's elements within the
// tensor's bounds from shared memory to global memory (the others are not written).
void tma_store(unsigned long long map, const int* coords, int rank, const void* src);

// cp.reduce.async.bulk.tensor ... .{add,min,max,and,or,xor}: each element of the box within the
// tensor combined into global memory atomically (other blocks run on other OS threads), floats
// rounded to nearest even in the element's type; `op` is the operation's name
static inline double reduce_values(double a, double b, char op) {
  return op == '+' ? a + b : op == '<' ? (b < a ? b : a) : (b > a ? b : a);
}

template <typename U> static inline void reduce_element(void* global, const void* value, const TensorMap& m, char op) {
  U v;
  memcpy(&v, value, sizeof v);
  tirx_sim_rmw((U*)global, [&](U old) -> U {
    switch (m.data_type) {
      case 6: return (U)format_encode(reduce_values(format_decode(old, FORMAT_F16), format_decode(v, FORMAT_F16), op),
                                      FORMAT_F16, false, false, false);
      case 9: return (U)format_encode(reduce_values(format_decode(old, FORMAT_BF16), format_decode(v, FORMAT_BF16), op),
                                      FORMAT_BF16, false, false, false);
      case 7: return (U)f32_bits((float)reduce_values(f32_from((unsigned int)old), f32_from((unsigned int)v), op));
      case 3: case 5: {  // signed: + wraps, min / max compare signed; the bitwise ones below
        long long a = sizeof(U) == 4 ? (long long)(int)old : (long long)old;
        long long b = sizeof(U) == 4 ? (long long)(int)v : (long long)v;
        if (op == '+') return (U)((unsigned long long)a + (unsigned long long)b);
        if (op == '<') return (U)(b < a ? b : a);
        if (op == '>') return (U)(b > a ? b : a);
        break;
      }
      default: break;  // unsigned: 0 u8, 1 u16, 2 u32, 4 u64
    }
    switch (op) {
      case '+': return (U)(old + v);
      case '<': return v < old ? v : old;
      case '>': return v > old ? v : old;
      case '&': return (U)(old & v);
      case '|': return (U)(old | v);
      default: return (U)(old ^ v);
    }
  });
}

void tma_reduce(unsigned long long map, const int* coords, int rank, const void* src, char op);

// cp.async.bulk (no tensor map): `bytes` contiguous bytes, completing on `mbar` or, when it is
// null, in the issuing thread's bulk group
void bulk_copy(void* dst, const void* src, unsigned int bytes, const void* mbar);

}  // namespace tirx_sim
