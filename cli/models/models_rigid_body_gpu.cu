// The command line's GPU kernels for the free rigid body, on so*(3) and with its attitude.
#include <liebatch/models/rigid_body_attitude.hpp>

#include "cli/models/gpu_run.cuh"

LB_CLI_GPU_MODEL(lb::FreeRigidBody)
LB_CLI_GPU_MODEL(lb::RigidBodyAttitude)
