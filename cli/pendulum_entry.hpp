// Command-line entry for the N-fold spherical pendulum, any compiled N (models_pendulum*.cpp
// instantiate N ∈ {1, 2, 3, 5, 10, 20, 32}, split in two files to compile in parallel).
#pragma once
#include <cmath>

#include <liebatch/models/pendulum_chain.hpp>
#include <liebatch/sampling/energy_level.hpp>

#include "entry_util.hpp"
#include "gpu_run.hpp"
#include "manifold.hpp"

namespace lb::cli {

template <int N> struct PendulumEntry {
  static constexpr const char* name = "pendulum_chain";
  static constexpr bool energy_levels = true;
  static constexpr bool gpu = gpu_chain<N>();  ///< kernels for this N (LIEBATCH_CLI_GPU_CHAINS)
  static std::string gpu_note() {
    std::string chains;
    for (int n : gpu_chains()) chains += (chains.empty() ? "" : ", ") + std::to_string(n);
    return "N = " + std::to_string(N) + " has no GPU kernels in this build (chains compiled: " + (chains.empty() ? "none" : chains) +
           "; add N to the CMake list LIEBATCH_CLI_GPU_CHAINS)";
  }
  template <class T> using model = PendulumChain<T, N>;
  using point = Vec<double, 6 * N>;
  struct Params {
    PendulumChain<double, N> chain;
    bool preset;
  };
  static Params parse(Node* p, const std::string& preset) {
    if (p) p->integer("N", 1, 1000);  // read by the registry; consumed here
    Params r{{}, preset == "paper"};
    const auto m = positives(p, "masses", N, std::vector<double>(N, 1.0));
    std::vector<double> L(N, 1.0);
    if (p && p->has("total_length")) {
      if (p->has("lengths")) Node::fail(p->at("total_length"), "give either 'lengths' or 'total_length', not both");
      L.assign(N, p->positive("total_length") / N);
    } else {
      L = positives(p, "lengths", N, L);
    }
    for (int i = 0; i < N; ++i) { r.chain.mass[i] = m[i]; r.chain.length[i] = L[i]; }
    r.chain.gravity = positive(p, "gravity", 9.81);
    return r;
  }
  template <class T> static model<T> build(const Params& p) {
    model<T> c;
    for (int i = 0; i < N; ++i) { c.mass[i] = T(p.chain.mass[i]); c.length[i] = T(p.chain.length[i]); }
    c.gravity = T(p.chain.gravity);
    return c;
  }
  /// [CCLMO22 §5.3]: every link at (qᵢ, ωᵢ) = (√2/2, 0, √2/2, 0, 1, 0).
  static std::vector<double> initial(const Params& p) {
    if (!p.preset) return {};
    std::vector<double> y;
    const double s = std::sqrt(2.0) / 2;
    for (int i = 0; i < N; ++i) y.insert(y.end(), {s, 0, s, 0, 1, 0});
    return y;
  }
  static double defect(const Params&, const point& y) {
    double d = 0;
    for (int i = 0; i < N; ++i) {
      const auto q = y.template seg<3>(6 * i), w = y.template seg<3>(6 * i + 3);
      d = std::max({d, unit_defect(q), tangent_defect(q, w)});
    }
    return d;
  }
  static point project(const Params&, point y) {
    for (int i = 0; i < N; ++i) {
      auto q = y.template seg<3>(6 * i), w = y.template seg<3>(6 * i + 3);
      q = (1 / norm(q)) * q;
      y.set_seg(6 * i, q);
      y.set_seg(6 * i + 3, w - dot(q, w) * q);
    }
    return y;
  }
  static std::vector<std::string> state_names(const Params&) {
    std::vector<std::string> v;
    for (int i = 1; i <= N; ++i)
      for (const char* c : {"q", "w"})
        for (const char* a : {"x", "y", "z"}) v.push_back(std::string(c) + std::to_string(i) + "_" + a);
    return v;
  }
  static std::vector<std::string> obs_names(const Params&) { return {"energy", "max ||q_i| - 1|", "max |q_i.w_i|"}; }
};

/// The runner for the chain of `n` links (n compiled in this file's set), or null.
std::unique_ptr<ModelRunner> make_pendulum_short(int n, Node* params, const std::string& preset);
std::unique_ptr<ModelRunner> make_pendulum_long(int n, Node* params, const std::string& preset);

template <int N> std::unique_ptr<ModelRunner> make_pendulum(Node* params, const std::string& preset) {
  auto p = PendulumEntry<N>::parse(params, preset);
  if (params) params->finish();
  return std::make_unique<Runner<PendulumEntry<N>>>(std::move(p));
}

}  // namespace lb::cli
