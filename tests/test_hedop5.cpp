// HEDOP5 and constrained mechanical systems (docs/constrained.md): the tableau in exact rational
// arithmetic, the constrained models and their consistent initial multiplier.
#include <gtest/gtest.h>

#include <array>
#include <boost/multiprecision/cpp_int.hpp>
#include <cmath>
#include <cstdio>
#include <vector>

#include <liebatch/constrained_model.hpp>
#include <liebatch/methods/half_explicit.hpp>
#include <liebatch/models/constrained_heavy_top.hpp>
#include <liebatch/models/planar_pendulum.hpp>

#include "rooted_trees.hpp"

namespace {

using Q = boost::multiprecision::cpp_rational;
using lb::tableaux::hedop5;
constexpr int SBar = lb::HalfExplicitTableau<7>::stages;

Q exact(lb::Rational r) { return Q(r.p, r.q); }

/// The s×s matrix of DOPRI5 inside HEDOP5 (rows 1 … s+1 = 7 on stages 1 … 7) and a weight row.
std::vector<std::vector<Q>> stage_matrix() {
  std::vector<std::vector<Q>> a(SBar, std::vector<Q>(SBar, Q(0)));
  for (int i = 0; i < SBar; ++i)
    for (int j = 0; j < SBar; ++j) a[i][j] = exact(hedop5.a[i][j]);
  return a;
}
std::vector<Q> weights(const lb::Rational* w) {
  std::vector<Q> b;
  for (int j = 0; j < SBar; ++j) b.push_back(exact(w[j]));
  return b;
}

/// The multiplier errors of one step in the linearised, frozen-coefficient analysis (h → 0,
/// constant M and B; docs/constrained.md §3). A perturbation δΛⱼ of the stage multipliers moves
/// B·V_{i+1} by −h Σ_{j≤i} a_{i+1,j} (B M⁻¹ Bᵀ) δΛⱼ + O(h²·δΛ); stage i's constraint (4c) holds
/// B·V_{i+1} at zero and B M⁻¹ Bᵀ is invertible, so to leading order Σ_{j≤i} a_{i+1,j} eⱼ = 0
/// for i = 2 … `rows`−1 with e₁ = 1 (the error of λ_m, since the first stage is explicit in λ_m).
/// Solved for eᵢ row by row: eᵢ = −Σ_{j<i} a_{i+1,j} eⱼ / a_{i+1,i}. Returned e₁ … e_{rows−1}.
std::vector<Q> multiplier_errors(int rows) {
  std::vector<Q> e{Q(1)};
  for (int i = 1; i + 1 < rows; ++i) {  // 0-based stage i solved from row i+1
    Q sum(0);
    for (int j = 0; j < i; ++j) sum += exact(hedop5.a[i + 1][j]) * e[j];
    e.push_back(-sum / exact(hedop5.a[i + 1][i]));
  }
  return e;
}

TEST(Hedop5Tableau, RowSumsAreTheNodes) {
  for (int i = 0; i <= SBar; ++i) {
    Q sum(0);
    for (int j = 0; j < i; ++j) sum += exact(hedop5.a[i][j]);
    EXPECT_EQ(sum, exact(hedop5.c[i])) << "row " << i + 1;
    for (int j = i; j <= SBar; ++j) EXPECT_EQ(exact(hedop5.a[i][j]), Q(0)) << "explicit: a" << i + 1 << j + 1;
  }
  EXPECT_EQ(exact(hedop5.c[SBar]), Q(19, 20));
}

TEST(Hedop5Tableau, WeightsHaveOrderFiveAndTheEmbeddedOrderFour) {
  const auto trees = lbtest::trees_up_to(5);
  const auto a = stage_matrix();
  const auto b = weights(hedop5.a[hedop5.s]);
  const auto bhat = weights(hedop5.bhat);
  int conditions = 0;
  for (int p = 1; p <= 5; ++p) {
    for (const Q& r : lbtest::order_residuals(a, b, trees, p)) {
      EXPECT_EQ(r, Q(0)) << "b, order " << p;
      ++conditions;
    }
    int violated = 0;
    for (const Q& r : lbtest::order_residuals(a, bhat, trees, p)) {
      if (p <= 4) {
        EXPECT_EQ(r, Q(0)) << "b̂, order " << p;
      }
      violated += r != 0;
    }
    if (p == 5) {
      EXPECT_GT(violated, 0) << "b̂ is of order 4 exactly";
    }
  }
  EXPECT_EQ(conditions, 17);  // 1 + 1 + 2 + 4 + 9 trees
  EXPECT_EQ(hedop5.a[hedop5.s][SBar - 1].p, 0) << "b₇ = 0: stage 7 (FSAL) only feeds the next step";
}

TEST(Hedop5Tableau, MultiplierRecursionAmplificationIsZero) {
  const auto e = multiplier_errors(SBar + 1);  // all eight rows: e₁ … e₇
  ASSERT_EQ(int(e.size()), SBar);
  const std::vector<Q> expected{Q(1), Q(-1, 3), Q(-5, 8), Q(7, 3), Q(12115, 2187), Q(115, 33), Q(0)};
  for (int i = 0; i < SBar; ++i) EXPECT_EQ(e[i], expected[i]) << "e" << i + 1;
  Q kappa(0);  // λ_{m+1}'s error per unit error of λ_m: Σⱼ dⱼ eⱼ
  for (int j = 0; j < SBar; ++j) kappa += exact(hedop5.d[j]) * e[j];
  EXPECT_EQ(kappa, Q(0));
  // Without the extra row (s̄ = 6, λ_{m+1} = Λ₆, the last multiplier rows 1 … 7 determine):
  // κ = e₆ = 115/33 > 1, and the multipliers are not zero-stable.
  const auto e6 = multiplier_errors(SBar);
  EXPECT_EQ(e6.back(), Q(115, 33));
}

// ---------------------------------------------------------------------------------------------
// The constrained models.

static_assert(lb::ConstrainedModel<lb::PlanarPendulum<double>>);
static_assert(lb::ConstrainedModel<lb::ConstrainedHeavyTop<double>>);
static_assert(!lb::ConstrainedModel<lb::HeavyTop<double>>, "an unconstrained model is not one");

/// B(q)w against central differences of Φ(q·exp(±εw̃)), and the curvature term against those of
/// B(q·exp(±εṽ))v, at q off the constraint manifold (the definitions hold on all of G).
template <class M> void expect_derivatives_right(const M& m, const typename M::group& q, const typename M::group::algebra::vec& v,
                                                 const typename M::group::algebra::vec& w) {
  using G = typename M::group;
  const double eps = 1e-6;
  const auto dphi = (1 / (2 * eps)) * (m.constraint(q * G::exp(eps * w)) - m.constraint(q * G::exp(-eps * w)));
  const auto dB = (1 / (2 * eps)) * (m.gradient(q * G::exp(eps * v)) * v - m.gradient(q * G::exp(-eps * v)) * v);
  const auto Bw = m.gradient(q) * w;
  const auto Z = m.curvature(q, v);
  for (int k = 0; k < M::constraints; ++k) {
    EXPECT_NEAR(Bw[k], dphi[k], 1e-8 * (1 + std::abs(Bw[k]))) << "B, constraint " << k;
    EXPECT_NEAR(Z[k], dB[k], 1e-8 * (1 + std::abs(Z[k]))) << "curvature, constraint " << k;
  }
}

TEST(ConstrainedModels, GradientAndCurvatureAreTheDerivatives) {
  const lb::PlanarPendulum<double> pend{9.81, 1.3};
  expect_derivatives_right(pend, {lb::Vec<double, 2>{{0.4, -1.1}}}, lb::Vec<double, 2>{{0.7, -0.2}}, lb::Vec<double, 2>{{-0.3, 0.9}});
  const auto top = lb::ConstrainedHeavyTop<double>::bruls_cardona();
  const lb::SE3<double> q{lb::SO3<double>::exp(lb::vec3(0.3, -0.5, 0.8)).R, lb::vec3(0.2, 0.9, -0.4)};
  expect_derivatives_right(top, q, lb::Vec6<double>{{0.5, -1.2, 0.7, 0.3, 0.1, -0.6}},
                           lb::Vec6<double>{{-0.4, 0.2, 1.1, 0.8, -0.5, 0.3}});
}

TEST(ConstrainedModels, PendulumMultiplierIsTheClosedForm) {
  // q = ℓ(sin φ, −cos φ): the radial part of q̈ = −(0, g) − 2qλ gives −ℓ²φ̇² = ℓg cos φ − 2ℓ²λ.
  const double g = 9.81, l = 1.3, phi = 0.7, phidot = 0.3;
  const lb::PlanarPendulum<double> pend{g, l};
  lb::Vec<double, 1> lambda;
  ASSERT_TRUE(lb::consistent_multiplier(pend, pend.position(phi), pend.velocity(phi, phidot), 0.0, lambda));
  EXPECT_NEAR(lambda[0], (g * std::cos(phi) + l * phidot * phidot) / (2 * l), 1e-14);
  EXPECT_NEAR(pend.constraint(pend.position(phi))[0], 0.0, 1e-15);
  EXPECT_NEAR((pend.gradient(pend.position(phi)) * pend.velocity(phi, phidot))[0], 0.0, 1e-15);
}

TEST(ConstrainedModels, HeavyTopInSe3IsTheBrulsCardonaTop) {
  const auto fixed = lb::HeavyTop<double>::bruls_cardona();  // on se*(3), inertia about the fixed point
  const auto top = lb::ConstrainedHeavyTop<double>::bruls_cardona();
  // [BC10]'s disk: J_c = diag(0.234375, 0.46875, 0.234375) about the centre of mass, recovered.
  const double Jc[3] = {0.234375, 0.46875, 0.234375};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(top.inertia_cm(i, j), i == j ? Jc[i] : 0.0);
      EXPECT_NEAR(top.inertia_cm_inv(i, j), i == j ? 1 / Jc[i] : 0.0, 1e-15);
    }
  // Consistent (q₀, v₀) from the se*(3) preset's state (Q(0) = I, Ω = 𝕀⁻¹Π).
  const auto y0 = fixed.bruls_cardona_initial();
  const lb::Vec3<double> omega = fixed.omega(y0);
  const auto q = top.configuration(lb::Mat3<double>::identity());
  const auto v = top.velocity(omega);
  EXPECT_LE(lb::norm(top.constraint(q)), 1e-15);
  EXPECT_LE(lb::norm(top.gradient(q) * v), 1e-15);
  lb::Vec3<double> lambda;
  ASSERT_TRUE(lb::consistent_multiplier(top, q, v, 0.0, lambda));
  // The closed form: λ = m Rᵀg⃗ − m(Ω̇ × χ + Ω × (Ω × χ)), Ω̇ = 𝕀⁻¹Π̇ from the fixed-point equations
  // on se*(3) (heavy_top.hpp): Π̇ = Π × 𝕀⁻¹Π + m g Γ × X, with Rᵀg⃗ = −gΓ.
  const lb::Vec3<double> Pi = y0.seg<0, 3>(), Gamma = y0.seg<3, 3>(), X = fixed.com;
  const lb::Vec3<double> Pidot = lb::cross(Pi, omega) + (fixed.mass * fixed.gravity) * lb::cross(Gamma, X);
  const lb::Vec3<double> omegadot = lb::vec3(Pidot[0] / fixed.inertia[0], Pidot[1] / fixed.inertia[1], Pidot[2] / fixed.inertia[2]);
  const lb::Vec3<double> closed = (-fixed.mass * fixed.gravity) * Gamma -
                                  fixed.mass * (lb::cross(omegadot, X) + lb::cross(omega, lb::cross(omega, X)));
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(lambda[k], closed[k], 1e-10 * lb::norm(closed)) << "λ" << k;
  // The value an independent implementation printed (docs/constrained.md §4), to its digits.
  EXPECT_NEAR(lambda[0], 0.0, 1e-9);
  EXPECT_NEAR(lambda[1], 319.525988166, 1e-9);
  EXPECT_NEAR(lambda[2], 317.2624615385, 1e-9);
  // The same angular acceleration as the fixed-point top: v̇ = −M⁻¹(g + Bᵀλ).
  const auto vdot = -top.inverse_mass(q, top.forces(q, v, 0.0) + top.gradient(q).transpose_times(lambda));
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(vdot[k], omegadot[k], 1e-12 * lb::norm(omegadot)) << "Ω̇" << k;
}

