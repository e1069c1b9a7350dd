// CPU-vs-GPU cases for HEDOP5 on a constrained system (issue 18): the heavy top in SE(3), fixed and
// adaptive steps, one r×r Schur solve per stage per member on the device.
#include <liebatch/ensemble/cuda.cuh>
#include "ensemble_cases.hpp"

namespace lbtest {

std::vector<GpuCase> gpu_constrained_cases() {
  std::vector<GpuCase> v;
  add_constrained_cases<lb::cuda::CudaBackend>(v);
  return v;
}

}  // namespace lbtest
