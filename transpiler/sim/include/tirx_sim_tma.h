// tirxc sim: the asynchronous copies -- cp.async, TMA tensor copies through a tensor map, bulk
// copies -- and the one place their bytes move (docs/sim.md, "Asynchronous copies"). Each copy
// is made when it is issued, so a wait finds it done; every byte it moves goes through
// async_move with the copy's completion event (the mbarrier that completes it, or the issuing
// thread's bulk / cp.async group), which is where the race checker attributes the access.
#pragma once

namespace tirx_sim {

enum class Completion { MBARRIER, BULK_GROUP, CP_ASYNC_GROUP, WGMMA_GROUP };
struct AsyncEvent {
  Completion kind;
  const void* mbarrier;  // MBARRIER: the barrier whose transaction count the bytes complete
};

// the race checker's entry point for asynchronous effects (tirx_sim_race.h; a no-op without --racecheck)
static void async_issue(const void* p, size_t bytes, bool write, const void* barrier, int family);

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

static inline void access(const void* p, size_t bytes, int kind);

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
static inline void cp_async_copy(void* dst, const void* src, unsigned int bytes, unsigned int read) {
  static const unsigned char zeros[16] = {0};
  AsyncEvent group{Completion::CP_ASYNC_GROUP, nullptr};
  if (read > bytes) read = bytes;
  if (read) async_move(dst, src, read, group);
  if (bytes > read) async_move((char*)dst + read, nullptr, bytes - read, group, zeros);
}

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

static inline TensorMap tensor_map_at(unsigned long long address, int rank, const char* what) {
  TensorMap m;
  memcpy(&m, (const void*)address, sizeof m);
  if (m.valid != 1) fail(std::string(what) + ": the operand is not a tensor map the launch encoded");
  if (m.rank != rank)
    fail(std::string(what) + " names " + std::to_string(rank) + " coordinates, the tensor map has rank " +
         std::to_string(m.rank));
  if (m.interleave != 0) fail(std::string(what) + ": not supported yet by tirxc sim: interleaved tensor maps");
  if (m.swizzle > 3) fail(std::string(what) + ": not supported yet by tirxc sim: swizzle mode " +
                          std::to_string(m.swizzle));
  return m;
}

// The swizzle of a shared byte address (mode 1, 2, 3: 32, 64, 128 bytes): bits [4, 4 + mode) XOR
// bits [7, 7 + mode), as the tensor cores' descriptors use it (target/tma.py swizzle_address).
static inline unsigned int swizzled(unsigned int address, int mode) {
  return address ^ (((address >> 7) & ((1u << mode) - 1)) << 4);
}

// What an OOB element reads as: zeros, or (OOB fill 1 on a float type) the canonical NaN.
static inline void oob_pattern(const TensorMap& m, unsigned char* out) {
  memset(out, 0, 8);
  if (m.oob_fill != 1) return;
  unsigned long long nan = 0;
  switch (m.data_type) {
    case 6: case 9: nan = 0x7fffull; break;          // FLOAT16, BFLOAT16
    case 7: case 10: case 11: case 12: nan = 0x7fffffffull; break;  // FLOAT32 (FTZ), TFLOAT32 (FTZ)
    case 8: nan = 0x7fffffffffffffffull; break;      // FLOAT64
    default: return;
  }
  memcpy(out, &nan, m.element_bytes);
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

static inline unsigned int tensor_box_bytes(const TensorMap& m) {
  unsigned int bytes = m.element_bytes;
  for (int i = 0; i < m.rank; ++i) bytes *= (m.box[i] + m.element_strides[i] - 1) / m.element_strides[i];
  return bytes;
}

static inline void check_box_destination(unsigned int offset, const TensorMap& m, const char* what) {
  unsigned int align = m.swizzle ? 128u : 16u;  // (the 1024-byte span of a swizzle is the caller's to keep)
  if (offset % align) fail(std::string(what) + ": the shared address " + std::to_string(offset) +
                           " is not aligned to " + std::to_string(align) + " bytes");
}

// cp.async.bulk.tensor.Nd.shared::{cta,cluster}.global.tile.mbarrier::complete_tx::bytes: the box
// into this CTA's shared memory, OOB elements filled, then the box's bytes complete on `mbar`;
// with .multicast::cluster, into each CTA of `cta_mask` at the same shared offset, completing on
// the mbarrier at mbar's offset in that CTA.
static inline void tma_load(void* dst, unsigned long long map, const int* coords, int rank, const void* mbar,
                            int cta_mask = -1) {
  const char* what = "cp.async.bulk.tensor (load)";
  TensorMap m = tensor_map_at(map, rank, what);
  unsigned int base = shared_offset(dst), barrier = shared_offset(mbar);
  check_box_destination(base, m, what);
  unsigned char fill[8];
  oob_pattern(m, fill);
  for (int cta = 0; cta < 16; ++cta) {
    if (cta_mask < 0 ? cta > 0 : !(cta_mask >> cta & 1)) continue;
    Block* into = cta_mask < 0 ? current_block : cluster_block((unsigned int)cta, "cp.async.bulk.tensor .multicast");
    const void* bar = into->shared + barrier;
    AsyncEvent done{Completion::MBARRIER, bar};
    tensor_box(m, coords, [&](unsigned int offset, const char* global) {
      async_move(into->shared + swizzled(base + offset, m.swizzle), global, m.element_bytes, done, fill);
    });
    mbarrier_tx(bar, -(long long)tensor_box_bytes(m));
  }
}

// cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group: the box's elements within the
// tensor's bounds from shared memory to global memory (the others are not written).
static inline void tma_store(unsigned long long map, const int* coords, int rank, const void* src) {
  const char* what = "cp.async.bulk.tensor (store)";
  TensorMap m = tensor_map_at(map, rank, what);
  unsigned int base = shared_offset(src);
  check_box_destination(base, m, what);
  AsyncEvent group{Completion::BULK_GROUP, nullptr};
  tensor_box(m, coords, [&](unsigned int offset, const char* global) {
    if (global != nullptr) async_move((void*)global, shared_at(swizzled(base + offset, m.swizzle)), m.element_bytes, group);
  });
}

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

static inline void tma_reduce(unsigned long long map, const int* coords, int rank, const void* src, char op) {
  const char* what = "cp.reduce.async.bulk.tensor";
  TensorMap m = tensor_map_at(map, rank, what);
  bool floating = m.data_type == 6 || m.data_type == 7 || m.data_type == 9;
  bool integral = m.data_type >= 2 && m.data_type <= 5;  // u32, s32, u64, s64
  if (!integral && !(floating && (op == '+' || op == '<' || op == '>')))
    fail(std::string(what) + ": not supported yet by tirxc sim for this element type and operation");
  unsigned int base = shared_offset(src);
  check_box_destination(base, m, what);
  AsyncEvent group{Completion::BULK_GROUP, nullptr};
  tensor_box(m, coords, [&](unsigned int offset, const char* global) {
    if (global == nullptr) return;
    unsigned char value[8];
    async_read(value, shared_at(swizzled(base + offset, m.swizzle)), m.element_bytes, group);
    if (m.element_bytes == 2) reduce_element<unsigned short>((void*)global, value, m, op);
    if (m.element_bytes == 4) reduce_element<unsigned int>((void*)global, value, m, op);
    if (m.element_bytes == 8) reduce_element<unsigned long long>((void*)global, value, m, op);
  });
}

// cp.async.bulk (no tensor map): `bytes` contiguous bytes, completing on `mbar` or, when it is
// null, in the issuing thread's bulk group
static inline void bulk_copy(void* dst, const void* src, unsigned int bytes, const void* mbar) {
  if (bytes % 16) fail("cp.async.bulk of " + std::to_string(bytes) + " bytes (a multiple of 16)");
  AsyncEvent done{mbar != nullptr ? Completion::MBARRIER : Completion::BULK_GROUP, mbar};
  async_move(dst, src, bytes, done);
  if (mbar != nullptr) mbarrier_tx(mbar, -(long long)bytes);
}

}  // namespace tirx_sim
