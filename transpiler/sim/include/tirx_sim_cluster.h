// tirxc sim: thread-block clusters (docs/sim.md, "Clusters"). The blocks of a cluster run as the
// fibers of one scheduler (tirx_sim_sched.h run_grid), so they see each other's shared memory:
// a shared::cluster address is ((rank + 1) << 24) | offset in that CTA's shared window, a
// shared::cta address (the upper byte 0) this CTA's; the cluster barrier completes when every
// thread of the cluster that has not ended has arrived.
// (The bodies of the functions declared here are in tirx_sim_ptx.cpp.)
#pragma once

namespace tirx_sim {

static const unsigned int CLUSTER_RANK_SHIFT = 24;  // (a shared window is far below 16 MiB)

Block* cluster_block(unsigned int rank, const char* what);

// mapa.shared::cluster: this CTA's shared address `p` in the CTA of rank `rank`
unsigned int cluster_address(const void* p, unsigned int rank);

// mapa (generic): the same place of the CTA of rank `rank`, as a generic pointer
void* cluster_pointer(const void* p, unsigned int rank);

// a shared::cluster address as a pointer
void* cluster_shared_at(unsigned int address);

// barrier.cluster.arrive: this thread's arrival on the current phase (a `.relaxed` one: release false)
void cluster_arrive(bool release = true);

// barrier.cluster.wait: until the phase this thread arrived in completes (a poll: the others run)
void cluster_wait();

// %clusterid, %nclusterid, %cluster_ctaid, %cluster_nctaid (axis 0-2), %cluster_ctarank,
// %cluster_nctarank, %is_explicit_cluster
unsigned int cluster_register(const char* name, int axis);

}  // namespace tirx_sim
