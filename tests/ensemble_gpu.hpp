// CPU-vs-GPU comparisons of the same ensemble, one case per model × method, implemented in the
// ensemble_gpu_*.cu files when liebatch is built with CUDA (none otherwise).
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace lbtest {

/// Outcome of one comparison.
struct Comparison {
  double max_diff = 0;     ///< max over members and components of |y_gpu − y_cpu| / max(1, |y_cpu|)
  double bound = 0;        ///< the bound the case must meet (see ensemble_cases.hpp)
  long mismatched_status = 0;
  long mismatched_steps = 0;  ///< members whose accepted or rejected step counts differ
  long newton_differences = 0;  ///< members whose Newton iteration counts (total or most in a step) differ
  long newton_max_difference = 0;  ///< the largest difference of a member's total Newton iterations
  std::string first_difference;  ///< "" when every output field is bitwise equal, else the first that is not
  std::string device;
};

struct GpuCase {
  std::string name;
  std::function<Comparison()> run;
};

/// Every case (empty in a build without CUDA).
std::vector<GpuCase> gpu_cases();

/// The symplectic methods (methods/symplectic.hpp) on the spatial heavy top, fixed steps (empty
/// in a build without CUDA).
std::vector<GpuCase> gpu_symplectic_cases();

/// HEDOP5 on the constrained heavy top in SE(3), fixed and adaptive steps (empty in a build
/// without CUDA).
std::vector<GpuCase> gpu_constrained_cases();

/// GPU runs split into batches and chunks equal the single-launch run bitwise, and 1 % poisoned
/// members carry Status::nonfinite on GPU and CPU alike. "" when all holds, else what failed.
std::string gpu_structure_check();

/// The same section crossings, in the same order per member, from CPU and GPU (pendulum ensemble,
/// GPU in batches). "" when all holds, else what differs.
std::string gpu_sections_check();

/// The stroboscopic draws of strobe_draws.hpp on the device against the CPU, fixed steps (rkmk4)
/// and adaptive (rkmk54): the same strobes at bitwise the same times. "" when all holds; `strobes`
/// counts those recorded.
std::string gpu_strobes_check(bool adaptive, long& strobes);

}  // namespace lbtest
