// Initial conditions for Monte Carlo ensembles: member i gets a point u ∈ [0, 1)^dim from a uniform
// grid, a uniform box (Philox) or Sobol', as a pure function of (sampler, i) — reproducible from
// the seed and identical on the CPU and the GPU. A chart maps u to a state on the manifold.
#pragma once
#include <cstdint>

#include "philox.hpp"
#include "sobol.hpp"

namespace lb {

enum class SamplerKind : std::uint8_t { grid, box, sobol };

struct UnitSampler {
  static constexpr int max_dim = 32;
  SamplerKind kind = SamplerKind::box;
  int dim = 1;
  std::uint64_t seed = 0;         ///< box: the Philox key; sobol: digital-shift key (0: unshifted)
  int per_axis[max_dim] = {};     ///< grid: points along each axis (their product is the member count)
  /// box: the Philox counter's stream word, so that two samplers under one seed (initial states: 0,
  /// parameter draws: 2) draw independent numbers; 1 is the Sobol' shifts' (below).
  std::uint32_t stream = 0;
  /// sobol: the sequence's coordinate that j = 0 reads, so that two samplers take disjoint
  /// coordinates of one sequence (parameter draws after the initial states') and stay independent.
  int first = 0;

  /// Coordinate j of member i's point. `attempt` > 0 gives fresh box draws for rejection sampling.
  LB_HD double operator()(std::uint64_t i, int j, std::uint32_t attempt = 0) const {
    switch (kind) {
      case SamplerKind::grid: {
        for (int l = 0; l < j; ++l) i /= std::uint64_t(per_axis[l]);
        return (double(i % std::uint64_t(per_axis[j])) + 0.5) / double(per_axis[j]);
      }
      case SamplerKind::box:
        return CounterRng{seed, stream}.uniform(i, attempt * std::uint32_t(dim) + std::uint32_t(j));
      case SamplerKind::sobol: {
        const int c = first + j;
        return sobol(i, c,
                     seed == 0 ? 0u : philox4x32_10({{std::uint32_t(c), 0u, 0u, 1u}}, std::uint32_t(seed), std::uint32_t(seed >> 32)).v[0]);
      }
    }
    return 0.0;
  }
};

}  // namespace lb
