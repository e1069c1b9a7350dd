// The CPU-vs-GPU cases of ensemble_cases.hpp on the CPU backend with one thread (host_backend.hpp).
#include "ensemble_cases.hpp"
#include "host_backend.hpp"

namespace lbtest {

std::vector<GpuCase> emulated_cases() {
  std::vector<GpuCase> v;
  add_all_cases<HostBackend, RigidBodyProblem>(v);
  add_all_cases<HostBackend, HeavyTopProblem>(v);
  add_all_cases<HostBackend, DoublePendulumProblem>(v);
  add_all_cases<HostBackend, QuadrotorLoadProblem>(v);
  return v;
}

std::vector<GpuCase> emulated_constrained_cases() {
  std::vector<GpuCase> v;
  add_constrained_cases<HostBackend>(v);
  return v;
}

}  // namespace lbtest