// ---------------------------------------------------------------------------------------------
// HEDOP5 on the planar pendulum against the angle ODE.

using LD = long double;
using Pend = lb::PlanarPendulum<double>;
constexpr double kG = 9.81, kPhi0 = 0.7, kPhidot0 = 0.3, kT = 2.0;  // PEND2D (docs/constrained.md §4)

constexpr int kGrid = 320;  // the finest N; the reference is stored on its grid

/// (φ, φ̇) of φ̈ = −g sin φ (ℓ = 1) at t = kT/kGrid, k = 0 … kGrid, by the classical RK4 in long
/// double with 2·10⁵ steps (global error ~1e-17, far below HEDOP5's at the step sizes tested):
/// independent of HEDOP5, of the DAE form and of the library.
std::vector<std::array<LD, 2>> angle_reference() {
  const int per = 625, n = kGrid * per;
  const LD h = LD(kT) / n;
  auto f = [](std::array<LD, 2> y) { return std::array<LD, 2>{y[1], -LD(kG) * std::sin(y[0])}; };
  std::array<LD, 2> y{LD(kPhi0), LD(kPhidot0)};
  std::vector<std::array<LD, 2>> out{y};
  for (int k = 1; k <= n; ++k) {
    const auto k1 = f(y);
    const auto k2 = f({y[0] + h / 2 * k1[0], y[1] + h / 2 * k1[1]});
    const auto k3 = f({y[0] + h / 2 * k2[0], y[1] + h / 2 * k2[1]});
    const auto k4 = f({y[0] + h * k3[0], y[1] + h * k3[1]});
    for (int i = 0; i < 2; ++i) y[i] += h / 6 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    if (k % per == 0) out.push_back(y);
  }
  return out;
}

