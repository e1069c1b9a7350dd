// CPU-vs-GPU cases for the RigidBody problem, every method.
#include <liebatch/ensemble/cuda.cuh>
#include "ensemble_cases.hpp"

namespace lbtest {

void add_rigid_body_cases(std::vector<GpuCase>& v) { add_all_cases<lb::cuda::CudaBackend, RigidBodyProblem>(v); }

}  // namespace lbtest
