// Two quadrotors carrying a load ([CCLMO22 §6]): the field against an independent Cartesian
// Lagrange-multiplier derivation, the controller's derivatives against finite differences along
// the closed loop, and the paper's parabola experiment (tracking, invariants, observed orders).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "problems.hpp"
#include "sampling.hpp"

namespace {

using LD = long double;
template <class T> using State = lb::QuadrotorLoadState<T>;
using lbtest::QuadrotorLoadProblem;

/// The field in Cartesian form, derived independently of the model: load at y, quadrotor i at
/// xᵢ = y − Lᵢqᵢ, link tensions τᵢ pulling the load along −qᵢ:
///   m_y ÿ = m_y g e₃ − Σⱼ τⱼqⱼ,  mᵢẍᵢ = mᵢ g e₃ + uᵢ + τᵢqᵢ,
/// and |y − xᵢ| = Lᵢ twice differentiated, qᵢ·(ÿ − ẍᵢ) = −Lᵢ|q̇ᵢ|², gives for τ the 2×2 system
///   τᵢ/mᵢ + Σⱼ τⱼ (qᵢ·qⱼ)/m_y = Lᵢ|q̇ᵢ|² − qᵢ·uᵢ/mᵢ.
/// Then q̈ᵢ = (ÿ − ẍᵢ)/Lᵢ, ω̇ᵢ = qᵢ × q̈ᵢ; Ṙᵢ = RᵢΩ̂ᵢ; Euler's equations for Ωᵢ.
lb::Vec<LD, 42> cartesian_field(const lb::QuadrotorLoadParams<LD>& p, const lb::QuadrotorInputs<LD>& in,
                                const lb::Vec<LD, 42>& P) {
  using S = State<LD>;
  const auto e3 = lb::vec3(LD(0), LD(0), LD(1));
  lb::Vec3<LD> q[2], qd[2];
  for (int i = 0; i < 2; ++i) { q[i] = S::q(P, i); qd[i] = lb::cross(S::w(P, i), q[i]); }
  LD A[2][2], b[2];
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) A[i][j] = lb::dot(q[i], q[j]) / p.load_mass + (i == j ? 1 / p.mass[i] : LD(0));
    b[i] = p.length[i] * lb::norm2(qd[i]) - lb::dot(q[i], in.u[i]) / p.mass[i];
  }
  const LD det = A[0][0] * A[1][1] - A[0][1] * A[1][0];
  const LD tau[2] = {(b[0] * A[1][1] - A[0][1] * b[1]) / det, (A[0][0] * b[1] - A[1][0] * b[0]) / det};
  const auto yddot = p.gravity * e3 - (tau[0] / p.load_mass) * q[0] - (tau[1] / p.load_mass) * q[1];
  lb::Vec<LD, 42> F;
  F.set_seg(0, S::v(P));
  F.set_seg(3, yddot);
  for (int i = 0; i < 2; ++i) {
    const auto xddot = p.gravity * e3 + (1 / p.mass[i]) * in.u[i] + (tau[i] / p.mass[i]) * q[i];
    const auto qddot = (1 / p.length[i]) * (yddot - xddot);
    const auto W = S::Omega(P, i), J = p.inertia[i], M = in.M[i];
    F.set_seg(6 + 12 * i, (S::R(P, i) * lb::hat(W)).flat());
    F.set_seg(15 + 12 * i, lb::vec3(((J[1] - J[2]) * W[1] * W[2] + M[0]) / J[0], ((J[2] - J[0]) * W[2] * W[0] + M[1]) / J[1],
                                    ((J[0] - J[1]) * W[0] * W[1] + M[2]) / J[2]));
    F.set_seg(30 + 6 * i, qd[i]);
    F.set_seg(33 + 6 * i, lb::cross(q[i], qddot));
  }
  return F;
}

TEST(QuadrotorLoad, FieldMatchesTheCartesianLagrangeMultiplierForm) {
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.3, 2.0);
  for (int k = 0; k < 200; ++k) {
    lb::QuadrotorLoadParams<LD> p{u(rng), {u(rng), u(rng)}, {u(rng), u(rng)},
                                  {lb::vec3<LD>(u(rng), u(rng), u(rng)), lb::vec3<LD>(u(rng), u(rng), u(rng))}, 9.81};
    lb::ConstantInputs<LD> c;
    for (int i = 0; i < 2; ++i) {
      c.inputs.u[i] = lbtest::gaussian<LD, 3>(rng, 10);
      c.inputs.M[i] = lbtest::gaussian<LD, 3>(rng);
    }
    const lb::QuadrotorLoad<LD, lb::ConstantInputs<LD>> m{p, c};
    const auto P = lbtest::Sampler<State<LD>::space>::point(rng);
    const auto F = State<LD>::space::generator(m.f(0, P), P);
    const auto ref = cartesian_field(p, c.inputs, P);
    EXPECT_LE(double(lb::norm_inf(F - ref)), 1e-16 * (1 + double(lb::norm_inf(ref)))) << "sample " << k;
  }
}