struct PendulumRun {
  double err_q, err_v, err_lambda;  // max over the steps of |q − q_ref|, |v − v_ref|, |λ − λ_ref|
  double max_bv;                    // max over the steps of |B(q)v|
  double drift;                     // |q|² − 1 at T
  bool ok;                          // no singular or failed stage
};

/// N steps of `tab` on PEND2D from consistent data, errors against the angle ODE at every step.
PendulumRun run_pendulum(const lb::HalfExplicitTableau<7>& tab, int n) {
  static const auto ref = angle_reference();
  const Pend pend{kG, 1.0};
  lb::ConstrainedState<Pend> y{pend.position(kPhi0), pend.velocity(kPhi0, kPhidot0), {}};
  PendulumRun r{0, 0, 0, 0, 0, lb::consistent_multiplier(pend, y.q, y.v, 0.0, y.lambda)};
  const double h = kT / n;
  for (int k = 0; k < n; ++k) {
    const auto s = lb::half_explicit_step(pend, tab, y, k * h, h);
    r.ok = r.ok && !s.singular && !s.failed;
    y = s.y;
    r.max_bv = std::max(r.max_bv, std::abs((pend.gradient(y.q) * y.v)[0]));
    const double phi = double(ref[(k + 1) * (kGrid / n)][0]), phidot = double(ref[(k + 1) * (kGrid / n)][1]);
    r.err_q = std::max(r.err_q, lb::norm(y.q.t - pend.position(phi).t));
    r.err_v = std::max(r.err_v, lb::norm(y.v - pend.velocity(phi, phidot)));
    // λ of the exact motion: (g cos φ + φ̇²)/2 (ConstrainedModels.PendulumMultiplierIsTheClosedForm).
    r.err_lambda = std::max(r.err_lambda, std::abs(y.lambda[0] - (kG * std::cos(phi) + phidot * phidot) / 2));
  }
  r.drift = std::abs(pend.constraint(y.q)[0]);
  return r;
}

