// The samplers on the device: every member's draws from a kernel against the same calls on the host.
#include <string>
#include <vector>

#include <liebatch/sampling/unit_sampler.hpp>

#include <liebatch/ensemble/cuda_check.cuh>
#include "sampling_gpu.hpp"

namespace lbtest {

namespace {

constexpr int kDim = 7, kAttempts = 2;

__global__ void draw(lb::UnitSampler s, std::size_t n, double* out) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  for (int a = 0; a < kAttempts; ++a)
    for (int j = 0; j < kDim; ++j) out[(std::size_t(a) * kDim + std::size_t(j)) * n + i] = s(i, j, std::uint32_t(a));
}

/// "" or the first difference between device and host draws of `s`.
std::string compare(const lb::UnitSampler& s, const char* what) {
  const std::size_t n = std::size_t(1) << 16, m = n * kDim * kAttempts;
  double* d = nullptr;
  if (auto e = lb::cuda::check(cudaMalloc(&d, m * sizeof(double)), "cudaMalloc"); !e.empty()) return e;
  draw<<<unsigned((n + 255) / 256), 256>>>(s, n, d);
  std::vector<double> gpu(m);
  std::string err = lb::cuda::check(cudaGetLastError(), "draw launch");
  if (err.empty()) err = lb::cuda::check(cudaMemcpy(gpu.data(), d, m * sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy");
  cudaFree(d);
  if (!err.empty()) return err;
  for (int a = 0; a < kAttempts; ++a)
    for (int j = 0; j < kDim; ++j)
      for (std::size_t i = 0; i < n; ++i) {
        const double host = s(i, j, std::uint32_t(a)), dev = gpu[(std::size_t(a) * kDim + std::size_t(j)) * n + i];
        if (host != dev)
          return std::string(what) + ": member " + std::to_string(i) + " coordinate " + std::to_string(j) + " attempt " +
                 std::to_string(a) + ": host " + std::to_string(host) + ", device " + std::to_string(dev);
      }
  return "";
}

}  // namespace

std::string gpu_sampling_check() {
  lb::UnitSampler box;
  box.kind = lb::SamplerKind::box;
  box.dim = kDim;
  box.seed = 0x123456789abcdefULL;
  lb::UnitSampler sobol = box;
  sobol.kind = lb::SamplerKind::sobol;
  lb::UnitSampler plain = sobol;
  plain.seed = 0;
  for (auto [s, what] : {std::pair{box, "box (Philox)"}, std::pair{sobol, "sobol, shifted"}, std::pair{plain, "sobol"}})
    if (std::string e = compare(s, what); !e.empty()) return e;
  return "";
}

}  // namespace lbtest
