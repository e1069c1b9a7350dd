// CPU-vs-GPU cases for the RigidBody problem, every method.
#include "ensemble_gpu_cases.cuh"

namespace lbtest {

void add_rigid_body_cases(std::vector<GpuCase>& v) { LB_ALL_CASES(RigidBodyProblem) }

}  // namespace lbtest
