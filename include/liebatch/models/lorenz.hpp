// The Lorenz system on ℝ³ under translation: a Euclidean ODE through the same engine, so liebatch
// can be compared with ordinary ensemble solvers (the DiffEqGPU / MPGOS benchmark).
#pragma once
#include "../group_space.hpp"
#include "names.hpp"

namespace lb {

template <class T> struct Lorenz {
  using space = Euclidean<T, 3>;
  static constexpr bool packs = true;  ///< runs on packs of members (docs/packs.md)
  /// Packs of two registers: a stage is a few dependent FLOPs, and two independent chains hide
  /// each other's latency (docs/packs.md §7: 1.24× in double on RKMK4).
  static constexpr int pack_registers = 2;
  using point = typename space::point;
  T sigma = T(10), rho = T(28), beta = T(8) / T(3);

  LB_HD point f(T /*t*/, const point& y) const {
    return vec3(sigma * (y[1] - y[0]), y[0] * (rho - y[2]) - y[1], y[0] * y[1] - beta * y[2]);
  }
  static std::vector<std::string> state_names() { return {"x", "y", "z"}; }
  template <class U> LB_HD Lorenz<U> cast() const { return {U(sigma), U(rho), U(beta)}; }
};

}  // namespace lb
