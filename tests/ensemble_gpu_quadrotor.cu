// CPU-vs-GPU cases for the QuadrotorLoad problem (a 42-dimensional state, a time-dependent
// controller evaluated at every stage), every method: the even ones of LB_METHODS here, the odd
// ones in ensemble_gpu_quadrotor_odd.cu (the longest unit of the tests, split to compile in parallel).
#include <liebatch/ensemble/cuda.cuh>
#include "ensemble_cases.hpp"

namespace lbtest {

void add_quadrotor_cases_odd(std::vector<GpuCase>& v);

void add_quadrotor_cases(std::vector<GpuCase>& v) {
  add_all_cases<lb::cuda::CudaBackend, QuadrotorLoadProblem, 0, 2>(v);
  add_quadrotor_cases_odd(v);
}

}  // namespace lbtest
