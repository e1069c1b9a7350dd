// Command-line entry for the N-fold spherical pendulum, for any N; the build compiles the N of
// LIEBATCH_CLI_CHAINS, one unit each.
#pragma once
#include <algorithm>
#include <cmath>

#include <liebatch/models/pendulum_chain.hpp>

#include "cli/models/entry_util.hpp"
#include "cli/models/gpu_run.hpp"

namespace lb::cli {

template <int N> struct PendulumEntry {
  static constexpr const char* name = "pendulum_chain";
  static constexpr bool gpu = gpu_chain<N>();  ///< kernels for this N (LIEBATCH_CLI_GPU_CHAINS)
  static std::string gpu_note() {
    std::string chains;
    for (int n : gpu_chains()) chains += (chains.empty() ? "" : ", ") + std::to_string(n);
    return "N = " + std::to_string(N) + " has no GPU kernels in this build (chains compiled: " + (chains.empty() ? "none" : chains) +
           "; add N to the CMake list LIEBATCH_CLI_GPU_CHAINS)";
  }
  template <class T> using model = PendulumChain<T, N>;
  using Chain = PendulumChain<double, N>;
  /// Unit masses and lengths, g = 9.81.
  static Chain default_chain() {
    Chain c{};
    for (int i = 0; i < N; ++i) c.mass[i] = c.length[i] = 1;
    c.gravity = 9.81;
    return c;
  }
  static constexpr Param<Chain> params[] = {
      member<&Chain::mass>("masses", Domain::positive, "[m_1 ... m_N]"),
      member<&Chain::length>("lengths", Domain::positive, "[L_1 ... L_N]"),
      {"total_length", 1, Domain::positive, "L, the lengths L_i = L/N (instead of lengths)", nullptr,
       [](Chain& c, const double* v) { std::fill_n(c.length, N, *v / N); }},
      member<&Chain::gravity>("gravity", Domain::positive, "g along -z"),
  };
  /// The defaults with the parameters given; the preset "paper" also gives the initial state of
  /// [CCLMO22 §5.3], every link at (qᵢ, ωᵢ) = (√2/2, 0, √2/2, 0, 1, 0).
  static Parsed<Chain> parse(Node* p, const std::string& preset) {
    if (p) p->integer("N", 1, 1000);  // read by the registry; consumed here
    if (p && p->has("total_length") && p->has("lengths"))
      Node::fail(p->at("total_length"), "give either 'lengths' or 'total_length', not both");
    Parsed<Chain> r{default_chain(), {}};
    read_params<Chain>(p, params, r.model);
    if (preset == "paper") {
      const double s = std::sqrt(2.0) / 2;
      for (int i = 0; i < N; ++i) r.initial.insert(r.initial.end(), {s, 0, s, 0, 1, 0});
    }
    return r;
  }
};

/// The runner for the chain of N links; instantiated for each N of LIEBATCH_CLI_CHAINS in a unit of
/// its own (models_pendulum_N.cpp, generated).
template <int N> std::unique_ptr<ModelRunner> make_pendulum(Node* params, const std::string& preset) {
  auto p = PendulumEntry<N>::parse(params, preset);
  if (params) params->finish();
  return std::make_unique<Runner<PendulumEntry<N>>>(std::move(p));
}

}  // namespace lb::cli
