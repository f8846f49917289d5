// tirxc sim --synccheck (docs/sim.md, "Barrier protocols"): __syncthreads reached by threads at
// different call sites or after a thread ended, named-barrier counts that disagree, mbarriers
// used where their init is not ordered before the use (by the vector clocks of tirx_sim_race.h),
// arrivals beyond the expected count, transaction bytes beyond expect_tx, parity waits that
// skip a phase, and deadlocks. Each is a finding (`S` line).
#pragma once

namespace tirx_sim {

static inline void protocol_found(int code, int thread, int site, const std::string& text) {
  thread_record(code, thread, site, -1, text);
}

// A located error of the run that --synccheck also reports as a finding (then the block stops).
[[noreturn]] void protocol_error(int code, const std::string& message) {
  if (checker != nullptr && checker->protocols)
    protocol_found(code, me(), current_fiber->site, message);
  fail(message);
}

static std::string thread_list(const std::vector<int>& threads) {
  std::string text;
  for (size_t i = 0; i < threads.size();) {
    size_t j = i + 1;
    while (j < threads.size() && threads[j] == threads[j - 1] + 1) ++j;
    text += (text.empty() ? "" : ", ") + std::to_string(threads[i]);
    if (j - i > 1) text += "-" + std::to_string(threads[j - 1]);
    i = j;
  }
  return text;
}

// __syncthreads about to release: its waiters should all be at one call site, and no thread
// should have ended before it (sm_70 counts it as arrived; the barrier then waits for fewer).
void check_sync_participants(Block* b) {
  if (!checker->protocols) return;
  std::map<int, std::vector<int>> by_site;
  std::vector<int> ended;
  for (Fiber& f : b->fibers) {
    if (f.wait == Wait::BARRIER && f.kind != 3) by_site[f.site].push_back(f.linear);
    if (f.wait == Wait::DONE) ended.push_back(f.linear);
  }
  if (by_site.empty()) return;
  auto first = by_site.begin();
  if (by_site.size() > 1) {
    auto other = std::next(first);
    protocol_found(831, check_thread(b, other->second[0]), other->first,
                   "threads " + thread_list(other->second) + " wait at this __syncthreads while threads " +
                       thread_list(first->second) + " wait at another one (site " + std::to_string(first->first) +
                       "): one barrier, reached from different places");
  }
  if (!ended.empty())
    protocol_found(830, check_thread(b, first->second[0]), first->first,
                   "threads " + thread_list(ended) + " ended without reaching this __syncthreads, which threads " +
                       thread_list(first->second) + " wait at");
}

// A deadlock or a block stuck polling: the scheduler's message names the waiting threads.
bool check_deadlock(Block* b, const std::string& text) {
  if (!checker->protocols) return false;
  for (Fiber& f : b->fibers)
    if (f.wait != Wait::DONE) {
      std::string message = text.substr(text.find("deadlock"));
      protocol_found(837, check_thread(b, f.linear), f.site, message);
      return true;
    }
  return false;
}

// -- mbarriers ---------------------------------------------------------------------------------
void check_mbarrier_init(const void* address) {
  if (checker == nullptr) return;
  MbarrierCheck& m = checker->mbarriers[address];
  m = MbarrierCheck();
  m.init = access_now(me(), current_fiber->site);
  m.seen.assign(checker->threads, -2);
  m.init_time = checker->fence_time;
  tick(me());
}

static inline MbarrierCheck* mbarrier_check(const void* address, const char* what) {
  if (checker == nullptr) return nullptr;
  auto it = checker->mbarriers.find(address);
  if (it == checker->mbarriers.end()) return nullptr;
  MbarrierCheck& m = it->second;
  if (checker->protocols && !ordered_before(m.init, me())) {
    char text[200];
    snprintf(text, sizeof text, "%s on an mbarrier whose init (thread %d, site %d) is not ordered before it "
             "(a barrier or a fence between them is missing)", what, m.init.thread, m.init.site);
    protocol_found(833, me(), current_fiber->site, text);
  } else if (checker->protocols && checker->cta_blocks.size() > 1) {
    check_remote_init(m, address, what);  // (another CTA's barrier: its init fenced for the cluster)
  }
  return &m;
}

void check_mbarrier_arrive(const void* address) {
  MbarrierCheck* m = mbarrier_check(address, "mbarrier.arrive");
  if (m == nullptr) return;
  if (checker->cta_blocks.size() > 1 && checker->races) check_remote_arrive(address);
  if (m->arrivals.empty()) m->arrivals.assign(checker->threads, 0);
  join_thread_into(m->arrivals, me());
  tick(me());
}

// the current phase completed: its arrivals' clocks are what a wait on it acquires
void check_mbarrier_phase(const void* address) {
  if (checker == nullptr) return;
  auto it = checker->mbarriers.find(address);
  if (it == checker->mbarriers.end()) return;
  MbarrierCheck& m = it->second;
  if (checker->races) async_complete_barrier(address, m.arrivals);
  m.phase_clock[m.completed & 1] = m.arrivals;
  m.arrivals.clear();
  ++m.completed;
}

// a parity wait that succeeded: it observed phase `completed - 1`
void check_mbarrier_waited(const void* address) {
  MbarrierCheck* m = mbarrier_check(address, "mbarrier.try_wait");
  if (m == nullptr) return;
  int t = me();
  long long observed = m->completed - 1;
  if (observed >= 0 && !m->phase_clock[observed & 1].empty()) acquire_into_thread(t, m->phase_clock[observed & 1]);
  long long seen = m->seen[t];
  // a phase skipped: the parity this thread waits with matches a phase two phases after the one
  // it last observed. (Observing the same phase again is not reported by itself: a probe does;
  // a stale parity that relies on it reads data with no new order, a race --racecheck reports.)
  if (checker->protocols && seen != -2 && observed > seen + 1)
    protocol_found(836, t, current_fiber->site,
                   "a parity wait that observes phase " + std::to_string(observed) + " of this mbarrier, where this "
                   "thread last observed phase " + std::to_string(seen) + ": phase " + std::to_string(seen + 1) +
                   " was skipped (the parity matches a phase two phases old)");
  m->seen[t] = observed;
}

}  // namespace tirx_sim
