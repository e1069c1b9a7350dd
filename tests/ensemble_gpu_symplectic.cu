// CPU-vs-GPU cases for the symplectic methods (issue 17: SLGI θ = 0, ½, 1 and Hamilton–Pontryagin
// Störmer–Verlet and variational Euler, τ = exp and Cayley), each solving its Newton system per
// member on the device, on the heavy top in spatial T*SO(3) form, fixed steps.
#include <liebatch/ensemble/cuda.cuh>
#include <liebatch/methods/symplectic.hpp>
#include "ensemble_cases.hpp"

namespace lbtest {

void add_symplectic_cases(std::vector<GpuCase>& v) {
  using B = lb::cuda::CudaBackend;
  using P = SpatialHeavyTopProblem;
#define LB_SYMPLECTIC_CASE(m, d, ...) \
  v.push_back({std::string(P::name) + " / " #m, [] { return compare<B, lb::methods::m, P>(false); }});
  LB_SYMPLECTIC_METHODS(LB_SYMPLECTIC_CASE)
#undef LB_SYMPLECTIC_CASE
}

}  // namespace lbtest
