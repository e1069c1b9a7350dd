// Runs the core cases (core_cases.hpp) on the GPU. Implemented in core_device.cu when liebatch is
// built with CUDA; otherwise every call reports lb::gpu_unavailable_reason().
#pragma once
#include <string>
#include <vector>

#include "core_cases.hpp"

namespace lbtest {

/// Evaluates eval_core on the device for every input; returns an error message or "".
template <class T>
std::string run_core_on_device(const std::vector<CoreIn<T>>& in, std::vector<CoreOut<T>>& out);

}  // namespace lbtest
