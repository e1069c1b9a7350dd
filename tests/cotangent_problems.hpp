// The cotangent-bundle test problems shared by the symplectic integrators' tests (test_symplectic,
// test_variational): the tops of [Notes §1.2] in the tests' own terms, an independent reference
// (classical RK4 of the body-frame equations in quad precision), and the canonical-chart
// symplecticity measurement. Nothing here uses the methods under test.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>

#include "liebatch/methods/newton.hpp"
#include "liebatch/methods/step.hpp"
#include "liebatch/models/heavy_top_spatial.hpp"
#include "reference.hpp"

namespace cotangent {

using ref::Q;
using M3 = lb::Mat3<double>;
using V3 = lb::Vec3<double>;

/// The heavy top's data in the test's own terms: J about the fixed point, χ, m, g_vec = (0, 0, −g).
struct TopData {
  std::array<double, 3> J, chi;
  double m, g;
  lb::HeavyTop<double> top() const {
    return {lb::vec3(J[0], J[1], J[2]), lb::vec3(chi[0], chi[1], chi[2]), m, g};
  }
  lb::HeavyTopSpatial<double> model() const { return {top()}; }
};
inline const TopData asym{{2.0, 1.0, 2.0 / 3.0}, {0.1, 0.2, 0.3}, 1.0, 9.81};
inline const TopData frb{{2.0, 1.0, 2.0 / 3.0}, {0.0, 0.0, 0.0}, 0.0, 9.81};
/// Brüls–Cardona: J_c about the centre of mass moved to the fixed point (χ = e₂, m = 15).
inline const TopData bc{{0.234375 + 15, 0.46875, 0.234375 + 15}, {0.0, 1.0, 0.0}, 15.0, 9.81};

struct State {
  M3 R;
  V3 pi;
};

inline M3 to_m3(const ref::Mat<3>& A) {
  M3 r;
  for (int k = 0; k < 9; ++k) r.m[k] = double(A.a[k]);
  return r;
}

/// (R₀, π₀ = R₀Π₀) with R₀ = exp(hat(r)) from the quad-precision matrix exponential.
inline State initial(const std::array<double, 3>& r, const std::array<double, 3>& Pi) {
  const ref::Mat<3> R = ref::expm(ref::hat({Q(r[0]), Q(r[1]), Q(r[2])}));
  const auto pi = R * std::array<Q, 3>{Q(Pi[0]), Q(Pi[1]), Q(Pi[2])};
  return {to_m3(R), lb::vec3(double(pi[0]), double(pi[1]), double(pi[2]))};
}
inline State asym_initial() { return initial({0.2, -0.1, 0.3}, {1.0, 0.5, -0.4}); }
inline State frb_initial() { return initial({0, 0, 0}, {std::cos(1.1), 0.0, std::sin(1.1)}); }
inline State bc_initial() { return initial({0, 0, 0}, {0.0, 0.46875 * 150, (0.234375 + 15) * -4.61538}); }

/// The body-frame top R′ = R hat(Ω), JΩ′ = (JΩ) × Ω + m χ × (Rᵀ g_vec), by classical RK4 in quad
/// precision with n steps: a plain ODE in ℝ¹², nothing Lie-group about it.
inline std::array<Q, 12> body_rk4(const TopData& d, const ref::Mat<3>& R0, const std::array<Q, 3>& W0, Q T, int n) {
  using Y = std::array<Q, 12>;
  auto rhs = [&](const Y& y) {
    Y f{};
    const Q W[3] = {y[9], y[10], y[11]};
    const Q hw[3][3] = {{0, -W[2], W[1]}, {W[2], 0, -W[0]}, {-W[1], W[0], 0}};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k) f[3 * i + j] += y[3 * i + k] * hw[k][j];
    const Q b[3] = {-Q(d.g) * y[6], -Q(d.g) * y[7], -Q(d.g) * y[8]};  // Rᵀ g_vec = −g (row 3 of R)
    const Q c[3] = {Q(d.chi[0]), Q(d.chi[1]), Q(d.chi[2])};
    const Q tau[3] = {Q(d.m) * (c[1] * b[2] - c[2] * b[1]), Q(d.m) * (c[2] * b[0] - c[0] * b[2]),
                      Q(d.m) * (c[0] * b[1] - c[1] * b[0])};
    const Q JW[3] = {Q(d.J[0]) * W[0], Q(d.J[1]) * W[1], Q(d.J[2]) * W[2]};
    const Q g[3] = {JW[1] * W[2] - JW[2] * W[1], JW[2] * W[0] - JW[0] * W[2], JW[0] * W[1] - JW[1] * W[0]};
    for (int i = 0; i < 3; ++i) f[9 + i] = (g[i] + tau[i]) / Q(d.J[i]);
    return f;
  };
  Y y{};
  for (int k = 0; k < 9; ++k) y[k] = R0.a[k];
  for (int i = 0; i < 3; ++i) y[9 + i] = W0[i];
  const Q h = T / n;
  auto axpy = [](const Y& a, Q s, const Y& b) {
    Y r;
    for (int i = 0; i < 12; ++i) r[i] = a[i] + s * b[i];
    return r;
  };
  for (int s = 0; s < n; ++s) {
    const Y k1 = rhs(y), k2 = rhs(axpy(y, h / 2, k1)), k3 = rhs(axpy(y, h / 2, k2)), k4 = rhs(axpy(y, h, k3));
    for (int i = 0; i < 12; ++i) y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }
  return y;
}

