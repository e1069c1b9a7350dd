// CPU-vs-GPU cases for the HeavyTop problem, every method.
#include <liebatch/ensemble/cuda.cuh>
#include "ensemble_cases.hpp"

namespace lbtest {

void add_heavy_top_cases(std::vector<GpuCase>& v) { add_all_cases<lb::cuda::CudaBackend, HeavyTopProblem>(v); }

}  // namespace lbtest
