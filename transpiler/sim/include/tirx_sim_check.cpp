// tirxc sim's runtime, compiled once into an object the kernels link against
// (transpiler/sim/build.py): the checkers (--racecheck, --synccheck), whose hooks
// tirx_sim_check.h declares. Their headers are this file's alone, so their helpers inline
// into one another here and the kernel's translation unit never compiles them.
#include "tirx_sim.h"

namespace tirx_sim {
Checker* checker = nullptr;
}  // namespace tirx_sim

#include "tirx_sim_race.h"
#include "tirx_sim_sync.h"
#include "tirx_sim_wgmma_check.h"
#include "tirx_sim_proxy_check.h"
#include "tirx_sim_tcgen05_check.h"
#include "tirx_sim_cluster_check.h"
