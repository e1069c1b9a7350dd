// Turns CUDA errors into messages that say which call failed and why.
#pragma once
#include <cuda_runtime.h>

#include <string>

namespace lb::cuda {

/// "" on success, otherwise "<what>: <CUDA's description> (<error name>)".
inline std::string check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return {};
  return std::string(what) + ": " + cudaGetErrorString(e) + " (" + cudaGetErrorName(e) + ")";
}

}  // namespace lb::cuda
