// CPU-vs-GPU cases for the DoublePendulum problem, every method.
#include <liebatch/ensemble/cuda.cuh>
#include "ensemble_cases.hpp"

namespace lbtest {

void add_pendulum_cases(std::vector<GpuCase>& v) { add_all_cases<lb::cuda::CudaBackend, DoublePendulumProblem>(v); }

}  // namespace lbtest
