// The GPU kernels of a user's model (docs/user-models.md): compiled by nvcc beside
// plugin_unit.cpp, with the same -include, -DLB_USER_MODEL and -DLB_USER_METHODS(X), into the same
// plugin. run_on_gpu is instantiated for the model's own methods, as models_*_gpu.cu instantiates
// it for the build's.
#define LB_CLI_GPU_RUN_METHODS LB_USER_METHODS
#include "cli/models/gpu_run.cuh"

LB_CLI_GPU_MODEL(LB_USER_MODEL)
