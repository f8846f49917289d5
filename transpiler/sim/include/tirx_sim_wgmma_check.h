// tirxc sim --racecheck: wgmma's groups (docs/sim.md, "wgmma groups"). A wgmma reads its
// shared-memory operands and writes its accumulator registers asynchronously, until the
// wgmma.wait_group that retires its group (wgmma.commit_group closes a group; wait_group N
// retires all but the newest N). The warpgroup's threads commit and wait alike, so an operand
// read belongs to the warpgroup (its first thread, async_owner) and each thread's accumulators
// to that thread. Until its wait: an async write of the operand bytes (a TMA refill) or a generic
// write of them is E0823, a generic access of the accumulators E0824. A wgmma whose thread has
// no wgmma.fence before it, or whose registers generic code accessed since the last fence, is
// E0825 (the PTX ISA asks for the fence in both places).
#pragma once

namespace tirx_sim {

static inline void register_finding(int code, int thread, int site, int other, const std::string& text) {
  thread_record(code, thread, site, other, text);
}

// wgmma_op begins (in the warpgroup's last thread to arrive): `accumulators[t]` are thread
// first_thread + t's `count` accumulator registers
void check_wgmma_issue(int first_thread, void** const* accumulators, int count) {
  if (checker == nullptr || !checker->races) return;
  int site = current_fiber->site;
  first_thread = check_thread(current_block, first_thread);
  bool reported = false;
  for (int t = 0; t < 128; ++t) {
    int thread = first_thread + t;
    RegisterChecks& r = checker->registers[thread];
    if (!reported && !r.fenced) {
      register_finding(825, thread, site, -1, "a wgmma.mma_async with no wgmma.fence before it in this thread: "
                       "the fence must come before a warpgroup's first wgmma");
      reported = true;
    }
    for (int j = 0; j < count && !reported; ++j) {
      auto it = r.touched.find(accumulators[t][j]);
      if (it == r.touched.end()) continue;
      register_finding(825, thread, site, it->second, "a wgmma.mma_async on accumulator registers that generic code "
                       "accessed (site " + std::to_string(it->second) + ") with no wgmma.fence between them");
      reported = true;
    }
    r.pending.push_back(PendingRegisters{std::vector<const void*>(accumulators[t], accumulators[t] + count), site, -1});
  }
  checker->async.push_back(AsyncOp{first_thread, site, nullptr, 0, false, -1, WGMMA, nullptr, false});
  checker->open_wgmma = (int)checker->async.size() - 1;
}

// one shared-memory operand read of the wgmma being issued: the issuing thread's read now, and
// pending (the wgmma's AsyncOp, spanning every byte it reads) until its group's wait
void check_wgmma_read(const void* p, size_t bytes) {
  check_proxy_read(p, bytes);
  access(p, bytes, READ);
  if (checker == nullptr || !checker->races || checker->open_wgmma < 0) return;
  char space;
  size_t offset;
  Cell* cells = cells_of(p, bytes, &space, &offset);
  if (cells == nullptr) return;
  AsyncOp& op = checker->async[checker->open_wgmma];
  char* low = (char*)p;
  char* high = low + bytes;
  if (op.bytes != 0) {
    low = std::min(low, op.address);
    high = std::max(high, op.address + op.bytes);
  }
  op.address = low;
  op.bytes = (size_t)(high - low);
  for (size_t w = offset / 4; w <= (offset + bytes - 1) / 4; ++w) cells[w].pending = checker->open_wgmma;
}

void check_wgmma_issued() {
  if (checker != nullptr) checker->open_wgmma = -1;
}

void check_wgmma_fence() {
  if (checker == nullptr || !checker->races) return;
  RegisterChecks& r = checker->registers[me()];
  r.fenced = true;
  r.touched.clear();
}

// generic code's access of a register a wgmma of the kernel uses (codegen/cuda_sim.py hooks them)
void register_access(const void* p, int site) {
  int thread = me();
  RegisterChecks& r = checker->registers[thread];
  for (const PendingRegisters& g : r.pending)
    for (const void* q : g.registers)
      if (q == p) {
        register_finding(824, thread, site, g.site, "an access of an accumulator register of a wgmma.mma_async "
                         "(site " + std::to_string(g.site) + ") before the wgmma.wait_group that retires it");
        r.touched[p] = site;
        return;
      }
  r.touched[p] = site;
}

}  // namespace tirx_sim
