// Choosing where an ensemble runs: auto (the GPU if one is usable, else the CPU), or forced.
#pragma once
#include <stdexcept>
#include <string>

namespace lb {

/// "" when a CUDA device can run kernels, otherwise why not (built without CUDA, no device,
/// driver too old, ...).
std::string gpu_unavailable_reason();

enum class Device { automatic, cpu, gpu };

/// Where a run goes and why.
struct DeviceChoice {
  bool gpu;
  std::string reason;  ///< e.g. "auto: no CUDA device present, using the CPU"
};

/// Resolves a request; a forced GPU that is not usable is an error naming the reason.
inline DeviceChoice choose_device(Device requested) {
  if (requested == Device::cpu) return {false, "cpu (requested)"};
  const std::string why = gpu_unavailable_reason();
  if (requested == Device::gpu) {
    if (!why.empty()) throw std::runtime_error("device 'gpu' requested but unusable: " + why);
    return {true, "gpu (requested)"};
  }
  if (why.empty()) return {true, "auto: CUDA device found, using the GPU"};
  return {false, "auto: " + why + ", using the CPU"};
}

}  // namespace lb
