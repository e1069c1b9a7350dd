// Philox and Sobol' on the device against the CPU (issue 6: the same numbers on CPU and GPU),
// implemented in sampling_gpu.cu when liebatch is built with CUDA (sampling_gpu_none.cpp otherwise).
#pragma once
#include <string>

namespace lbtest {

/// Member i's first draws of UnitSampler box (Philox4x32-10) and sobol (shifted and not), 2¹⁶
/// members × 7 coordinates × 2 attempts, computed in a kernel and on the host: "" when every value
/// is bitwise equal, else the first difference.
std::string gpu_sampling_check();

}  // namespace lbtest
