// Ensemble throughput: trajectory-steps per second of the heavy top with RKMK4 in double, on the
// GPU (2²⁰ trajectories by default) and, in the same run, on the CPU (all threads, a smaller
// ensemble), with their ratio; the achieved FLOP/s from the counted FLOPs per step
// (bench/flop_counter.hpp) and its fraction of the device's FP64 peak; with "sweep", ensemble
// sizes 2¹⁰ … 2^max (every second power, and 2^max) to show where throughput saturates. Rates are
// of the integration alone (the chunk kernels, EnsembleOutput::integrate_seconds); the end-to-end
// time with allocation and transfers is printed beside them.
// Usage: bench_throughput [log2 GPU ensemble size] [steps] [sweep]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <liebatch/liebatch.hpp>
#include <liebatch/models/heavy_top.hpp>

#include <liebatch/ensemble/cuda.cuh>
#include <liebatch/ensemble/device.hpp>
#include <liebatch/ensemble/cpu.hpp>
#include "device_peak.cuh"
#include "timing.hpp"

namespace {

using lb::bench::seconds;

lb::Ensemble<lb::HeavyTop<double>> tops(std::size_t n, int steps) {
  lb::Ensemble<lb::HeavyTop<double>> e;
  e.size = n;
  e.model.v = {{lb::vec3(2.0, 1.5, 0.8), lb::vec3(0.1, 0.05, 0.5), 1.0, 9.81}};
  lb::StepControl<double> c;
  c.h = 1.0 / steps;
  c.max_attempts = steps + 1;
  e.control.v = {c};
  e.y0.resize(6 * n);
  std::mt19937_64 rng(1);
  std::normal_distribution<double> g;
  for (std::size_t i = 0; i < n; ++i) {
    double G[3] = {g(rng), g(rng), g(rng)};
    const double nG = std::sqrt(G[0] * G[0] + G[1] * G[1] + G[2] * G[2]);
    for (int d = 0; d < 3; ++d) {
      e.y0[d * n + i] = g(rng);
      e.y0[(3 + d) * n + i] = G[d] / nG;
    }
  }
  return e;
}

}  // namespace

/// FLOPs of one RKMK4 step of the heavy top (heavy_top_flops.cpp: counted on the host compiler,
/// since the counting scalar is host-only).
long heavy_top_rkmk4_flops(const lb::HeavyTop<double>& top, const double* y, double h);

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 20;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 1000;
  const bool sweep = argc > 3 && std::string(argv[3]) == "sweep";
  using M = lb::methods::rkmk4;
  lb::RunOptions o;

  const std::size_t ncpu = std::size_t(1) << 14;
  const auto ec = tops(ncpu, steps);
  lb::EnsembleOutput<double> cpu;
  (void)seconds([&] { cpu = lb::run_cpu<M>(ec, o); });
  const double tc = cpu.integrate_seconds;
  const double rate_cpu = double(ncpu) * steps / tc;
  std::printf("cpu: %zu trajectories x %d steps in %.3f s: %.3e trajectory-steps/s (%s)\n", ncpu, steps, tc, rate_cpu,
              cpu.device.c_str());

  if (const std::string why = lb::gpu_unavailable_reason(); !why.empty()) {
    std::printf("gpu: skipped: %s\n", why.c_str());
    return 0;
  }
  const lb::bench::DevicePeak peak = lb::bench::device_peak();
  double y0[6];
  for (int d = 0; d < 6; ++d) y0[d] = ec.y0[std::size_t(d) * ec.size];
  const long flops = heavy_top_rkmk4_flops(ec.model[0], y0, ec.control[0].h);
  std::printf("device: %s, %d SMs at %.2f GHz: FP64 peak %.0f GFLOP/s, FP32 peak %.0f GFLOP/s (device properties)\n",
              peak.name.c_str(), peak.sms, peak.clock_ghz, peak.fp64_gflops, peak.fp32_gflops);
  std::printf("counted FLOPs per RKMK4 heavy-top step: %ld\n", flops);
  (void)lb::cuda::run_gpu<M>(tops(1024, 10), o);  // warm-up: context creation and module load
  long bad = 0;
  double rate_gpu = 0;
  for (int k = sweep ? std::min(10, log2n) : log2n;; k = std::min(k + 2, log2n)) {
    const std::size_t ngpu = std::size_t(1) << k;
    const auto eg = tops(ngpu, steps);
    lb::EnsembleOutput<double> gpu;
    const double total = seconds([&] { gpu = lb::cuda::run_gpu<M>(eg, o); });
    const double tg = gpu.integrate_seconds;
    rate_gpu = double(ngpu) * steps / tg;
    for (auto st : gpu.status) bad += st != std::uint8_t(lb::Status::ok);
    const double gflops = rate_gpu * double(flops) * 1e-9;
    std::printf("gpu: 2^%d = %zu trajectories x %d steps: kernels %.3f s (end to end %.3f s): %.3e trajectory-steps/s, "
                "%.0f GFLOP/s = %.1f %% of FP64 peak (%s)\n",
                k, ngpu, steps, tg, total, rate_gpu, gflops, peak.fp64_gflops > 0 ? 100 * gflops / peak.fp64_gflops : 0.0,
                gpu.device.c_str());
    if (k == log2n) break;
  }
  std::printf("ratio gpu/cpu at 2^%d: %.1f; members not ok: %ld\n", log2n, rate_gpu / rate_cpu, bad);
  return bad == 0 ? 0 : 1;
}