TEST(Hedop5, OrderFiveOnThePlanarPendulumInQVAndLambda) {
  const int ns[] = {40, 80, 160, 320};
  PendulumRun r[4];
  for (int i = 0; i < 4; ++i) {
    r[i] = run_pendulum(hedop5, ns[i]);
    ASSERT_TRUE(r[i].ok) << "N = " << ns[i];
    std::printf("PEND2D N = %3d: |dq| %.3e |dv| %.3e |dlambda| %.3e  |q|^2-1 %.3e  max|Bv| %.1e\n", ns[i], r[i].err_q,
                r[i].err_v, r[i].err_lambda, r[i].drift, r[i].max_bv);
    EXPECT_LE(r[i].max_bv, 1e-14) << "the velocity constraint holds at every step, N = " << ns[i];
  }
  for (int i = 0; i + 1 < 4; ++i) {
    const double sq = std::log2(r[i].err_q / r[i + 1].err_q), sv = std::log2(r[i].err_v / r[i + 1].err_v),
                 sl = std::log2(r[i].err_lambda / r[i + 1].err_lambda), sd = std::log2(r[i].drift / r[i + 1].drift);
    std::printf("slopes N = %d -> %d: q %.2f v %.2f lambda %.2f drift %.2f\n", ns[i], ns[i + 1], sq, sv, sl, sd);
    for (double slope : {sq, sv, sl}) {
      EXPECT_GE(slope, 4.7) << "N = " << ns[i];
      EXPECT_LE(slope, 5.7) << "N = " << ns[i];
    }
    EXPECT_NEAR(sd, 5.0, 0.3) << "|q|² − 1 drifts at order 5 (only B v = 0 is imposed), N = " << ns[i];
  }
}

