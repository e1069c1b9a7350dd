// CPU-vs-GPU cases for the QuadrotorLoad problem (a 42-dimensional state, a time-dependent
// controller evaluated at every stage), every method.
#include <liebatch/ensemble/cuda.cuh>
#include "ensemble_cases.hpp"

namespace lbtest {

void add_quadrotor_cases(std::vector<GpuCase>& v) { add_all_cases<lb::cuda::CudaBackend, QuadrotorLoadProblem>(v); }

}  // namespace lbtest
