// tirxc sim: thread-block clusters (docs/sim.md, "Clusters"). The blocks of a cluster run as the
// fibers of one scheduler (tirx_sim_sched.h run_grid), so they see each other's shared memory:
// a shared::cluster address is ((rank + 1) << 24) | offset in that CTA's shared window, a
// shared::cta address (the upper byte 0) this CTA's; the cluster barrier completes when every
// thread of the cluster that has not ended has arrived.
#pragma once

namespace tirx_sim {

static const unsigned int CLUSTER_RANK_SHIFT = 24;  // (a shared window is far below 16 MiB)

static inline Block* cluster_block(unsigned int rank, const char* what) {
  Cluster* c = current_block->cluster;
  if (rank >= c->blocks.size())
    fail(std::string(what) + ": CTA rank " + std::to_string(rank) + " is not in the cluster of " +
         std::to_string(c->blocks.size()));
  return c->blocks[rank];
}

// mapa.shared::cluster: this CTA's shared address `p` in the CTA of rank `rank`
static inline unsigned int cluster_address(const void* p, unsigned int rank) {
  cluster_block(rank, "mapa");
  return (rank + 1) << CLUSTER_RANK_SHIFT | shared_offset(p);
}

// mapa (generic): the same place of the CTA of rank `rank`, as a generic pointer
static inline void* cluster_pointer(const void* p, unsigned int rank) {
  return cluster_block(rank, "mapa")->shared + shared_offset(p);
}

// a shared::cluster address as a pointer
static inline void* cluster_shared_at(unsigned int address) {
  unsigned int rank = address >> CLUSTER_RANK_SHIFT;
  unsigned int offset = address & ((1u << CLUSTER_RANK_SHIFT) - 1);
  return (rank == 0 ? current_block : cluster_block(rank - 1, "a shared::cluster address"))->shared + offset;
}

static inline int cluster_live() {
  int live = 0;
  for (Block* b : current_block->cluster->blocks) live += b->live;
  return live;
}

// barrier.cluster.arrive: this thread's arrival on the current phase
static inline void cluster_arrive(bool release = true) {
  Cluster* c = current_block->cluster;
  unsigned int& mine = c->arrived_in[(size_t)current_block->rank * current_block->fibers.size() + current_fiber->linear];
  if (mine == c->barrier_phase + 1) fail("barrier.cluster.arrive twice in one phase (no wait between)");
  mine = c->barrier_phase + 1;
  ++c->barrier_arrived;
  if (checker != nullptr) check_cluster_arrive(release);  // (tirx_sim_cluster_check.h)
}

// barrier.cluster.wait: until the phase this thread arrived in completes (a poll: the others run)
static inline void cluster_wait() {
  Cluster* c = current_block->cluster;
  unsigned int& mine = c->arrived_in[(size_t)current_block->rank * current_block->fibers.size() + current_fiber->linear];
  if (mine == 0) fail("barrier.cluster.wait without an arrive before it");
  unsigned int phase = mine - 1;
  while (c->barrier_phase == phase) {
    if (c->barrier_arrived >= cluster_live()) {  // (threads that ended count as arrived)
      if (checker != nullptr) check_cluster_phase();
      c->barrier_arrived = 0;
      ++c->barrier_phase;
      break;
    }
    spin_point();
  }
  mine = 0;
  if (checker != nullptr) check_cluster_waited();
}

// %clusterid, %nclusterid, %cluster_ctaid, %cluster_nctaid (axis 0-2), %cluster_ctarank,
// %cluster_nctarank, %is_explicit_cluster
static inline unsigned int cluster_register(const char* name, int axis) {
  const Block* b = current_block;
  const dim3 c = b->launch->cluster;
  unsigned int dims[3] = {c.x, c.y, c.z};
  unsigned int block[3] = {b->block_idx.x, b->block_idx.y, b->block_idx.z};
  unsigned int grid[3] = {b->launch->grid.x, b->launch->grid.y, b->launch->grid.z};
  std::string n = name;
  if (n == "clusterid") return block[axis] / dims[axis];
  if (n == "nclusterid") return grid[axis] / dims[axis];
  if (n == "cluster_ctaid") return block[axis] % dims[axis];
  if (n == "cluster_nctaid") return dims[axis];
  if (n == "cluster_ctarank") return (unsigned int)b->rank;
  if (n == "cluster_nctarank") return c.x * c.y * c.z;
  return c.x * c.y * c.z > 1;  // is_explicit_cluster
}

}  // namespace tirx_sim
