// The core cases compiled for the device: one thread per case.
#include <cuda_runtime.h>

#include <liebatch/ensemble/cuda_check.cuh>
#include <liebatch/ensemble/device.hpp>
#include "core_device.hpp"

namespace lbtest {

namespace {
template <class T> __global__ void core_kernel(const CoreIn<T>* in, CoreOut<T>* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = eval_core(in[i]);
}
}  // namespace

using lb::cuda::check;

template <class T>
std::string run_core_on_device(const std::vector<CoreIn<T>>& in, std::vector<CoreOut<T>>& out) {
  const int n = int(in.size());
  out.resize(in.size());
  CoreIn<T>* din = nullptr;
  CoreOut<T>* dout = nullptr;
  std::string err = check(cudaMalloc(&din, n * sizeof(CoreIn<T>)), "cudaMalloc");
  if (err.empty()) err = check(cudaMalloc(&dout, n * sizeof(CoreOut<T>)), "cudaMalloc");
  if (err.empty()) err = check(cudaMemcpy(din, in.data(), n * sizeof(CoreIn<T>), cudaMemcpyHostToDevice), "cudaMemcpy");
  if (err.empty()) {
    core_kernel<T><<<(n + 127) / 128, 128>>>(din, dout, n);
    err = check(cudaGetLastError(), "core_kernel launch");
  }
  if (err.empty()) err = check(cudaMemcpy(out.data(), dout, n * sizeof(CoreOut<T>), cudaMemcpyDeviceToHost), "cudaMemcpy");
  cudaFree(din);
  cudaFree(dout);
  return err;
}

template std::string run_core_on_device<float>(const std::vector<CoreIn<float>>&, std::vector<CoreOut<float>>&);
template std::string run_core_on_device<double>(const std::vector<CoreIn<double>>&, std::vector<CoreOut<double>>&);

}  // namespace lbtest