TEST(LoadTransport, LoadAccelerationIsTheCommandedOne) {
  // (12) makes ÿ = (μ₁ + μ₂)/m_y + g e₃ at any state, in formation or not ([LSK13] eq. (13)).
  std::mt19937_64 rng(12);
  const auto m = QuadrotorLoadProblem::model<LD>();
  for (int k = 0; k < 100; ++k) {
    const auto P = lbtest::Sampler<State<LD>::space>::point(rng);
    const LD t = LD(k) / 20;
    const auto ref = m.control.reference(t, m.params, P);
    const auto dv = m.rates(P, m.control(t, m.params, P)).dv;
    const auto expect = (1 / m.params.load_mass) * (ref.mu[0] + ref.mu[1]) + m.params.gravity * lb::vec3<LD>(0, 0, 1);
    EXPECT_LE(double(lb::norm_inf(dv - expect)), 1e-16 * (1 + double(lb::norm_inf(expect))));
  }
}

TEST(LoadTransport, DesiredDirectionDerivativesMatchFiniteDifferencesAlongTheClosedLoop) {
  // q̇_id and q̈_id come from Ḟ and F̈, which use the closed-loop ÿ and y⃛. Check them against
  // 5-point differences of q_id(t, P(t)) along an accurate closed-loop run (long double RKMK5,
  // h = 5e-5, δ = 5e-3). The differences are the stencil's own error: they fall 16× from δ = 1e-2.
  const auto m = QuadrotorLoadProblem::model<LD>();
  const LD dt = LD(5e-3), h = LD(5e-5);
  for (LD tc : {LD(0.3), LD(1.5), LD(3.7)}) {
    auto P = lb::integrate_fixed<lb::methods::rkmk5>(m, LD(0), tc - 2 * dt, State<LD>::paper_initial(), h, 1 << 20).y;
    lb::Vec3<LD> qd[2][5];
    State<LD>::point Pc;
    for (int s = 0; s < 5; ++s) {
      const LD t = tc + (s - 2) * dt;
      if (s > 0) P = lb::integrate_fixed<lb::methods::rkmk5>(m, t - dt, t, P, h, 1 << 20).y;
      if (s == 2) Pc = P;
      const auto ref = m.control.reference(t, m.params, P);
      for (int i = 0; i < 2; ++i) qd[i][s] = ref.qd[i].x;
    }
    const auto ref = m.control.reference(tc, m.params, Pc);
    for (int i = 0; i < 2; ++i) {
      const auto* f = qd[i];
      const auto d1 = (1 / (12 * dt)) * (f[0] - LD(8) * f[1] + LD(8) * f[3] - f[4]);
      const auto d2 = (1 / (12 * dt * dt)) * (LD(16) * (f[1] + f[3]) - LD(30) * f[2] - f[0] - f[4]);
      const double e1 = double(lb::norm_inf(d1 - ref.qd[i].d1)), e2 = double(lb::norm_inf(d2 - ref.qd[i].d2));
      std::printf("t = %.1f, link %d: |q̇_d| %.2e, error %.1e; |q̈_d| %.2e, error %.1e\n", double(tc), i,
                  double(lb::norm_inf(ref.qd[i].d1)), e1, double(lb::norm_inf(ref.qd[i].d2)), e2);
      EXPECT_LE(e1, 1e-6 * (1 + double(lb::norm_inf(ref.qd[i].d1))));
      EXPECT_LE(e2, 1e-6 * (1 + double(lb::norm_inf(ref.qd[i].d2))));
    }
  }
}

