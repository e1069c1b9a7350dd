// Test ensembles (heavy tops from random initial conditions on the unit |Γ| sphere, pendulums
// released from rest) and the bitwise comparison of two runs.
#pragma once
#include <cmath>
#include <cstring>
#include <random>
#include <string>

#include <liebatch/models/pendulum_chain.hpp>

#include <liebatch/ensemble/ensemble.hpp>
#include "problems.hpp"

namespace lbtest {

/// n heavy tops, Π gaussian with spin scale in [0.2, 3], Γ uniform on S².
inline lb::Ensemble<lb::HeavyTop<double>> heavy_top_ensemble(std::size_t n, unsigned seed = 7) {
  lb::Ensemble<lb::HeavyTop<double>> e;
  e.size = n;
  e.model.v = {HeavyTopProblem::model<double>()};
  e.y0.resize(6 * n);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  std::uniform_real_distribution<double> spin(0.2, 3.0);
  for (std::size_t i = 0; i < n; ++i) {
    const double s = spin(rng);
    double G[3] = {g(rng), g(rng), g(rng)};
    const double nG = std::sqrt(G[0] * G[0] + G[1] * G[1] + G[2] * G[2]);
    for (int d = 0; d < 3; ++d) {
      e.y0[d * n + i] = s * g(rng);
      e.y0[(3 + d) * n + i] = G[d] / nG;
    }
  }
  return e;
}

/// n unit pendulums (g = 9.81) released from rest at 0.2 … 1.2 rad in the x–z plane, t ∈ [0, t1].
inline lb::Ensemble<lb::PendulumChain<double, 1>> released_pendulums(std::size_t n, double t1) {
  lb::Ensemble<lb::PendulumChain<double, 1>> e;
  e.size = n;
  e.model.v = {{{1.0}, {1.0}, 9.81}};
  e.t1.v = {t1};
  e.y0.resize(6 * n);
  for (std::size_t i = 0; i < n; ++i) {
    const double a = 0.2 + double(i) / double(n);
    e.y0[0 * n + i] = std::sin(a);
    e.y0[2 * n + i] = -std::cos(a);
  }
  return e;
}

/// "" when a and b hold the same bits in every field, else the first field that differs.
template <class T> std::string difference(const lb::EnsembleOutput<T>& a, const lb::EnsembleOutput<T>& b) {
  auto same = [](const auto& x, const auto& y) {
    return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0);
  };
#define LB_SAME(f) \
  if (!same(a.f, b.f)) return #f;
  LB_SAME(y) LB_SAME(t) LB_SAME(steps) LB_SAME(rejected) LB_SAME(status) LB_SAME(sample_t) LB_SAME(sample_y)
  LB_SAME(sample_obs) LB_SAME(hit_member) LB_SAME(hit_index) LB_SAME(hit_t) LB_SAME(hit_y) LB_SAME(hit_obs)
  LB_SAME(hits) LB_SAME(lost_hits) LB_SAME(suspects)
#undef LB_SAME
  return "";
}

}  // namespace lbtest
