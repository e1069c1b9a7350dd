// Test ensembles: heavy tops from random initial conditions on the unit |Γ| sphere.
#pragma once
#include <random>

#include "../host/ensemble.hpp"
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

}  // namespace lbtest
