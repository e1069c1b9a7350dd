// The list of CPU-vs-GPU cases, and the structural checks (batches, chunks, poisoned members,
// section crossings) on the GPU.
#include <liebatch/ensemble/cuda.cuh>
#include "ensemble_checks.hpp"
#include "ensemble_gpu.hpp"

namespace lbtest {

void add_rigid_body_cases(std::vector<GpuCase>& v);
void add_heavy_top_cases(std::vector<GpuCase>& v);
void add_pendulum_cases(std::vector<GpuCase>& v);
void add_quadrotor_cases(std::vector<GpuCase>& v);
void add_symplectic_cases(std::vector<GpuCase>& v);

std::vector<GpuCase> gpu_cases() {
  std::vector<GpuCase> v;
  add_rigid_body_cases(v);
  add_heavy_top_cases(v);
  add_pendulum_cases(v);
  add_quadrotor_cases(v);
  return v;
}

std::vector<GpuCase> gpu_symplectic_cases() {
  std::vector<GpuCase> v;
  add_symplectic_cases(v);
  return v;
}

std::string gpu_sections_check() { return sections_check<lb::cuda::CudaBackend>(); }
std::string gpu_structure_check() { return structure_check<lb::cuda::CudaBackend>(); }

}  // namespace lbtest
