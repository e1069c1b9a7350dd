// Command-line entry for the N-fold spherical pendulum, for any N; the build compiles the N of
// LIEBATCH_CLI_CHAINS, one unit each, and the command the others at run time, as a plugin of this
// header (cli/models/plugin_unit.cpp, LB_USER_ENTRY).
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
  static std::span<const Param<Chain>> table() { return params; }
  static Chain base(const std::string&) { return default_chain(); }
  /// N is read by the registry (a structural parameter: one compiled chain each) and consumed here.
  static void check(Node* p) {
    if (!p) return;
    p->integer("N", 1, 64);
    if (p->has("total_length") && p->has("lengths")) Node::fail(p->at("total_length"), "give either 'lengths' or 'total_length', not both");
  }
  static std::vector<std::string> presets() {
    return {"paper: every link at (q, w) = (sqrt(2)/2, 0, sqrt(2)/2, 0, 1, 0) ([CCLMO22 §5.3])"};
  }
  /// The preset "paper": every link at (qᵢ, ωᵢ) = (√2/2, 0, √2/2, 0, 1, 0) ([CCLMO22 §5.3]).
  static std::vector<double> initial(const Chain&, const std::string& preset) {
    std::vector<double> y;
    const double s = std::sqrt(2.0) / 2;
    if (preset == "paper")
      for (int i = 0; i < N; ++i) y.insert(y.end(), {s, 0, s, 0, 1, 0});
    return y;
  }
};

/// The runner for the chain of N links; instantiated for each N of LIEBATCH_CLI_CHAINS in a unit of
/// its own (models_pendulum_N.cpp, generated).
template <int N> std::unique_ptr<ModelRunner> make_pendulum(Node* params, const std::string& preset) {
  return make_runner<PendulumEntry<N>>(params, preset);
}

}  // namespace lb::cli
