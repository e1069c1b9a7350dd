// Ensemble throughput: trajectory-steps per second of the heavy top with RKMK4 in double, on the
// GPU (2²⁰ trajectories by default) and, in the same run, on the CPU (all threads, a smaller
// ensemble), with their ratio. Usage: bench_throughput [log2 GPU ensemble size] [steps]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>

#include <liebatch/liebatch.hpp>
#include <liebatch/models/heavy_top.hpp>

#include "../cuda/ensemble.cuh"
#include "../host/device.hpp"
#include "../host/run_cpu.hpp"

namespace {

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

template <class F> double seconds(F&& f) {
  const auto a = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int log2n = argc > 1 ? std::atoi(argv[1]) : 20;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 1000;
  using M = lb::methods::rkmk4;
  lb::RunOptions o;

  const std::size_t ncpu = std::size_t(1) << 14;
  const auto ec = tops(ncpu, steps);
  lb::EnsembleOutput<double> cpu;
  const double tc = seconds([&] { cpu = lb::run_cpu<M>(ec, o); });
  const double rate_cpu = double(ncpu) * steps / tc;
  std::printf("cpu: %zu trajectories x %d steps in %.3f s: %.3e trajectory-steps/s (%s)\n", ncpu, steps, tc, rate_cpu,
              cpu.device.c_str());

  if (const std::string why = lb::gpu_unavailable_reason(); !why.empty()) {
    std::printf("gpu: skipped: %s\n", why.c_str());
    return 0;
  }
  const std::size_t ngpu = std::size_t(1) << log2n;
  const auto eg = tops(ngpu, steps);
  lb::EnsembleOutput<double> gpu;
  (void)lb::cuda::run_gpu<M>(tops(1024, 10), o);  // warm-up: context creation and module load
  const double tg = seconds([&] { gpu = lb::cuda::run_gpu<M>(eg, o); });
  const double rate_gpu = double(ngpu) * steps / tg;
  long bad = 0;
  for (auto s : gpu.status) bad += s != std::uint8_t(lb::Status::ok);
  std::printf("gpu: %zu trajectories x %d steps in %.3f s: %.3e trajectory-steps/s (%s), %ld not ok\n", ngpu, steps, tg,
              rate_gpu, gpu.device.c_str(), bad);
  std::printf("ratio gpu/cpu: %.1f\n", rate_gpu / rate_cpu);
  return bad == 0 ? 0 : 1;
}
