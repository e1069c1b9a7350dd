// CPU-vs-GPU cases for the HeavyTop problem, every method.
#include <liebatch/ensemble/cuda.cuh>
#include "ensemble_cases.hpp"

namespace lbtest {

void add_heavy_top_cases(std::vector<GpuCase>& v) { LB_ALL_CASES(lb::cuda::CudaBackend, HeavyTopProblem) }

}  // namespace lbtest
