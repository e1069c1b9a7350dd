// Stand-in for the ensemble_gpu*.cu files in a build without CUDA: no cases.
#include "ensemble_gpu.hpp"

namespace lbtest {

std::vector<GpuCase> gpu_cases() { return {}; }
std::vector<GpuCase> gpu_symplectic_cases() { return {}; }
std::vector<GpuCase> gpu_constrained_cases() { return {}; }
std::string gpu_structure_check() { return "built without CUDA"; }
std::string gpu_sections_check() { return "built without CUDA"; }
std::string gpu_strobes_check(bool, long&) { return "built without CUDA"; }

}  // namespace lbtest
