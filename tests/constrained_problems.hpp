// Test problems of the constrained heavy top (docs/constrained.md §4; [Notes]'s BC and ASYM) and
// their reference motion, built independently of HEDOP5 and of the library: shared by
// test_hedop5.cpp and test_hedop5_ensemble.cpp.
#pragma once
#include <array>
#include <cmath>
#include <vector>

#include <liebatch/constrained_model.hpp>
#include <liebatch/models/constrained_heavy_top.hpp>
#include <liebatch/models/heavy_top.hpp>

namespace constrained_problems {

using LD = long double;

/// A heavy top with a fixed point: J the principal inertia about it, χ the centre of mass (body
/// frame), R₀ = exp(â₀) and Ω₀ (docs/constrained.md §4; [Notes]'s BC and ASYM problems).
struct TopProblem {
  double J[3], chi[3], mass, g, a0[3], omega0[3], T;
  lb::HeavyTop<double> fixed() const { return {lb::vec3(J[0], J[1], J[2]), lb::vec3(chi[0], chi[1], chi[2]), mass, g}; }
};
// Brüls–Cardona: HeavyTop::bruls_cardona's data and initial Ω (checked equal in BrulsCardonaIsThePreset).
constexpr TopProblem kBC{{15.234375, 0.46875, 15.234375}, {0, 1, 0}, 15, 9.81, {0, 0, 0}, {0, 150, -4.61538}, 1.0};
// ASYM: J = diag(2, 1, 2/3), χ = (0.1, 0.2, 0.3), m = 1, R₀ = exp(hat(0.2, −0.1, 0.3)), Π₀ = JΩ₀ = (1, 0.5, −0.4).
constexpr TopProblem kASYM{{2, 1, 2.0 / 3}, {0.1, 0.2, 0.3}, 1, 9.81, {0.2, -0.1, 0.3}, {0.5, 0.5, -0.6}, 2.0};

/// The exact motion at one time: attitude R (row-major), Ω, Ω̇.
struct TopExact {
  LD R[9], W[3], Wdot[3];
};

/// The fixed-point top in body form, Ṙ = RΩ̂, JΩ̇ = (JΩ) × Ω + m g Γ × χ with Γ = Rᵀe₃ (R's third
/// row), integrated as an ODE in ℝ¹² by the classical RK4 in long double, `per` steps per grid
/// interval, stored at t = kT·k/grid. Independent of HEDOP5 and of the library: different
/// equations for the same motion (no multiplier, no constraint, no centre-of-mass velocity, the
/// inertia about the fixed point), R evolved as a plain matrix (no exp, no dexp⁻¹), plain arrays.
/// Its error at the finest HEDOP5 grid is measured in the tests below (per vs per/2).
inline std::vector<TopExact> top_reference(const TopProblem& p, int grid, int per) {
  auto cross = [](const LD* a, const LD* b, LD* c) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
  };
  auto omegadot = [&](const LD* R, const LD* W, LD* Wd) {
    LD JW[3], gyro[3], torque[3], chi[3] = {p.chi[0], p.chi[1], p.chi[2]};
    for (int i = 0; i < 3; ++i) JW[i] = p.J[i] * W[i];
    cross(JW, W, gyro);
    cross(R + 6, chi, torque);
    for (int i = 0; i < 3; ++i) Wd[i] = (gyro[i] + LD(p.mass) * LD(p.g) * torque[i]) / p.J[i];
  };
  // y = (R row-major, Ω); (RΩ̂)_ij = Σ_k R_ik Ω̂_kj, Ω̂ = [[0, −Ω₃, Ω₂], [Ω₃, 0, −Ω₁], [−Ω₂, Ω₁, 0]].
  auto f = [&](const std::array<LD, 12>& y) {
    std::array<LD, 12> d;
    const LD* W = y.data() + 9;
    const LD H[9] = {0, -W[2], W[1], W[2], 0, -W[0], -W[1], W[0], 0};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) d[3 * i + j] = y[3 * i] * H[j] + y[3 * i + 1] * H[3 + j] + y[3 * i + 2] * H[6 + j];
    omegadot(y.data(), W, d.data() + 9);
    return d;
  };
  // R₀ = exp(â₀) by Rodrigues: I + (sin θ/θ) â + ((1 − cos θ)/θ²) â².
  std::array<LD, 12> y{};
  const LD a[3] = {p.a0[0], p.a0[1], p.a0[2]}, th = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  const LD s = th > 0 ? std::sin(th) / th : 1, c = th > 0 ? (1 - std::cos(th)) / (th * th) : 0.5;
  const LD A[9] = {0, -a[2], a[1], a[2], 0, -a[0], -a[1], a[0], 0};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      LD A2 = 0;
      for (int k = 0; k < 3; ++k) A2 += A[3 * i + k] * A[3 * k + j];
      y[3 * i + j] = (i == j ? 1 : 0) + s * A[3 * i + j] + c * A2;
    }
  for (int i = 0; i < 3; ++i) y[9 + i] = p.omega0[i];
  auto record = [&](std::vector<TopExact>& out) {
    TopExact e;
    for (int i = 0; i < 9; ++i) e.R[i] = y[i];
    for (int i = 0; i < 3; ++i) e.W[i] = y[9 + i];
    omegadot(e.R, e.W, e.Wdot);
    out.push_back(e);
  };
  std::vector<TopExact> out;
  record(out);
  const LD h = LD(p.T) / (LD(grid) * per);
  for (long k = 1; k <= long(grid) * per; ++k) {
    const auto k1 = f(y);
    std::array<LD, 12> z;
    for (int i = 0; i < 12; ++i) z[i] = y[i] + h / 2 * k1[i];
    const auto k2 = f(z);
    for (int i = 0; i < 12; ++i) z[i] = y[i] + h / 2 * k2[i];
    const auto k3 = f(z);
    for (int i = 0; i < 12; ++i) z[i] = y[i] + h * k3[i];
    const auto k4 = f(z);
    for (int i = 0; i < 12; ++i) y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    if (k % per == 0) record(out);
  }
  return out;
}

using Top = lb::ConstrainedHeavyTop<double>;

/// (q, v, λ) of the exact motion: x = Rχ, U = Ω × χ, and the closed form
/// λ = m Rᵀg⃗ − m(Ω̇ × χ + Ω × (Ω × χ)), Rᵀg⃗ = −g Γ (ConstrainedModels.HeavyTopInSe3IsTheBrulsCardonaTop).
inline lb::ConstrainedState<Top> exact_state(const TopProblem& p, const TopExact& e) {
  lb::Mat3<double> R;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) R(i, j) = double(e.R[3 * i + j]);
  const lb::Vec3<double> W = lb::vec3(double(e.W[0]), double(e.W[1]), double(e.W[2]));
  const lb::Vec3<double> Wd = lb::vec3(double(e.Wdot[0]), double(e.Wdot[1]), double(e.Wdot[2]));
  const lb::Vec3<double> chi = lb::vec3(p.chi[0], p.chi[1], p.chi[2]);
  const lb::Vec3<double> lambda = (-p.mass * p.g) * R.row(2) - p.mass * (lb::cross(Wd, chi) + lb::cross(W, lb::cross(W, chi)));
  return {{R, R * chi}, lb::concat(W, lb::cross(W, chi)), lambda};
}

}  // namespace constrained_problems
