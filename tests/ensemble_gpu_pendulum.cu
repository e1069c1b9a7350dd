// CPU-vs-GPU cases for the DoublePendulum problem, every method.
#include "ensemble_gpu_cases.cuh"

namespace lbtest {

void add_pendulum_cases(std::vector<GpuCase>& v) { LB_ALL_CASES(DoublePendulumProblem) }

}  // namespace lbtest
