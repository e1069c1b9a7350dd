// The Lorenz ensemble benchmark of the DiffEqGPU [Utk24] and MPGOS [NPH21] papers: float, fixed
// dt = 0.001, 1000 RK4 steps (RKMK4 on ℝ³ is classical RK4), ρ swept across the members (σ = 10,
// β = 8/3), only the end point kept, N = 2^10 … 2^max. Published V100 times at N = 2²³: DiffEqGPU
// 145.3 ms, MPGOS 94.2 ms; MPGOS's rate is scaled to this GPU by the ratio of FP32 peaks (V100 SXM2:
// 15.7 TFLOP/s) as the target of issue 8. The CPU runs the same ensemble (smaller) in the same
// process. The comparison uses the integration alone (EnsembleOutput::integrate_seconds: the
// kernels, with the data already on the device); the end-to-end time with allocation and transfers
// of 2²³ members is printed beside it.
// Usage: bench_lorenz [log2 max N (23)]
#include <cstdio>
#include <cstdlib>

#include <liebatch/liebatch.hpp>
#include <liebatch/models/lorenz.hpp>

#include <liebatch/ensemble/cuda.cuh>
#include <liebatch/ensemble/device.hpp>
#include <liebatch/ensemble/cpu.hpp>
#include "device_peak.cuh"
#include "timing.hpp"

namespace {

using lb::bench::seconds;

lb::Ensemble<lb::Lorenz<float>> lorenz(std::size_t n) {
  lb::Ensemble<lb::Lorenz<float>> e;
  e.size = n;
  e.model.v.resize(n);
  for (std::size_t i = 0; i < n; ++i) e.model.v[i] = {10.0f, float(21.0 * double(i) / double(n)), 8.0f / 3.0f};  // ρ ∈ [0, 21)
  e.t1.v = {1.0f};
  lb::StepControl<float> c;
  c.h = 0.001f;
  c.max_attempts = 1001;
  e.control.v = {c};
  e.y0.assign(3 * n, 1.0f);  // (x, y, z) = (1, 1, 1), as in the papers
  return e;
}

}  // namespace

int main(int argc, char** argv) {
  const int log2max = argc > 1 ? std::atoi(argv[1]) : 23;
  using M = lb::methods::rkmk4;
  lb::RunOptions o;
  const std::size_t ncpu = std::size_t(1) << 16;
  const auto ec = lorenz(ncpu);
  lb::EnsembleOutput<float> cpu;
  (void)seconds([&] { cpu = lb::run_cpu<M>(ec, o); });
  const double tc = cpu.integrate_seconds;
  std::printf("cpu: N = 2^16: %.1f ms (%s): %.3e trajectory-steps/s\n", 1e3 * tc, cpu.device.c_str(), double(ncpu) * 1000 / tc);
  if (const std::string why = lb::gpu_unavailable_reason(); !why.empty()) {
    std::printf("gpu: skipped: %s\n", why.c_str());
    return 0;
  }
  const lb::bench::DevicePeak peak = lb::bench::device_peak();
  const double v100_fp32 = 15.7e3, mpgos_ms = 94.2, diffeqgpu_ms = 145.3;  // GFLOP/s; ms at N = 2^23
  const double scale = peak.fp32_gflops / v100_fp32;
  std::printf("device: %s, FP32 peak %.0f GFLOP/s = %.2f x V100; target at 2^23: MPGOS 94.2 ms / %.2f = %.1f ms\n",
              peak.name.c_str(), peak.fp32_gflops, scale, scale, mpgos_ms / scale);
  (void)lb::cuda::run_gpu<M>(lorenz(1024), o);  // warm-up
  for (int k = 10; k <= log2max; ++k) {
    const std::size_t n = std::size_t(1) << k;
    const auto e = lorenz(n);
    lb::EnsembleOutput<float> gpu;
    const double total = seconds([&] { gpu = lb::cuda::run_gpu<M>(e, o); });
    const double t = gpu.integrate_seconds;
    long bad = 0;
    for (std::size_t i = 0; i < n; ++i) bad += gpu.status[i] != std::uint8_t(lb::Status::ok);
    std::printf("gpu: N = 2^%d: kernels %.2f ms (end to end %.2f ms), %.3e trajectory-steps/s, %ld not ok\n", k, 1e3 * t,
                1e3 * total, double(n) * 1000 / t, bad);
    if (k == 23)
      std::printf("at 2^23: %.2f ms; against MPGOS scaled %.2f x, against DiffEqGPU scaled %.2f x (>1: faster)\n", 1e3 * t,
                  mpgos_ms / scale / (1e3 * t), diffeqgpu_ms / scale / (1e3 * t));
  }
  return 0;
}
