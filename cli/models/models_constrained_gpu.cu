// The command line's GPU kernels for the constrained systems (hedop5 where LIEBATCH_CLI_GPU_METHODS
// names it; no kernel otherwise).
#include "cli/models/constrained_models.hpp"
#include "cli/models/gpu_run.cuh"

LB_CLI_GPU_MODEL(lb::cli::HeavyTopSe3)
LB_CLI_GPU_MODEL(lb::cli::PlanarPendulumSystem)
