// tirxc sim: the types of cuda_fp6.h are not simulated yet (docs/sim.md, Limits).
#pragma once
#error "not supported yet by tirxc sim: the types of cuda_fp6.h"