// The negative control: λ_{m+1} = Λ₆ (d = e₆, the method without the extra row, whose multiplier
// recursion amplifies by 115/33) loses the multiplier, and more so as h decreases, so the order
// test above sees the recursion.
TEST(Hedop5, TakingLambdaFromStageSixLosesTheMultiplier) {
  auto mutant = hedop5;
  mutant.d[6] = lb::Rational{0, 1};
  mutant.d[5] = lb::Rational{1, 1};
  const PendulumRun coarse = run_pendulum(mutant, 40), fine = run_pendulum(mutant, 80);
  std::printf("d = e6: max |dlambda| %.3e (N = 40), %.3e (N = 80)\n", coarse.err_lambda, fine.err_lambda);
  EXPECT_FALSE(fine.ok && fine.err_lambda < 1.0) << "λ error " << fine.err_lambda;
  EXPECT_FALSE(fine.err_lambda < coarse.err_lambda) << "the λ error does not shrink with h";
}

// The embedded b̂ of order 4: one step from exact data, the estimate h Σ (bⱼ − b̂ⱼ)(Θ̇ⱼ, V̇ⱼ).
// Its Θ part is the local error of a 4th-order formula, O(h⁵). Its v part is measured O(h⁴)
// (slopes 3.5–3.9 for h = 0.05 … 0.00625): the stage accelerations V̇ⱼ carry the stage multipliers
// Λⱼ, which the half-explicit stages determine one order less accurately (docs/constrained.md §3).
TEST(Hedop5, EmbeddedEstimateOrders) {
  const Pend pend{kG, 1.0};
  lb::ConstrainedState<Pend> y{pend.position(kPhi0), pend.velocity(kPhi0, kPhidot0), {}};
  ASSERT_TRUE(lb::consistent_multiplier(pend, y.q, y.v, 0.0, y.lambda));
  double prev_theta = 0, prev_v = 0;
  for (double h : {0.05, 0.025, 0.0125, 0.00625}) {
    const auto s = lb::half_explicit_step(pend, hedop5, y, 0.0, h);
    const double et = lb::norm(s.err_theta), ev = lb::norm(s.err_v);
    if (prev_theta > 0) {
      const double st = std::log2(prev_theta / et), sv = std::log2(prev_v / ev);
      std::printf("estimate h = %.4f: theta %.3e (slope %.2f), v %.3e (slope %.2f)\n", h, et, st, ev, sv);
      EXPECT_NEAR(st, 5.0, 0.5) << "h = " << h;
      EXPECT_NEAR(sv, 3.8, 0.5) << "h = " << h;
    }
    prev_theta = et;
    prev_v = ev;
  }
}

}  // namespace