TEST(LoadTransport, PaperExperimentLoadTracksTheParabola) {
  // [CCLMO22 §6.2]: RKMK4, T = 5 with 2000 steps. The load starts 0.9 off the path and must converge
  // (gains k_y = 12, k_v = 5: error ~ e^{−2.5t}); the links keep |qᵢ| = 1, qᵢ·ωᵢ = 0 and the
  // attitudes stay orthogonal to round-off although Mᵢ = (1, 1, 1) spins the quadrotors up.
  const auto m = QuadrotorLoadProblem::model<double>();
  const auto P0 = State<double>::paper_initial();
  lb::Vec3<double> yd[5];
  m.control.path(0.0, yd);
  const double e0 = lb::norm(State<double>::y(P0) - yd[0]);
  double worst_late = 0, worst_inv = 0;
  auto P = P0;
  const int n = 2000;
  const double h = 5.0 / n;
  for (int k = 0; k < n; ++k) {
    P = lb::methods::rkmk4::step(m, k * h, P, h).y;
    const double t = (k + 1) * h;
    m.control.path(t, yd);
    if (t >= 4) worst_late = std::max(worst_late, lb::norm(State<double>::y(P) - yd[0]));
    const auto obs = m.observables(P);
    for (int j = 0; j < 5; ++j) worst_inv = std::max(worst_inv, std::abs(obs[j]) / (j == 2 || j == 3 ? 1 + lb::norm(State<double>::w(P, j - 2)) : 1.0));
  }
  const double spin = lb::norm(State<double>::Omega(P, 0));
  std::printf("tracking error: %.2f at t = 0, at most %.1e on [4, 5]; worst invariant drift %.1e; |Omega_1(5)| = %.0f\n",
              e0, worst_late, worst_inv, spin);
  EXPECT_GT(e0, 0.5);
  EXPECT_LE(worst_late, 1e-3 * e0);
  EXPECT_LE(worst_inv, 1e-13);
  EXPECT_GT(spin, 10.0);
  // The constraints over 10⁴ steps (h = 5e-4 on the same span), at every step. Round-off random-walks
  // like √N·10ε ≈ 2e-13 (measured 9.7e-14); the bound is 5e-13.
  double worst_long = 0;
  P = P0;
  for (int k = 0; k < 10000; ++k) {
    P = lb::methods::rkmk4::step(m, k * 5e-4, P, 5e-4).y;
    const auto obs = m.observables(P);
    for (int j = 0; j < 5; ++j)
      worst_long = std::max(worst_long, std::abs(obs[j]) / (j == 2 || j == 3 ? 1 + lb::norm(State<double>::w(P, j - 2)) : 1.0));
  }
  std::printf("worst invariant drift over 10^4 steps: %.1e\n", worst_long);
  EXPECT_LE(worst_long, 5e-13);
}

/// Error at t = 1 of a fixed-step run with n steps against a long double RKMK5 run at 3200 steps.
template <class Method> double error(int n) {
  static const auto ref = [] {
    const auto m = QuadrotorLoadProblem::model<LD>();
    return lb::integrate_fixed<lb::methods::rkmk5>(m, LD(0), LD(1), State<LD>::paper_initial(), LD(1) / 3200, 1 << 20).y;
  }();
  const auto m = QuadrotorLoadProblem::model<double>();
  const auto y = lb::integrate_fixed<Method>(m, 0.0, 1.0, State<double>::paper_initial(), 1.0 / n, 1 << 20).y;
  return double(lb::norm_inf(lb::cast<LD>(y) - ref));
}

template <class Method> double observed_order(int n) {
  return 0.5 * (std::log2(error<Method>(n) / error<Method>(2 * n)) + std::log2(error<Method>(2 * n) / error<Method>(4 * n)));
}

TEST(LoadTransport, ObservedOrdersOnTheClosedLoop) {
  // [CCLMO22] Fig. 13: the convergence of RKMK methods on this system (state- and time-dependent field).
  using namespace lb::methods;
  const double p1 = observed_order<lie_euler>(400), p2 = observed_order<lie_euler_heun>(200),
               p3 = observed_order<rkmk3_kutta>(100), p4 = observed_order<rkmk4>(50), c4 = observed_order<cf4>(50);
  std::printf("observed orders: Lie-Euler %.2f, Heun %.2f, RKMK3 %.2f, RKMK4 %.2f, CF4 %.2f\n", p1, p2, p3, p4, c4);
  EXPECT_NEAR(p1, 1, 0.15);
  EXPECT_NEAR(p2, 2, 0.15);
  EXPECT_NEAR(p3, 3, 0.15);
  EXPECT_NEAR(p4, 4, 0.15);
  EXPECT_NEAR(c4, 4, 0.15);
}

}  // namespace
