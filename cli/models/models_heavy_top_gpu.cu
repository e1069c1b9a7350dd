// The command line's GPU kernels for the heavy top, on se*(3) and in the spatial form on T*SO(3).
#include <liebatch/models/heavy_top_spatial.hpp>

#include "cli/models/gpu_run.cuh"

LB_CLI_GPU_MODEL(lb::HeavyTop)
LB_CLI_GPU_MODEL(lb::HeavyTopSpatial)
