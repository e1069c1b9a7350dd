// Initial states of an ensemble from a unit-cube sampler and a chart u ∈ [0, 1)^dim → state.
#pragma once
#include <stdexcept>
#include <string>

#include <liebatch/sampling/unit_sampler.hpp>

#include "ensemble.hpp"

namespace lb {

/// What a sampler is, for the record kept with the output: e.g. "box(dim=3, seed=42)".
inline std::string describe(const UnitSampler& s) {
  const std::string d = "dim=" + std::to_string(s.dim);
  switch (s.kind) {
    case SamplerKind::grid: {
      std::string r = "grid(" + d + ", points=";
      for (int j = 0; j < s.dim; ++j) {
        if (j > 0) r += 'x';
        r += std::to_string(s.per_axis[j]);
      }
      return r + ")";
    }
    case SamplerKind::box: return "box(" + d + ", philox4x32-10 seed=" + std::to_string(s.seed) + ")";
    case SamplerKind::sobol: return "sobol(" + d + ", joe-kuo, digital shift seed=" + std::to_string(s.seed) + ")";
  }
  return "unknown";
}

/// Fills e.y0 for e.size members: member i's state is chart(u, y) with u = s(i, ·). A chart returns
/// false to reject u (e.g. an energy level its configuration cannot reach): box samplers then draw
/// afresh, up to max_attempts; grid and Sobol' points cannot be redrawn, so that is an error.
template <class Model, class Chart>
void sample_y0(Ensemble<Model>& e, const UnitSampler& s, Chart&& chart, std::uint32_t max_attempts = 1000) {
  using point = typename Model::space::point;
  if (s.dim < 1 || s.dim > UnitSampler::max_dim)
    throw std::invalid_argument("sampler: 'dim' is " + std::to_string(s.dim) + "; expected 1 … " +
                                std::to_string(UnitSampler::max_dim));
  if (s.kind == SamplerKind::sobol && s.dim > sobol_max_dim)
    throw std::invalid_argument("sampler: sobol 'dim' is " + std::to_string(s.dim) + "; at most " +
                                std::to_string(sobol_max_dim) + " supported");
  if (s.kind == SamplerKind::grid) {
    std::size_t n = 1;
    for (int j = 0; j < s.dim; ++j) {
      if (s.per_axis[j] < 1)
        throw std::invalid_argument("sampler: grid 'points' on axis " + std::to_string(j) + " is " +
                                    std::to_string(s.per_axis[j]) + "; expected ≥ 1");
      n *= std::size_t(s.per_axis[j]);
    }
    if (n != e.size)
      throw std::invalid_argument("sampler: grid has " + std::to_string(n) + " points; the ensemble has " +
                                  std::to_string(e.size) + " members");
  }
  e.y0.assign(std::size_t(Ensemble<Model>::dim) * e.size, 0);
  double u[UnitSampler::max_dim];
  for (std::size_t i = 0; i < e.size; ++i) {
    point y;
    bool ok = false;
    const std::uint32_t attempts = s.kind == SamplerKind::box ? max_attempts : 1;
    for (std::uint32_t a = 0; a < attempts && !ok; ++a) {
      for (int j = 0; j < s.dim; ++j) u[j] = s(i, j, a);
      ok = chart(u, y);
    }
    if (!ok)
      throw std::invalid_argument("sampler: member " + std::to_string(i) + " rejected by the chart after " +
                                  std::to_string(attempts) + " draw(s) of " + describe(s));
    for (int d = 0; d < Ensemble<Model>::dim; ++d) e.y0[std::size_t(d) * e.size + i] = y[d];
  }
}

}  // namespace lb
