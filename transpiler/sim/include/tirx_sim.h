// tirxc sim's CPU runtime (docs/sim.md): enough of CUDA, with CUDA's semantics, to compile
// the sim flavour of a tirxc .cu with the host C++ compiler and run it. Every CUDA thread of
// a block is a fiber; barriers, warp collectives and __activemask are scheduling points.
// Force-included (`-include tirx_sim.h`) before the .cu; the headers the .cu names
// (math_constants.h, cuda_fp16.h ...) are the small files beside this one.
#pragma once
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __maxnreg__(...)
#define __cluster_dims__(...)
#define __grid_constant__
#define __align__(n) __attribute__((aligned(n)))
#define __constant__ static

struct uint3 { unsigned int x, y, z; };
struct dim3 { unsigned int x, y, z; };
static const int warpSize = 32;

#include "tirx_sim_fiber.h"
#include "tirx_sim_types.h"
#include "tirx_sim_check.h"
#include "tirx_sim_sched.h"
#include "tirx_sim_ops.h"
#include "tirx_sim_ptx.h"
#include "tirx_sim_race.h"
#include "tirx_sim_sync.h"
#include "tirx_sim_wgmma_check.h"
#include "tirx_sim_proxy_check.h"
#include "tirx_sim_tcgen05_check.h"
#include "tirx_sim_cluster_check.h"
