// tirxc sim: cuda_bf16.h is part of tirx_sim.h, which the compiler includes first.
#pragma once
#include "tirx_sim.h"
