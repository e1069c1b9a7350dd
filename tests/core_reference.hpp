// Host side of the core checks: the inputs (α log-spaced from 1e-12 to 3 and approaching 2π) and
// the score of each output against the quad-precision reference.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "core_cases.hpp"
#include "reference.hpp"

namespace lbtest {

using ref::Q;

/// |A| = α for every α in the sweep, random directions, |a| and |v| of order one.
template <class T> std::vector<CoreIn<T>> core_inputs(unsigned seed = 12345) {
  std::vector<double> alphas;
  for (int i = 0; i <= 60; ++i) alphas.push_back(std::pow(10.0, -12.0 + i * (std::log10(3.0) + 12.0) / 60));
  for (double d : {1.5, 1.0, 0.5, 0.3, 0.2, 0.1}) alphas.push_back(2 * M_PI - d);  // towards 2π
  // Just below each series tier's end (series.hpp), where its truncation error is largest.
  for (double end : {1.0 / 32, 0.25, 1.5}) alphas.push_back(end * (1 - 1e-6));  // 1e-6: below in float too
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> n01;
  std::vector<CoreIn<T>> in;
  for (double a : alphas) {
    for (int rep = 0; rep < 4; ++rep) {
      double d[3] = {n01(rng), n01(rng), n01(rng)};
      const double s = a / std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      CoreIn<T> c;
      for (int i = 0; i < 3; ++i) c.u[i] = T(d[i] * s);
      for (int i = 3; i < 6; ++i) c.u[i] = T(n01(rng));
      for (int i = 0; i < 6; ++i) c.v[i] = T(n01(rng));
      in.push_back(c);
    }
  }
  return in;
}

/// Largest relative error of each output over all cases.
struct CoreErrors {
  double so3_exp = 0, so3_dexp = 0, so3_dexpinv = 0, so3_roundtrip = 0;
  double se3_exp = 0, se3_dexp = 0, se3_dexpinv = 0, se3_roundtrip = 0;
  double alpha_max = 0;  ///< largest |A| among the cases scored
};

template <int N, class T> std::array<Q, N> to_q(const T* x) {
  std::array<Q, N> r;
  for (int i = 0; i < N; ++i) r[i] = Q(x[i]);
  return r;
}

/// Scores outputs against the reference, evaluated on exactly the same (rounded) inputs.
template <class T>
CoreErrors score_core(const std::vector<CoreIn<T>>& in, const std::vector<CoreOut<T>>& out) {
  CoreErrors e;
  auto upd = [](double& m, double x) { m = std::max(m, std::isfinite(x) ? x : 1e300); };
  for (std::size_t k = 0; k < in.size(); ++k) {
    const auto u = to_q<6>(in[k].u), v = to_q<6>(in[k].v);
    const std::array<Q, 3> A = {u[0], u[1], u[2]}, B = {v[0], v[1], v[2]};
    const auto& o = out[k];
    e.alpha_max = std::max(e.alpha_max, double(sqrt(A[0] * A[0] + A[1] * A[1] + A[2] * A[2])));

    const ref::Mat<3> R = ref::expm(ref::hat(A));
    upd(e.so3_exp, ref::rel_err(o.so3_exp, R.a));
    upd(e.so3_dexp, ref::rel_err(o.so3_dexp, ref::dexp<3>(A, B)));
    // dexp(dexp⁻¹ v) − v is bounded by ε times the intermediate ‖dexp⁻¹ v‖, which grows like
    // 1/(2π − α): score the round trip against the larger of ‖v‖ and that intermediate.
    const auto Binv = ref::dexpinv<3>(A, B);
    upd(e.so3_dexpinv, ref::rel_err(o.so3_dexpinv, Binv));
    upd(e.so3_roundtrip, ref::rel_err(o.so3_roundtrip, B, std::max(ref::norm(B), ref::norm(Binv))));

    const ref::Mat<4> G = ref::expm(ref::se3_matrix(u));
    std::array<Q, 12> g;
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) g[3 * i + j] = G(i, j);
      g[9 + i] = G(i, 3);
    }
    upd(e.se3_exp, ref::rel_err(o.se3_exp, g));
    upd(e.se3_dexp, ref::rel_err(o.se3_dexp, ref::dexp<6>(u, v)));
    const auto vinv = ref::dexpinv<6>(u, v);
    upd(e.se3_dexpinv, ref::rel_err(o.se3_dexpinv, vinv));
    upd(e.se3_roundtrip, ref::rel_err(o.se3_roundtrip, v, std::max(ref::norm(v), ref::norm(vinv))));
  }
  return e;
}

/// Every output within tol.
inline void expect_within(const CoreErrors& e, double tol) {
  EXPECT_LE(e.so3_exp, tol);
  EXPECT_LE(e.so3_dexp, tol);
  EXPECT_LE(e.so3_dexpinv, tol);
  EXPECT_LE(e.so3_roundtrip, tol);
  EXPECT_LE(e.se3_exp, tol);
  EXPECT_LE(e.se3_dexp, tol);
  EXPECT_LE(e.se3_dexpinv, tol);
  EXPECT_LE(e.se3_roundtrip, tol);
  std::printf("max rel. errors: so3 exp %.1e dexp %.1e dexpinv %.1e roundtrip %.1e | "
              "se3 exp %.1e dexp %.1e dexpinv %.1e roundtrip %.1e (bound %.0e)\n",
              e.so3_exp, e.so3_dexp, e.so3_dexpinv, e.so3_roundtrip, e.se3_exp, e.se3_dexp,
              e.se3_dexpinv, e.se3_roundtrip, tol);
}

/// The acceptance bound of issue 2 for each precision (relative error).
template <class T> constexpr double core_tolerance() {
  if constexpr (std::is_same_v<T, float>) return 1e-5;
  else if constexpr (std::is_same_v<T, double>) return 1e-13;
  else if constexpr (std::is_same_v<T, long double>) return 1e-16;
  else return 1e-30;
}

}  // namespace lbtest
