// The CPU-vs-GPU cases of ensemble_cases.hpp on the CPU backend with one thread (host_backend.hpp).
#include "ensemble_cases.hpp"
#include "host_backend.hpp"

namespace lbtest {

std::vector<GpuCase> emulated_cases() {
  std::vector<GpuCase> v;
  LB_ALL_CASES(HostBackend, RigidBodyProblem)
  LB_ALL_CASES(HostBackend, HeavyTopProblem)
  LB_ALL_CASES(HostBackend, DoublePendulumProblem)
  LB_ALL_CASES(HostBackend, QuadrotorLoadProblem)
  return v;
}

}  // namespace lbtest
