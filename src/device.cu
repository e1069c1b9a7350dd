// gpu_unavailable_reason() for builds with CUDA.
#include <cuda_runtime.h>

#include <liebatch/ensemble/device.hpp>
#include <liebatch/ensemble/cuda_check.cuh>

namespace lb {
#ifndef LIEBATCH_CUDA_CHECK_ONLY
namespace {
/// Compiled like every kernel of the build: whether the device can load it says whether the
/// build's architectures (CMAKE_CUDA_ARCHITECTURES, sm_90 by default) run on this device.
__global__ void probe_kernel() {}
}  // namespace
#endif

std::string gpu_unavailable_reason() {
#ifdef LIEBATCH_CUDA_CHECK_ONLY
  return "this liebatch's kernels were compiled to check them, not to run them (LIEBATCH_CUDA_CHECK_ONLY): "
         "rebuild without it";
#else
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) return "no usable CUDA device (" + cuda::check(e, "cudaGetDeviceCount") + ")";
  if (n == 0) return "no CUDA device present";
  cudaFuncAttributes a{};
  e = cudaFuncGetAttributes(&a, probe_kernel);
  if (e != cudaSuccess && e != cudaErrorNoKernelImageForDevice && e != cudaErrorInvalidDeviceFunction) {
    cudaGetLastError();
    return "the CUDA device cannot run kernels (" + cuda::check(e, "cudaFuncGetAttributes") + ")";
  }
  if (e != cudaSuccess) {
    int dev = 0, major = 0, minor = 0;
    cudaGetDevice(&dev);
    cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
    cudaGetLastError();  // clear the (non-sticky) error the probe left
    return "the CUDA device (sm_" + std::to_string(major) + std::to_string(minor) +
           ") cannot run this build's kernels (" + cuda::check(e, "cudaFuncGetAttributes") +
           "); rebuild with CMAKE_CUDA_ARCHITECTURES including it";
  }
  return "";
#endif
}

}  // namespace lb
