// tirxc sim --racecheck / --synccheck: the async proxy (docs/sim.md, "Proxies"). TMA, bulk copies
// and wgmma access shared memory through the async proxy, which sees generic-proxy writes only
// across a fence.proxy.async: a generic write of bytes an async operation then reads needs one,
// by the writing thread after the write and ordered (program order, a barrier) before the issue,
// or by the issuing thread after the write; else E0826. An mbarrier the async proxy uses (a TMA's
// complete_tx) needs its init made visible to it by fence.mbarrier_init (or fence.proxy.async) of
// the initialising thread, ordered before the TMA's issue; else E0838.
#pragma once

namespace tirx_sim {

// fence.proxy.async (`async`) or fence.mbarrier_init by the running thread
void check_proxy_fence(bool async) {
  if (checker == nullptr) return;
  int t = me();
  checker->fences[t].push_back(ProxyFence{++checker->fence_time, clock_of(t, t), async});
  tick(t);
  if (!async) check_cluster_fence();  // (fence.mbarrier_init.release.cluster: see tirx_sim_cluster_check.h)
}

// whether `thread` fenced (an async fence, or any with `any`) after fence time `after`, ordered
// before what `reader` does now
static bool fenced_for(int thread, unsigned int after, int reader, bool any) {
  const std::vector<ProxyFence>& fences = checker->fences[thread];
  unsigned int seen = clock_of(reader, thread);
  for (size_t i = fences.size(); i-- > 0 && fences[i].time > after;)
    if ((any || fences[i].async) && (thread == reader || fences[i].clock < seen)) return true;
  return false;
}

// the async proxy is about to read [p, p + bytes) for the running thread's operation
void check_proxy_read(const void* p, size_t bytes) {
  if (checker == nullptr || !checker->races || bytes == 0) return;
  char space;
  size_t offset;
  Cell* cells = cells_of(p, bytes, &space, &offset);
  if (cells == nullptr || space != 's') return;
  int t = me();
  for (size_t w = offset / 4; w <= (offset + bytes - 1) / 4; ++w) {
    const Cell& c = cells[w];
    if (c.write.thread < 0 || c.write_async) continue;
    if (fenced_for(c.write.thread, c.written_at, t, false) || fenced_for(t, c.written_at, t, false)) continue;
    char text[200];
    snprintf(text, sizeof text, "the async proxy reads shared memory that thread %d wrote (site %d) with no "
             "fence.proxy.async between the write and this operation", local_of(c.write.thread), c.write.site);
    thread_record(826, t, current_fiber->site, c.write.site, text);
    return;
  }
}

// the async proxy uses the mbarrier at `address` (a TMA completes bytes on it)
void check_proxy_barrier(const void* address) {
  if (checker == nullptr || !checker->protocols) return;
  auto it = checker->mbarriers.find(address);
  if (it == checker->mbarriers.end()) return;
  const MbarrierCheck& m = it->second;
  if (m.init.thread < 0 || fenced_for(m.init.thread, m.init_time, me(), true)) return;
  char text[200];
  snprintf(text, sizeof text, "a TMA completes bytes on an mbarrier whose init (thread %d, site %d) no "
           "fence.mbarrier_init made visible to the async proxy", local_of(m.init.thread), m.init.site);
  thread_record(838, me(), current_fiber->site, m.init.site, text);
}

}  // namespace tirx_sim
