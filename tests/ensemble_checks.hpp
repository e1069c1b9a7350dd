// The GPU path's structural checks, through a backend B of run_batched (CUDA in ensemble_gpu.cu,
// the CPU backend with small memories in test_ensemble_emulated.cpp). Each returns "" when all holds, else what
// failed.
#pragma once
#include <cmath>
#include <limits>
#include <string>

#include <liebatch/ensemble/engine.hpp>
#include <liebatch/ensemble/cpu.hpp>
#include "ensembles.hpp"

namespace lbtest {

/// The same section crossings, in the same order per member, from run_cpu and B (500 pendulums,
/// section q_x = 0, B in batches of 128, four chunks), times within 1e-8.
template <class B> std::string sections_check() {
  auto e = released_pendulums(500, 10.0);
  e.control.v[0].atol = e.control.v[0].rtol = 1e-10;
  lb::RunOptions o;
  o.adaptive = true;
  o.chunks = 4;
  const lb::Hyperplane<double> plane{0, 0.0, lb::Crossing::both};
  const auto cpu = lb::run_cpu<lb::methods::rkmk54>(e, o, plane);
  o.batch = 128;
  const auto gpu = lb::run_batched<B, lb::methods::rkmk54>(e, o, plane);
  if (cpu.hit_member != gpu.hit_member || cpu.hit_index != gpu.hit_index) {
    return "CPU and GPU record different crossings (" + std::to_string(cpu.hit_t.size()) + " vs " +
           std::to_string(gpu.hit_t.size()) + ")";
  }
  for (std::size_t r = 0; r < cpu.hit_t.size(); ++r) {
    if (std::abs(cpu.hit_t[r] - gpu.hit_t[r]) > 1e-8) return "crossing time differs at record " + std::to_string(r);
  }
  return "";
}

/// B's run split into five batches and one-sample chunks equals its single-launch run bitwise,
/// and 1 % poisoned members carry Status::nonfinite from B and from run_cpu.
template <class B> std::string structure_check() {
  using M = lb::methods::rkmk54;
  auto e = heavy_top_ensemble(3000);
  e.samples = 9;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t i = 5; i < e.size; i += 100) e.y0[2 * e.size + i] = nan;  // 1 % poisoned
  lb::RunOptions o;
  o.adaptive = true;
  const auto whole = lb::run_batched<B, M>(e, o);
  o.batch = 700;  // five batches, the last one short
  o.samples_per_chunk = 1;
  const auto split = lb::run_batched<B, M>(e, o);
  if (const std::string field = difference(whole, split); !field.empty()) {
    return "batched and chunked GPU run differs from the single-launch run in " + field;
  }
  const auto cpu = lb::run_cpu<M>(e, o);
  for (std::size_t i = 0; i < e.size; ++i) {
    const bool poisoned = (i >= 5 && (i - 5) % 100 == 0);
    const auto want = std::uint8_t(poisoned ? lb::Status::nonfinite : lb::Status::ok);
    if (whole.status[i] != want || cpu.status[i] != want) return "member " + std::to_string(i) + " has the wrong status";
    // Samples after a failure are NaN, never zeros: t, every component and every observable.
    for (const auto* out : {&whole, &cpu})
      for (int k = 1; k < e.samples; ++k) {
        bool all_nan = std::isnan(out->sample_t[std::size_t(k) * e.size + i]), any_nan = all_nan;
        for (int d = 0; d < out->dim; ++d) {
          const double y = out->sample_y[(std::size_t(k) * std::size_t(out->dim) + std::size_t(d)) * e.size + i];
          all_nan = all_nan && std::isnan(y);
          any_nan = any_nan || std::isnan(y);
        }
        for (int q = 0; q < out->nobs; ++q) all_nan = all_nan && std::isnan(out->sample_obs[(std::size_t(k) * std::size_t(out->nobs) + std::size_t(q)) * e.size + i]);
        if (poisoned ? !all_nan : any_nan)
          return "member " + std::to_string(i) + ", sample " + std::to_string(k) + (poisoned ? ": not NaN after its failure" : ": NaN in a member that finished");
      }
  }
  return "";
}

}  // namespace lbtest
