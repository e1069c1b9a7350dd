// Runs the core cases (core_cases.hpp) on the GPU. Implemented in core_device.cu when liebatch is
// built with CUDA; otherwise every call reports that no device is available.
#pragma once
#include <string>
#include <vector>

#include "core_cases.hpp"

namespace lbtest {

/// Empty when a CUDA device can run the checks, otherwise why not.
std::string device_unavailable_reason();

/// Evaluates eval_core on the device for every input; returns an error message or "".
template <class T>
std::string run_core_on_device(const std::vector<CoreIn<T>>& in, std::vector<CoreOut<T>>& out);

}  // namespace lbtest
