// The command line's GPU kernels for the two quadrotors with their load ([CCLMO22 §6.2]'s parabola
// controller) and for the Lorenz system.
#include <liebatch/models/load_transport.hpp>
#include <liebatch/models/lorenz.hpp>

#include "cli/models/gpu_run.cuh"

namespace {
template <class T> using Quadrotors = lb::QuadrotorLoad<T, lb::LoadTransport<T, lb::ParabolicPath<T>>>;
}

LB_CLI_GPU_MODEL(Quadrotors)
LB_CLI_GPU_MODEL(lb::Lorenz)
