// CPU-vs-GPU cases for the DoublePendulum problem, every method.
#include <liebatch/ensemble/cuda.cuh>
#include "ensemble_cases.hpp"

namespace lbtest {

void add_pendulum_cases(std::vector<GpuCase>& v) { LB_ALL_CASES(lb::cuda::CudaBackend, DoublePendulumProblem) }

}  // namespace lbtest
