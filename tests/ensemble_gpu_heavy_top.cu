// CPU-vs-GPU cases for the HeavyTop problem, every method.
#include "ensemble_gpu_cases.cuh"

namespace lbtest {

void add_heavy_top_cases(std::vector<GpuCase>& v) { LB_ALL_CASES(HeavyTopProblem) }

}  // namespace lbtest