/// The exact body-frame state (R, Ω) at T from (R₀ = exp(hat(r)), Ω₀) by body_rk4 with n and 2n
/// steps; `halving` is their largest difference (the reference's own error estimate).
struct Exact {
  M3 R;
  V3 W;
  double halving;
};
inline Exact body_reference(const TopData& d, const std::array<double, 3>& r, const std::array<Q, 3>& W0, Q T, int n) {
  const ref::Mat<3> R0 = ref::expm(ref::hat({Q(r[0]), Q(r[1]), Q(r[2])}));
  const auto ref1 = body_rk4(d, R0, W0, T, n), ref2 = body_rk4(d, R0, W0, T, 2 * n);
  Q halving = 0;
  for (int i = 0; i < 12; ++i) halving = std::max(halving, Q(abs(ref1[i] - ref2[i])));
  Exact e{{}, lb::vec3(double(ref2[9]), double(ref2[10]), double(ref2[11])), double(halving)};
  for (int k = 0; k < 9; ++k) e.R.m[k] = double(ref2[k]);
  return e;
}

/// Iteration statistics of a run.
struct Stats {
  long steps = 0, iterations = 0;
  int max = 0;
  bool all_ok = true;
  double mean() const { return steps ? double(iterations) / double(steps) : 0.0; }
  /// Counts a step that took `it` Newton iterations and ended with `status`; false when it failed.
  bool record(int it, lb::Status status) {
    ++steps;
    iterations += it;
    max = std::max(max, it);
    all_ok = all_ok && status == lb::Status::ok;
    return status == lb::Status::ok;
  }
};

inline double max_abs_diff(const M3& a, const M3& b) {
  double e = 0;
  for (int k = 0; k < 9; ++k) e = std::max(e, std::abs(a.m[k] - b.m[k]));
  return e;
}
inline double max_abs_diff(const V3& a, const V3& b) { return lb::norm_inf(a - b); }

/// log on SO(3) in quad precision: the u with |u| < π and exp(û) = R.
inline std::array<Q, 3> log_q(const ref::Mat<3>& R) {
  const std::array<Q, 3> w{(R(2, 1) - R(1, 2)) / 2, (R(0, 2) - R(2, 0)) / 2, (R(1, 0) - R(0, 1)) / 2};
  const Q c = (R(0, 0) + R(1, 1) + R(2, 2) - 1) / 2, s = sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2]);
  const Q a = atan2(s, c), k = s > 0 ? a / s : Q(1);
  return {k * w[0], k * w[1], k * w[2]};
}

/// max |JᵀΩJ − Ω| of the Jacobian of a map ℝ⁶ → ℝ⁶ in canonical coordinates (q, p), by central
/// differences (ε = 1e-5) at [Notes]'s point q₀ = (0.3, −0.2, 0.25), p₀ = (0.7, 0.4, −0.5).
template <class Step> double canonical_defect(Step&& step) {
  const std::array<Q, 6> x0{Q(0.3), Q(-0.2), Q(0.25), Q(0.7), Q(0.4), Q(-0.5)};
  const Q eps = Q(1e-5);
  Q Jm[6][6];
  for (int j = 0; j < 6; ++j) {
    auto xp = x0, xm = x0;
    xp[j] += eps;
    xm[j] -= eps;
    const std::array<Q, 6> yp = step(xp), ym = step(xm);
    for (int i = 0; i < 6; ++i) Jm[i][j] = (yp[i] - ym[i]) / (2 * eps);
  }
  auto Om = [](int i, int j) { return Q(i < 3 && j == i + 3 ? 1 : (i >= 3 && j == i - 3 ? -1 : 0)); };
  double defect = 0;
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) {
      Q s = 0;
      for (int k = 0; k < 6; ++k)
        for (int l = 0; l < 6; ++l) s += Jm[k][i] * Om(k, l) * Jm[l][j];
      defect = std::max(defect, double(abs(s - Om(i, j))));
    }
  return defect;
}

/// Largest relative energy error over the first and the last tenth of n steps.
struct Tenths {
  double first = 0, last = 0;
  void add(long k, long n, double e) {
    if (k < n / 10) first = std::max(first, e);
    if (k >= n - n / 10) last = std::max(last, e);
  }
};

/// A rotation matrix rounded to float.
inline lb::Mat3<float> to_float(const M3& R) { return lb::Mat3<float>::from_flat(lb::cast<float>(R.flat())); }

/// The Jacobian of a residual r: ℝᴺ → ℝᴺ at z by central differences, ε = 1e-6·max(1, |z_j|).
template <int N, class F> lb::SquareMat<double, N> central_jacobian(F&& r, const lb::Vec<double, N>& z) {
  lb::SquareMat<double, N> J;
  for (int j = 0; j < N; ++j) {
    const double eps = 1e-6 * std::max(1.0, std::abs(z[j]));
    lb::Vec<double, N> zp = z, zm = z;
    zp[j] += eps;
    zm[j] -= eps;
    const lb::Vec<double, N> dr = (1.0 / (2 * eps)) * (r(zp) - r(zm));
    for (int i = 0; i < N; ++i) J.a[i][j] = dr[i];
  }
  return J;
}

/// max |A − B| / max |A|.
template <int N> double relative_difference(const lb::SquareMat<double, N>& A, const lb::SquareMat<double, N>& B) {
  double amax = 0, dmax = 0;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) {
      amax = std::max(amax, std::abs(A.a[i][j]));
      dmax = std::max(dmax, std::abs(A.a[i][j] - B.a[i][j]));
    }
  return dmax / amax;
}

}  // namespace cotangent
