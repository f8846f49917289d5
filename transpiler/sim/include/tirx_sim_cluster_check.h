// tirxc sim --racecheck / --synccheck on clusters (docs/sim.md, "Clusters under the checkers"). The
// CTAs of a cluster share one checker state (tirx_sim_race.h check_block_start): thread t of CTA
// rank r is one index, r * block_threads + t, in one clock space, and each CTA's shared memory has
// its cells in one shadow, so a store to another CTA's buffer (DSMEM) and that CTA's read of it are
// compared by bytes. Happens-before across the CTAs: barrier.cluster (a release arrive joins the
// thread's clock into the phase, a .relaxed one only what the thread's last fence of cluster scope
// released; the wait acquires the phase), remote mbarrier arrives and multicast complete_tx (the
// mbarrier table is the cluster's, by address). The protocol checks: a cluster barrier that
// completes while threads of the cluster ended without arriving (E0839), an access of a CTA's
// shared memory (a DSMEM load or store, a remote arrive, a multicast write) not ordered before that
// CTA's exit (E0840), and another CTA's mbarrier used with no fence.mbarrier_init after its init
// (E0841), and one before that CTA is known to run (E0842).
#pragma once

namespace tirx_sim {

// the CTA rank whose shared memory holds `p`; -1: none
static inline int shared_rank_of(const void* p) {
  for (const Block* o : current_block->cluster->blocks)
    if ((const char*)p >= o->shared && (const char*)p < o->shared + o->launch->shared_bytes) return o->rank;
  return -1;
}

// a fence of cluster (or wider) scope, or fence.mbarrier_init.release.cluster: what a later
// barrier.cluster.arrive.relaxed of the thread releases
void check_cluster_fence() {
  if (checker == nullptr || checker->cluster_fenced.empty()) return;
  int t = me();
  Clock& c = checker->cluster_fenced[t];
  c.assign(checker->threads, 0);
  join_thread_into(c, t);
  tick(t);
}

// barrier.cluster.arrive (release: not .relaxed)
void check_cluster_arrive(bool release) {
  if (checker == nullptr) return;
  int t = me();
  Clock& arrivals = checker->cluster_arrivals;
  if (arrivals.empty()) arrivals.assign(checker->threads, 0);
  if (release)
    join_thread_into(arrivals, t);
  else if (!checker->cluster_fenced[t].empty())
    join_into(arrivals, checker->cluster_fenced[t]);
  tick(t);
}

// the cluster barrier's phase completes (in the thread whose wait completes it): what its arrivals
// released is what its waiters acquire. Under --synccheck, threads of the cluster that ended without
// arriving are E0839 (they count as arrived, so the barrier waits for fewer threads than the kernel
// means; a CTA that exits so takes its shared memory away from the others).
void check_cluster_phase() {
  if (checker == nullptr) return;
  checker->cluster_released = checker->cluster_arrivals;
  checker->cluster_arrivals.clear();
  if (!checker->protocols) return;
  Cluster* c = current_block->cluster;
  for (Block* b : c->blocks) {
    std::vector<int> ended;
    for (Fiber& f : b->fibers)
      if (f.wait == Wait::DONE && c->arrived_in[(size_t)b->rank * b->fibers.size() + f.linear] != c->barrier_phase + 1)
        ended.push_back(f.linear);
    if (ended.empty()) continue;
    protocol_found(839, me(), current_fiber->site,
                   "this cluster barrier completes while threads " + thread_list(ended) + " of CTA rank " +
                       std::to_string(b->rank) + " ended without arriving at it (they count as arrived: the "
                       "barrier waits for fewer threads than the kernel means)");
    return;
  }
}

// barrier.cluster.wait returned: the thread acquires the completed phase
void check_cluster_waited() {
  if (checker == nullptr || checker->cluster_released.empty()) return;
  acquire_into_thread(me(), checker->cluster_released);
}

// `thread` accesses shared memory at shadow offset `offset` (tirx_sim_race.h access_as): an access
// of another CTA's is remembered for that CTA's exit, or is E0840 now if the CTA has exited
void check_remote_access(int thread, int site, size_t offset) {
  int rank = (int)(offset / (4 * checker->shared_cells_per_cta));
  if (rank == thread / checker->block_threads) return;
  checker->remote[rank][thread] = std::make_pair(clock_of(thread, thread), site);
  const Block* target = current_block->cluster->blocks[rank];
  if (checker->protocols) {  // the CTA's start must be ordered before (a cluster barrier since it began)
    bool started = false;
    for (int t = rank * checker->block_threads; t < rank * checker->block_threads + (int)target->fibers.size() && !started; ++t)
      started = clock_of(thread, t) > 0;
    if (!started)
      thread_record(842, thread, site, -1, "an access of the shared memory of CTA rank " + std::to_string(rank) +
                    " that no cluster barrier orders after that CTA's start: it may not run yet (its shared memory "
                    "not there, or its initialisation still to come)");
  }
  if (checker->protocols && target->live == 0)
    thread_record(840, thread, site, -1, "an access of the shared memory of CTA rank " + std::to_string(rank) +
                  ", which has exited: a CTA's shared memory must stay alive until the cluster's accesses of it "
                  "are done (a cluster barrier before its exit is missing)");
}

// a remote arrive (mbarrier.arrive.shared::cluster on another CTA's barrier)
void check_remote_arrive(const void* address) {
  int rank = shared_rank_of(address);
  if (rank < 0) return;
  size_t offset = (size_t)((const char*)address - current_block->cluster->blocks[rank]->shared);
  check_remote_access(me(), current_fiber->site, offset + 4 * checker->shared_cells_per_cta * rank);
}

// every thread of CTA `b` has ended: the accesses of its shared memory by other CTAs must be
// ordered before its exit (the join of its threads' clocks)
void check_cta_exit(Block* b) {
  if (checker == nullptr || checker->remote.empty() || !checker->protocols) return;
  Clock exit(checker->threads, 0);
  for (int t = check_thread(b, 0); t < check_thread(b, (int)b->fibers.size()); ++t) join_thread_into(exit, t);
  const std::vector<std::pair<unsigned int, int>>& accesses = checker->remote[b->rank];
  for (int u = 0; u < (int)accesses.size(); ++u)
    if (accesses[u].second >= 0 && exit[u] < accesses[u].first) {
      thread_record(840, u, accesses[u].second, -1,
                    "this access of the shared memory of CTA rank " + std::to_string(b->rank) + " is not ordered "
                    "before that CTA's exit: a CTA's shared memory must stay alive until the cluster's accesses "
                    "of it are done (a cluster barrier before its exit is missing)");
      return;
    }
}

// another CTA's mbarrier used (a remote arrive): its init must be made visible to the cluster by a
// fence.mbarrier_init (or fence.proxy.async) of the initialising thread ordered before the use
void check_remote_init(const MbarrierCheck& m, const void* address, const char* what) {
  int rank = shared_rank_of(address);
  if (rank < 0 || rank == me() / checker->block_threads || m.init.thread < 0) return;
  if (fenced_for(m.init.thread, m.init_time, me(), true)) return;
  thread_record(841, me(), current_fiber->site, m.init.site,
                std::string(what) + " on the mbarrier of CTA rank " + std::to_string(rank) + " whose init (thread " +
                    std::to_string(local_of(m.init.thread)) + ", site " + std::to_string(m.init.site) +
                    ") no fence.mbarrier_init.release.cluster made visible to the cluster");
}

}  // namespace tirx_sim
