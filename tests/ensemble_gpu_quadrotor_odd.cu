// The odd methods of LB_METHODS on the QuadrotorLoad problem, CPU against GPU (ensemble_gpu_quadrotor.cu).
#include <liebatch/ensemble/cuda.cuh>
#include "ensemble_cases.hpp"

namespace lbtest {

void add_quadrotor_cases_odd(std::vector<GpuCase>& v) { add_all_cases<lb::cuda::CudaBackend, QuadrotorLoadProblem, 1, 2>(v); }

}  // namespace lbtest
