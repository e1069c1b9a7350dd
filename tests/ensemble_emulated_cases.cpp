// The CPU-vs-GPU cases of ensemble_cases.hpp on the CPU backend with one thread (host_backend.hpp).
#include <liebatch/methods/symplectic.hpp>

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

/// The symplectic methods (Newton per member; ensemble_gpu_symplectic.cu's cases) on the heavy top
/// in spatial form, fixed steps.
std::vector<GpuCase> emulated_symplectic_cases() {
  std::vector<GpuCase> v;
  using P = SpatialHeavyTopProblem;
#define LB_SYMPLECTIC_CASE(m, d, ...) \
  v.push_back({std::string(P::name) + " / " #m, [] { return compare<HostBackend, lb::methods::m, P>(false); }});
  LB_SYMPLECTIC_METHODS(LB_SYMPLECTIC_CASE)
#undef LB_SYMPLECTIC_CASE
  return v;
}

std::vector<GpuCase> emulated_constrained_cases() {
  std::vector<GpuCase> v;
  add_constrained_cases<HostBackend>(v);
  return v;
}

}  // namespace lbtest
