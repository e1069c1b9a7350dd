// gpu_unavailable_reason() for builds with CUDA.
#include <cuda_runtime.h>

#include "../host/device.hpp"
#include "check.cuh"

namespace lb {

std::string gpu_unavailable_reason() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return "no usable CUDA device (" + cuda::check(e, "cudaGetDeviceCount") + ")";
  if (n == 0) return "no CUDA device present";
  return "";
}

}  // namespace lb
