// The Hamilton–Pontryagin variational integrators (methods/hamilton_pontryagin.hpp), one trajectory
// at a time. The references are independent of the code under test (cotangent_problems.hpp): RK4 of
// the body-frame top equations in quad precision, the canonical chart g = exp(q̂), p = dexp_{−q}ᵀν
// from reference.hpp's matrix exponential and ad-series, SLGI (methods/slgi.hpp, a different method
// from a different paper) for the free body, and [Notes]'s closed-form Jacobians written out here.
// The numbers to meet are those of [Notes §3.5–3.6] (docs/symplectic.md §6).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cotangent_problems.hpp"
#include "liebatch/methods/hamilton_pontryagin.hpp"
#include "liebatch/methods/slgi.hpp"
#include "liebatch/models/rigid_body_attitude.hpp"
#include "reference.hpp"

namespace {

using namespace cotangent;
using V6 = lb::Vec6<double>;

/// HP's state: the attitude R and the body momentum ν at the node.
struct HpState {
  M3 R;
  V3 nu;
};
/// The SLGI state (R, π) with π = RΠ₀ as (R, ν = Π₀).
HpState hp_initial(const State& s, const std::array<double, 3>& Pi) { return {s.R, lb::vec3(Pi[0], Pi[1], Pi[2])}; }
HpState asym_hp() { return hp_initial(asym_initial(), {1.0, 0.5, -0.4}); }
HpState frb_hp() { return hp_initial(frb_initial(), {std::cos(1.1), 0.0, std::sin(1.1)}); }
HpState bc_hp() { return hp_initial(bc_initial(), {0.0, 0.46875 * 150, (0.234375 + 15) * -4.61538}); }

const lb::RigidBodyAttitude<double> free_body{{lb::vec3(2.0, 1.0, 2.0 / 3.0)}};

/// n steps of hp_step with θ = num/den (Störmer–Verlet by default; variational Euler in kick form
/// for θ = 0) from s with warm starts and the FSAL torque; `each` sees every state.
template <class Tau, int num = 1, int den = 2, class Model, class Each>
HpState run_sv(const Model& m, HpState s, double h, long n, Stats& st, Each&& each) {
  V3 f = m.body_torque(s.R), xi = lb::hp_guess(m.body_inertia(), s.nu);
  for (long k = 0; k < n; ++k) {
    const lb::HpResult<double> r = lb::hp_step<Tau, num, den>(m, s.R, s.nu, f, h, xi);
    if (!st.record(r.iterations, r.status)) return s;
    s = {r.g, r.nu};
    f = r.torque;
    xi = r.xi;
    each(s);
  }
  return s;
}
template <class Tau, int num = 1, int den = 2, class Model> HpState run_sv(const Model& m, HpState s, double h, long n, Stats& st) {
  return run_sv<Tau, num, den>(m, s, h, n, st, [](const HpState&) {});
}

/// Ω = J⁻¹ν and H = ½ν·J⁻¹ν + m g e₃·Rχ in the test's own terms.
V3 omega(const TopData& d, const V3& nu) { return lb::vec3(nu[0] / d.J[0], nu[1] / d.J[1], nu[2] / d.J[2]); }
double energy(const TopData& d, const HpState& s) {
  const V3 Rc = s.R * lb::vec3(d.chi[0], d.chi[1], d.chi[2]);
  return 0.5 * lb::dot(s.nu, omega(d, s.nu)) + d.m * d.g * Rc[2];
}
/// The spatial momentum Rν.
V3 spatial(const HpState& s) { return s.R * s.nu; }

const char* tau_name(const lb::TauExp*) { return "exp"; }
const char* tau_name(const lb::TauCay*) { return "cay"; }
template <class Tau> const char* name() { return tau_name(static_cast<const Tau*>(nullptr)); }

/// The error metric of [Notes §2.5]: max(max |R − R_ex|, max |Ω − Ω_ex| / max(1, max |Ω_ex|)).
double error(const TopData& d, const HpState& s, const Exact& ex) {
  return std::max(max_abs_diff(s.R, ex.R), max_abs_diff(omega(d, s.nu), ex.W) / std::max(1.0, lb::norm_inf(ex.W)));
}

/// Errors of SV(τ) at T with N steps for each N.
template <class Tau>
std::vector<double> sv_errors(const TopData& d, const HpState& s0, const Exact& ex, double T, std::vector<int> Ns) {
  std::vector<double> err;
  for (int N : Ns) {
    Stats st;
    const HpState s = run_sv<Tau>(d.top(), s0, T / N, N, st);
    EXPECT_TRUE(st.all_ok) << name<Tau>() << " N " << N;
    err.push_back(error(d, s, ex));
  }
  return err;
}
std::vector<double> orders(const std::vector<double>& err) {
  std::vector<double> p;
  for (std::size_t i = 0; i + 1 < err.size(); ++i) p.push_back(std::log2(err[i] / err[i + 1]));
  return p;
}

// ---------------------------------------------------------------------------------------------
// Orders.

TEST(HP, OrdersOnAsymmetricTop) {
  const Exact ex = body_reference(asym, {0.2, -0.1, 0.3}, {Q(1) / 2, Q(0.5), Q(-0.4) * 3 / 2}, Q(2), 4000);
  ASSERT_LT(ex.halving, 1e-12) << "the reference is not converged";
  const std::vector<int> Ns{40, 80, 160, 320};
  auto check = [&](auto tau, double e160) {
    using Tau = decltype(tau);
    const std::vector<double> err = sv_errors<Tau>(asym, asym_hp(), ex, 2.0, Ns), p = orders(err);
    for (std::size_t i = 0; i < p.size(); ++i) {
      std::printf("ASYM T 2 SV-%s N %d -> %d: error %.3e -> %.3e, order %.3f\n", name<Tau>(), Ns[i], Ns[i + 1], err[i],
                  err[i + 1], p[i]);
      EXPECT_NEAR(p[i], 2.0, 0.15) << name<Tau>();
    }
    EXPECT_NEAR(err[2], e160, 0.05 * e160) << name<Tau>();  // [Notes]'s N = 160 errors
  };
  check(lb::TauExp{}, 1.57e-4);
  check(lb::TauCay{}, 2.18e-3);
}

TEST(HP, CayleyOnFastSpinIsSecondOrderButFarLessAccurate) {
  const Exact ex = body_reference(bc, {0, 0, 0}, {Q(0), Q(150), Q(-4.61538)}, Q(0.1), 4000);
  std::printf("BC reference at T = 0.1: N vs 2N difference %.1e\n", ex.halving);
  ASSERT_LT(ex.halving, 1e-10);
  const std::vector<int> Ns{250, 500, 1000, 2000};
  const std::vector<double> ec = sv_errors<lb::TauCay>(bc, bc_hp(), ex, 0.1, Ns), pc = orders(ec);
  const std::vector<double> ee = sv_errors<lb::TauExp>(bc, bc_hp(), ex, 0.1, Ns), pe = orders(ee);
  for (std::size_t i = 0; i < Ns.size(); ++i)
    std::printf("BC T 0.1 N %d: SV-cay %.3e%s, SV-exp %.3e, ratio %.1f\n", Ns[i], ec[i],
                i ? (" (order " + std::to_string(pc[i - 1]).substr(0, 5) + ")").c_str() : "", ee[i], ec[i] / ee[i]);
  for (double p : pc) EXPECT_NEAR(p, 2.0, 0.1);
  for (double p : pe) EXPECT_NEAR(p, 2.0, 0.1);
  EXPECT_LE(ee[2], 1.2e-5);
  for (std::size_t i = 0; i < Ns.size(); ++i) EXPECT_GE(ec[i], 50 * ee[i]) << "N " << Ns[i];
}

// ---------------------------------------------------------------------------------------------
// Variational Euler: Störmer–Verlet's configurations.

template <class Tau> void ve_equals_sv(const TopData& d, const HpState& s0, double h) {
  const auto m = d.top();
  const lb::HpResult<double> first =
      lb::hp_sv_step<Tau>(m, s0.R, s0.nu, m.body_torque(s0.R), h, lb::hp_guess(m.body_inertia(), s0.nu));
  ASSERT_EQ(first.status, lb::Status::ok);
  // VE from (g₀, ξ₁): its ν = (dτ⁻¹_{−hξ₁})*Jξ₁ follows from ξ₁.
  M3 R = s0.R;
  V3 xi = first.xi;
  double dR = 0, dnu = 0;
  Stats st;
  long k = 0;
  run_sv<Tau>(m, s0, h, 30, st, [&](const HpState& s) {
    const lb::HpResult<double> r = lb::hp_ve_step<Tau>(m, R, xi, h);
    ASSERT_EQ(r.status, lb::Status::ok) << "step " << k;
    R = r.g;
    xi = r.xi;
    dR = std::max(dR, max_abs_diff(R, s.R));
    dnu = std::max(dnu, max_abs_diff(r.nu, s.nu));
    ++k;
  });
  ASSERT_TRUE(st.all_ok);
  std::printf("h %.2f, 30 steps: VE-%s vs SV-%s configurations %.2e (node momenta differ by %.2e)\n", h, name<Tau>(),
              name<Tau>(), dR, dnu);
  EXPECT_LE(dR, 1e-13);
  EXPECT_GT(dnu, 1e-4);  // the momenta are sampled elsewhere: the comparison is not of one code with itself
}

TEST(HP, VariationalEulerHasStormerVerletConfigurations) {
  ve_equals_sv<lb::TauExp>(asym, asym_hp(), 0.1);
  ve_equals_sv<lb::TauCay>(asym, asym_hp(), 0.1);
  ve_equals_sv<lb::TauExp>(bc, bc_hp(), 0.005);
}

// Variational Euler as the engine steps it: hp_step with θ = 0 on (g, m), m = (dτ⁻¹_{hξ})*Jξ the
// right-hand side of (4.19)'s discrete Euler equation. From m₀ = (dτ⁻¹_{hξ₀})*Jξ₀ it is the (g, ξ)
// form of [BRM07] (hp_ve_step) step for step: the same attitudes, and m_k the (dτ⁻¹_{hξ_k})*Jξ_k of
// that form's ξ_k. Fails if the kick form drops its kick, puts it first or scales it by ½ (O(h)).
template <class Tau> void ve_kick_form_is_brm07(const TopData& d, const HpState& s0, double h) {
  const auto m = d.top();
  const V3 J = m.body_inertia();
  V3 xi = lb::hp_guess(J, s0.nu);
  auto rhs = [&](const V3& x) { return Tau::dinv_star(h * x, lb::vec3(J[0] * x[0], J[1] * x[1], J[2] * x[2])); };
  M3 R = s0.R;
  double dR = 0, dm = 0;
  Stats st;
  long k = 0;
  run_sv<Tau, 0, 1>(m, {s0.R, rhs(xi)}, h, 30, st, [&](const HpState& s) {
    const lb::HpResult<double> r = lb::hp_ve_step<Tau>(m, R, xi, h);
    ASSERT_EQ(r.status, lb::Status::ok) << "step " << k;
    R = r.g;
    xi = r.xi;
    dR = std::max(dR, max_abs_diff(R, s.R));
    dm = std::max(dm, max_abs_diff(rhs(xi), s.nu) / lb::norm_inf(s.nu));
    ++k;
  });
  ASSERT_TRUE(st.all_ok);
  std::printf("h %.3f, 30 steps: VE-%s in kick form vs (4.19): R %.2e, m %.2e relative\n", h, name<Tau>(), dR, dm);
  EXPECT_LE(dR, 1e-13);
  EXPECT_LE(dm, 1e-13);
}

TEST(HP, VariationalEulerInKickFormIsTheStepOfBRM07) {
  ve_kick_form_is_brm07<lb::TauExp>(asym, asym_hp(), 0.1);
  ve_kick_form_is_brm07<lb::TauCay>(asym, asym_hp(), 0.1);
  ve_kick_form_is_brm07<lb::TauExp>(bc, bc_hp(), 0.005);
}

// First order: ASYM to T = 2, N = 80 … 640, against the quad-precision RK4 reference (Cayley's
// larger second-order term keeps its slope at 1.19 from N = 40 to 80, coming down to 1).
TEST(HP, VariationalEulerIsFirstOrder) {
  const Exact ex = body_reference(asym, {0.2, -0.1, 0.3}, {Q(1) / 2, Q(0.5), Q(-0.4) * 3 / 2}, Q(2), 4000);
  ASSERT_LT(ex.halving, 1e-12) << "the reference is not converged";
  auto check = [&](auto tau) {
    using Tau = decltype(tau);
    std::vector<double> err;
    for (int N : {80, 160, 320, 640}) {
      Stats st;
      err.push_back(error(asym, run_sv<Tau, 0, 1>(asym.top(), asym_hp(), 2.0 / N, N, st), ex));
      EXPECT_TRUE(st.all_ok);
    }
    const std::vector<double> p = orders(err);
    std::printf("ASYM T 2 VE-%s N 80..640: errors %.3e %.3e %.3e %.3e, orders %.3f %.3f %.3f\n", name<Tau>(), err[0],
                err[1], err[2], err[3], p[0], p[1], p[2]);
    for (double q : p) EXPECT_NEAR(q, 1.0, 0.15) << name<Tau>();
  };
  check(lb::TauExp{});
  check(lb::TauCay{});
}

// Its adjoint is θ = 1 (the whole kick first): θ = 0 with h, then θ = 1 with −h, returns to the start.
TEST(HP, VariationalEulerAndItsAdjointReturnToTheStart) {
  auto back_and_forth = [](auto tau, const char* pn, const TopData& d, const HpState& s0, double h) {
    using Tau = decltype(tau);
    Stats st;
    const HpState fwd = run_sv<Tau, 0, 1>(d.top(), s0, h, 20, st);
    const HpState back = run_sv<Tau, 1, 1>(d.top(), fwd, -h, 20, st);
    const HpState wrong = run_sv<Tau, 0, 1>(d.top(), fwd, -h, 20, st);  // not its own adjoint
    ASSERT_TRUE(st.all_ok);
    const double e = std::max(max_abs_diff(back.R, s0.R), max_abs_diff(back.nu, s0.nu) / lb::norm_inf(s0.nu));
    const double w = std::max(max_abs_diff(wrong.R, s0.R), max_abs_diff(wrong.nu, s0.nu) / lb::norm_inf(s0.nu));
    std::printf("%s h %.3f VE-%s: 20 steps, 20 of its adjoint with -h: %.2e relative (itself with -h: %.2e)\n", pn, h,
                name<Tau>(), e, w);
    EXPECT_LE(e, 1e-13);
    EXPECT_GT(w, 1e-3);
  };
  back_and_forth(lb::TauExp{}, "ASYM", asym, asym_hp(), 0.05);
  back_and_forth(lb::TauCay{}, "ASYM", asym, asym_hp(), 0.05);
  back_and_forth(lb::TauExp{}, "BC", bc, bc_hp(), 0.005);
}

// ---------------------------------------------------------------------------------------------
// Symplecticity in the left-trivialised canonical chart g = exp(q̂), p = dexp_{−q}ᵀν = dexp_q ν.

template <class Tau, int num = 1, int den = 2, class Model>
std::array<Q, 6> canonical_step(const Model& m, const std::array<Q, 6>& x, double h) {
  const std::array<Q, 3> q{x[0], x[1], x[2]}, p{x[3], x[4], x[5]};
  const auto nu = ref::solve<3>(ref::dexp_matrix<3>(q), p);  // p = dexp_q ν
  const HpState s{to_m3(ref::expm(ref::hat(q))), lb::vec3(double(nu[0]), double(nu[1]), double(nu[2]))};
  const lb::HpResult<double> r =
      lb::hp_step<Tau, num, den>(m, s.R, s.nu, m.body_torque(s.R), h, lb::hp_guess(m.body_inertia(), s.nu));
  EXPECT_EQ(r.status, lb::Status::ok);
  ref::Mat<3> R1;
  for (int k = 0; k < 9; ++k) R1.a[k] = Q(r.g.m[k]);
  const auto q1 = log_q(R1);
  const auto p1 = ref::dexp_matrix<3>(q1) * std::array<Q, 3>{Q(r.nu[0]), Q(r.nu[1]), Q(r.nu[2])};
  return {q1[0], q1[1], q1[2], p1[0], p1[1], p1[2]};
}
template <class Tau, int num = 1, int den = 2, class Model> double symplectic_defect(const Model& m, double h) {
  return canonical_defect([&](const std::array<Q, 6>& x) { return canonical_step<Tau, num, den>(m, x, h); });
}

TEST(HP, SymplecticInCanonicalChart) {
  for (const TopData* d : {&asym, &frb}) {
    const char* pn = d == &asym ? "ASYM" : "FRB";
    const double ee = symplectic_defect<lb::TauExp>(d->top(), 0.2), ec = symplectic_defect<lb::TauCay>(d->top(), 0.2);
    std::printf("%s h 0.2: symplecticity defect SV-exp %.2e, SV-cay %.2e\n", pn, ee, ec);
    EXPECT_LE(ee, 1e-8);
    EXPECT_LE(ec, 1e-8);
  }
  const double ef = symplectic_defect<lb::TauExp>(free_body, 0.2);
  std::printf("FRB (RigidBodyAttitude) h 0.2: SV-exp %.2e\n", ef);
  EXPECT_LE(ef, 1e-8);
  for (const TopData* d : {&asym, &frb}) {  // variational Euler, and its adjoint
    const double ve = symplectic_defect<lb::TauExp, 0, 1>(d->top(), 0.2), vc = symplectic_defect<lb::TauCay, 0, 1>(d->top(), 0.2),
                 va = symplectic_defect<lb::TauExp, 1, 1>(d->top(), 0.2);
    std::printf("%s h 0.2: VE-exp %.2e, VE-cay %.2e, adjoint VE-exp %.2e\n", d == &asym ? "ASYM" : "FRB", ve, vc, va);
    EXPECT_LE(std::max({ve, vc, va}), 1e-8);
  }
}

/// Test-only mutants: the discrete Euler equation solved with (dτ⁻¹_{−hξ})* in place of (dτ⁻¹_{hξ})*
/// (the sign of dτ⁻¹'s argument flipped; the explicit kick keeps its (dτ⁻¹_{−hξ})*).
struct TauExpFlipped : lb::TauExp {
  template <class S> static lb::Vec3<S> dinv_star(const lb::Vec3<S>& x, const lb::Vec3<S>& v) {
    return lb::TauExp::dinv_star_neg(x, v);
  }
};
struct TauCayFlipped : lb::TauCay {
  template <class S> static lb::Vec3<S> dinv_star(const lb::Vec3<S>& x, const lb::Vec3<S>& v) {
    return lb::TauCay::dinv_star_neg(x, v);
  }
};

TEST(HP, MutantWithFlippedArgumentIsNotSymplectic) {
  const double ee = symplectic_defect<TauExpFlipped>(asym.top(), 0.2), ec = symplectic_defect<TauCayFlipped>(asym.top(), 0.2);
  const double ve = symplectic_defect<TauExpFlipped, 0, 1>(asym.top(), 0.2);
  std::printf("mutant (dtau^-1 argument flipped in the solve), ASYM h 0.2: defect exp %.2e, cay %.2e, VE-exp %.2e\n", ee, ec, ve);
  EXPECT_GE(ee, 1e-4);
  EXPECT_GE(ec, 1e-4);
  EXPECT_GE(ve, 1e-4);
}

// ---------------------------------------------------------------------------------------------
// Momentum, reversibility, the free body.

/// The largest |momentum(s) − momentum(s₀)| over n SV steps, printed with the Newton iterations.
template <class Tau, int num = 1, int den = 2, class Model, class Momentum>
double momentum_drift(const char* what, const Model& m, const HpState& s0, double h, long n, Momentum&& momentum) {
  const auto L0 = momentum(s0);
  double drift = 0;
  Stats st;
  run_sv<Tau, num, den>(m, s0, h, n, st, [&](const HpState& s) { drift = std::max(drift, lb::norm_inf(momentum(s) - L0)); });
  EXPECT_TRUE(st.all_ok);
  EXPECT_LE(st.max, 8);
  std::printf("%s h %.2f, %ld steps %s-%s: drift %.2e; Newton iterations mean %.2f max %d\n", what, h, n,
              num == 0 ? "VE" : (num == den ? "adjoint VE" : "SV"), name<Tau>(), drift, st.mean(), st.max);
  return drift;
}
/// e₃·(Rν), the vertical angular momentum, and Rν, the spatial one.
lb::Vec<double, 1> vertical(const HpState& s) { return {{spatial(s)[2]}}; }

// e₃·(Rν) is conserved by the identity exp(x) dexp⁻¹_x = dexp⁻¹_{−x} between exp's s, c and
// dexp⁻¹'s g2. The drift takes them correctly rounded (series_refined.hpp); with series.hpp's values
// SV-exp drifted 1.0e-11 over these 10⁴ steps, linearly, the same last-ulp error every step on this
// nearly steady top (docs/symplectic.md §6; TauExpPlain below). 5e-12 is half [Notes]'s 1e-11.
TEST(HP, VerticalMomentumOfBrulsCardonaTopIsExact) {
  EXPECT_NEAR(vertical(bc_hp())[0], -70.3124296875, 1e-12);
  EXPECT_LE(momentum_drift<lb::TauExp>("BC |e3.(R nu) - L0|", bc.top(), bc_hp(), 0.01, 10000, vertical), 5e-12);
  EXPECT_LE(momentum_drift<lb::TauCay>("BC |e3.(R nu) - L0|", bc.top(), bc_hp(), 0.01, 10000, vertical), 5e-12);
  EXPECT_LE((momentum_drift<lb::TauExp, 0, 1>("BC |e3.(R m) - L0|", bc.top(), bc_hp(), 0.01, 10000, vertical)), 5e-12);
  EXPECT_LE((momentum_drift<lb::TauCay, 0, 1>("BC |e3.(R m) - L0|", bc.top(), bc_hp(), 0.01, 10000, vertical)), 5e-12);
  EXPECT_LE((momentum_drift<lb::TauExp, 1, 1>("BC |e3.(R m) - L0|", bc.top(), bc_hp(), 0.01, 10000, vertical)), 5e-12);
}

/// Test-only τ = exp whose drift takes series.hpp's coefficients (the drift before
/// series_refined.hpp): the bound above must fail with it.
struct TauExpPlain : lb::TauExp {
  template <class T> static lb::TauDrift<T> drift(const lb::Mat3<T>& g, const lb::Vec3<T>& x, const lb::Vec3<T>& y) {
    const lb::ExpCoeffs<T> k = lb::exp_coeffs(lb::norm2(x));
    return {mul_tau(g, x, k.s, k.c), dinv_star_neg(x, y, lb::dexpinv_coeffs(lb::norm2(x)).g2)};
  }
};

TEST(HP, VerticalMomentumDriftsWithPlainCoefficients) {
  const double sv = momentum_drift<TauExpPlain>("mutant BC |e3.(R nu) - L0|", bc.top(), bc_hp(), 0.01, 10000, vertical);
  const double ve = momentum_drift<TauExpPlain, 0, 1>("mutant BC |e3.(R m) - L0|", bc.top(), bc_hp(), 0.01, 10000, vertical);
  EXPECT_GT(sv, 7e-12);
  EXPECT_GT(ve, 7e-12);
}

TEST(HP, VerticalMomentumInLongDoubleIsExactToItsRoundOff) {
  using L = long double;
  const lb::HeavyTop<L> m = bc.top().cast<L>();
  lb::Mat3<L> R = lb::Mat3<L>::identity();
  lb::Vec3<L> nu = lb::cast<L>(bc_hp().nu), f = m.body_torque(R), xi = lb::hp_guess(m.body_inertia(), nu);
  const L L0 = (R * nu)[2];
  L drift = 0;
  for (int k = 0; k < 10000; ++k) {
    const lb::HpResult<L> r = lb::hp_sv_step<lb::TauExp>(m, R, nu, f, L(0.01), xi);
    ASSERT_EQ(r.status, lb::Status::ok);
    R = r.g, nu = r.nu, f = r.torque, xi = r.xi;
    drift = std::max(drift, std::abs((R * nu)[2] - L0));
  }
  std::printf("BC h 0.01, 1e4 steps SV-exp in long double: drift of e3.(R nu) %.2e\n", double(drift));
  EXPECT_LE(double(drift), 1e-13);
}

TEST(HP, SpatialMomentumOfFreeBodyIsExact) {
  EXPECT_LE(momentum_drift<lb::TauExp>("FRB |R nu - R0 nu0|", free_body, frb_hp(), 0.1, 10000, spatial), 1e-13);
  EXPECT_LE(momentum_drift<lb::TauCay>("FRB |R nu - R0 nu0|", free_body, frb_hp(), 0.1, 10000, spatial), 1e-13);
  EXPECT_LE((momentum_drift<lb::TauExp, 0, 1>("FRB |R m - R0 m0|", free_body, frb_hp(), 0.1, 10000, spatial)), 1e-13);
}

template <class Tau> void reversible(const char* pn, const TopData& d, const HpState& s0, double h) {
  Stats st;
  const HpState fwd = run_sv<Tau>(d.top(), s0, h, 20, st);
  const HpState back = run_sv<Tau>(d.top(), fwd, -h, 20, st);
  ASSERT_TRUE(st.all_ok);
  const double e = std::max(max_abs_diff(back.R, s0.R), max_abs_diff(back.nu, s0.nu) / lb::norm_inf(s0.nu));
  std::printf("%s h %.3f SV-%s: 20 steps and 20 back with -h: %.2e relative (moved %.2e)\n", pn, h, name<Tau>(), e,
              max_abs_diff(fwd.R, s0.R));
  EXPECT_LE(e, 1e-13);
  EXPECT_GT(max_abs_diff(fwd.R, s0.R), 1e-2);  // it went somewhere
}

TEST(HP, StormerVerletIsReversible) {
  reversible<lb::TauExp>("ASYM", asym, asym_hp(), 0.05);
  reversible<lb::TauCay>("ASYM", asym, asym_hp(), 0.05);
  reversible<lb::TauExp>("BC", bc, bc_hp(), 0.005);
  reversible<lb::TauCay>("BC", bc, bc_hp(), 0.005);
}

/// n SLGI θ steps on the free body from (R, π).
State run_slgi(State s, double h, double theta, long n) {
  V6 z = lb::slgi_guess(free_body, s.R, s.pi, h);
  for (long k = 0; k < n; ++k) {
    const auto r = lb::slgi_step(free_body, s.R, s.pi, h, theta, z);
    EXPECT_EQ(r.status, lb::Status::ok);
    s = {r.g, r.mu};
    z = r.z;
  }
  return s;
}

TEST(HP, FreeBodyStormerVerletExpIsSlgi) {
  for (auto [h, n] : {std::pair{0.1, 100L}, std::pair{0.5, 20L}}) {
    Stats st;
    const HpState hp = run_sv<lb::TauExp>(free_body, frb_hp(), h, n, st);
    ASSERT_TRUE(st.all_ok);
    for (double theta : {0.0, 0.5, 1.0}) {
      const State sl = run_slgi(frb_initial(), h, theta, n);
      const double eR = max_abs_diff(sl.R, hp.R), ep = max_abs_diff(sl.pi, spatial(hp));
      std::printf("FRB h %.1f, %ld steps: SLGI theta %.1f vs HP-SV exp: R %.2e, pi vs R nu %.2e\n", h, n, theta, eR, ep);
      EXPECT_LE(eR, 1e-13);
      EXPECT_LE(ep, 1e-13);
    }
    const HpState cay = run_sv<lb::TauCay>(free_body, frb_hp(), h, n, st);
    EXPECT_GT(max_abs_diff(cay.R, hp.R), 1e-4);  // another τ, another map: the comparison can fail
  }
}

// ---------------------------------------------------------------------------------------------
// Bounded energy: ASYM h = 0.05, 10⁵ steps (T = 5000), and BC h = 0.01, 10⁴ steps.

template <class Tau, int num = 1, int den = 2>
void energy_bounded(const char* pn, const TopData& d, const HpState& s0, double h, long n, double bound) {
  const double e0 = energy(d, s0);
  Tenths t;
  long k = 0;
  Stats st;
  run_sv<Tau, num, den>(d.top(), s0, h, n, st, [&](const HpState& s) { t.add(k++, n, std::abs(energy(d, s) - e0) / std::abs(e0)); });
  ASSERT_TRUE(st.all_ok);
  std::printf("%s h %.2f, %ld steps %s-%s: rel. energy error first 10%% %.3e, last 10%% %.3e (ratio %.3f); Newton "
              "iterations mean %.2f max %d\n",
              pn, h, n, num == 0 ? "VE" : "SV", name<Tau>(), t.first, t.last, t.last / t.first, st.mean(), st.max);
  EXPECT_LE(t.last, 1.2 * t.first);
  EXPECT_LT(t.last, bound);
  EXPECT_LE(st.max, 8);
}

TEST(HP, EnergyErrorBounded) {
  energy_bounded<lb::TauExp>("ASYM", asym, asym_hp(), 0.05, 100000, 4e-3);   // notes: 3.45e-3 -> 3.50e-3
  energy_bounded<lb::TauCay>("ASYM", asym, asym_hp(), 0.05, 100000, 1.5e-2);  // notes: 1.32e-2 -> 1.31e-2
  energy_bounded<lb::TauExp>("BC", bc, bc_hp(), 0.01, 10000, 6e-3);          // notes: 5.27e-3
  energy_bounded<lb::TauCay>("BC", bc, bc_hp(), 0.01, 10000, 9e-3);          // notes: 8.54e-3
  // Variational Euler: first order, so an O(h) error, but as bounded.
  energy_bounded<lb::TauExp, 0, 1>("ASYM", asym, asym_hp(), 0.05, 100000, 0.09);  // 8.06e-2 -> 8.08e-2
  energy_bounded<lb::TauCay, 0, 1>("ASYM", asym, asym_hp(), 0.05, 100000, 0.1);   // 8.71e-2 -> 8.76e-2
  energy_bounded<lb::TauExp, 0, 1>("BC", bc, bc_hp(), 0.01, 10000, 6e-3);        // 5.35e-3
}

// ---------------------------------------------------------------------------------------------
// The solver.

/// 1000 steps of SV-exp and SV-cay: every one converges, in at most 8 Newton iterations.
void iterations_within_eight(const char* pn, const TopData& d, const HpState& s0, double h) {
  Stats se, sc;
  run_sv<lb::TauExp>(d.top(), s0, h, 1000, se);
  run_sv<lb::TauCay>(d.top(), s0, h, 1000, sc);
  std::printf("%s h %.3f, 1000 steps: Newton iterations exp mean %.2f max %d, cay mean %.2f max %d\n", pn, h, se.mean(),
              se.max, sc.mean(), sc.max);
  EXPECT_TRUE(se.all_ok) << pn << " " << h;
  EXPECT_TRUE(sc.all_ok) << pn << " " << h;
  EXPECT_LE(se.max, 8);
  EXPECT_LE(sc.max, 8);
}

TEST(HP, EveryStepConvergesWithinEightIterations) {  // [Notes §3.4] table
  iterations_within_eight("BC", bc, bc_hp(), 0.01);
  iterations_within_eight("BC", bc, bc_hp(), 0.001);
  iterations_within_eight("ASYM", asym, asym_hp(), 0.5);
  iterations_within_eight("ASYM", asym, asym_hp(), 0.2);
  iterations_within_eight("ASYM", asym, asym_hp(), 0.1);
  iterations_within_eight("FRB", frb, frb_hp(), 1.0);
}

/// [Notes §3.4] closed-form Jacobians of F(ξ) = (dτ⁻¹_{hξ})* Jξ − ν⁺, in quad precision.
using QM = ref::Mat<3>;
QM hatq(const std::array<Q, 3>& w) { return ref::hat(w); }
QM outer(const std::array<Q, 3>& a, const std::array<Q, 3>& b) {
  QM r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r(i, j) = a[i] * b[j];
  return r;
}
QM diagq(const V3& d) {
  QM r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r(i, j) = i == j ? Q(d[i]) : Q(0);
  return r;
}
Q dotq(const std::array<Q, 3>& a, const std::array<Q, 3>& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
/// Cayley: J + (h/2)(ξ̂J − (Jξ)^) + (h²/4)(2ξ(Jξ)ᵀ + (ξ·Jξ)I).
QM cay_jacobian(const V3& Jd, const V3& xi_d, double hd) {
  const Q h = hd;
  const std::array<Q, 3> xi{Q(xi_d[0]), Q(xi_d[1]), Q(xi_d[2])}, y{Q(Jd[0]) * xi[0], Q(Jd[1]) * xi[1], Q(Jd[2]) * xi[2]};
  const QM J = diagq(Jd);
  return J + (h / 2) * (hatq(xi) * J - hatq(y)) + (h * h / 4) * (Q(2) * outer(xi, y) + dotq(xi, y) * QM::identity());
}
/// exp: (J_l⁻¹(x))ᵀ J + h[−½ŷ + g̃₂(a)(x̂²y)xᵀ + g₂(a)((x·y)I + x yᵀ − 2 y xᵀ)], x = hξ, y = Jξ, a = |x|,
/// g₂ = (1 − (a/2)cot(a/2))/a², g̃₂ = g₂′/a by the closed forms (quad precision: no series needed at
/// the a of the test).
QM exp_jacobian(const V3& Jd, const V3& xi_d, double hd) {
  const Q h = hd;
  const std::array<Q, 3> xi{Q(xi_d[0]), Q(xi_d[1]), Q(xi_d[2])}, y{Q(Jd[0]) * xi[0], Q(Jd[1]) * xi[1], Q(Jd[2]) * xi[2]};
  const std::array<Q, 3> x{h * xi[0], h * xi[1], h * xi[2]};
  const Q a = sqrt(dotq(x, x)), ct = cos(a / 2) / sin(a / 2);
  const Q g2 = (1 - a / 2 * ct) / (a * a);
  const Q dnum = -ct / 2 + a / (4 * sin(a / 2) * sin(a / 2));  // d/da (1 − (a/2)cot(a/2))
  const Q g2t = (dnum / (a * a) - 2 * (1 - a / 2 * ct) / (a * a * a)) / a;
  const QM X = hatq(x), X2 = X * X;
  QM Jlinv_t = QM::identity() + Q(0.5) * X + g2 * X2;  // (I − ½x̂ + g₂x̂²)ᵀ
  const auto X2y = X2 * y;
  return Jlinv_t * diagq(Jd) +
         h * (Q(-0.5) * hatq(y) + g2t * outer(X2y, x) +
              g2 * (dotq(x, y) * QM::identity() + outer(x, y) - Q(2) * outer(y, x)));
}

template <class Tau> void jacobian_check(const char* pn, const TopData& d, const HpState& s0, double h) {
  const V3 J = d.top().body_inertia(), nu_plus = s0.nu + (h / 2) * d.top().body_torque(s0.R);
  V3 xi = lb::hp_guess(J, s0.nu);
  for (int i = 0; i < 3; ++i) xi[i] *= 1.0 + 0.1 * (i + 1);  // off the root
  auto res = [&](const auto& z) { return lb::hp_residual<Tau>(J, nu_plus, h, z); };
  V3 r;
  lb::SquareMat<double, 3> Jd;
  lb::residual_and_jacobian<3>(res, xi, r, Jd);
  const QM Jq = std::is_same_v<Tau, lb::TauExp> ? exp_jacobian(J, xi, h) : cay_jacobian(J, xi, h);
  lb::SquareMat<double, 3> Jc;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) Jc.a[i][j] = double(Jq(i, j));
  const double efd = relative_difference<3>(Jd, central_jacobian<3>(res, xi)), ecf = relative_difference<3>(Jd, Jc);
  std::printf(
      "%s h %.2f (h|xi| %.2f) %s: dual Jacobian vs central differences %.1e, vs [Notes]'s closed form %.1e "
      "(relative)\n",
      pn, h, h * lb::norm(xi), name<Tau>(), efd, ecf);
  EXPECT_LE(efd, 1e-7);
  EXPECT_LE(ecf, 1e-13);
}

TEST(HP, DualJacobianMatchesCentralDifferencesAndClosedForms) {
  jacobian_check<lb::TauExp>("ASYM", asym, asym_hp(), 0.2);
  jacobian_check<lb::TauCay>("ASYM", asym, asym_hp(), 0.2);
  jacobian_check<lb::TauExp>("ASYM", asym, asym_hp(), 0.5);
  jacobian_check<lb::TauExp>("BC", bc, bc_hp(), 0.01);
  jacobian_check<lb::TauCay>("BC", bc, bc_hp(), 0.01);
}

TEST(HP, TooLargeStepFailsWithStatusNeverNaN) {
  const auto m = bc.top();
  const HpState s = bc_hp();
  const V3 f = m.body_torque(s.R);
  // h = 0.05: h|ω| = 7.5 > 2π − 0.1, outside exp's injectivity domain.
  const lb::HpResult<double> r = lb::hp_sv_step<lb::TauExp>(m, s.R, s.nu, f, 0.05, lb::hp_guess(m.body_inertia(), s.nu));
  std::printf("BC h 0.05 SV-exp: status %s after %d iterations\n", r.status == lb::Status::ok ? "ok" : "failed",
              r.iterations);
  EXPECT_EQ(r.status, lb::Status::nonlinear_solve_failed);
  EXPECT_EQ(max_abs_diff(r.g, s.R), 0.0);  // the start state, unchanged
  EXPECT_EQ(max_abs_diff(r.nu, s.nu), 0.0);
  const lb::HpResult<double> v = lb::hp_ve_step<lb::TauExp>(m, s.R, lb::hp_guess(m.body_inertia(), s.nu), 0.05);
  EXPECT_EQ(v.status, lb::Status::nonlinear_solve_failed);
  EXPECT_EQ(max_abs_diff(v.g, s.R), 0.0);
  // Cayley has no singularity: whatever it does over 100 steps, a state is finite or the start.
  Stats st;
  int finite = 0;
  run_sv<lb::TauCay>(m, s, 0.05, 100, st, [&](const HpState& y) {
    for (int i = 0; i < 9; ++i) ASSERT_TRUE(std::isfinite(y.R.m[i]));
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(std::isfinite(y.nu[i]));
    ++finite;
  });
  std::printf("BC h 0.05 SV-cay: %d steps converged%s\n", finite, st.all_ok ? "" : ", then nonlinear_solve_failed");
}

TEST(HP, FloatStepConvergesAndMatchesDouble) {
  const HpState s = asym_hp();
  const lb::HeavyTop<double> m = asym.top();
  const auto a = lb::hp_sv_step<lb::TauExp>(m, s.R, s.nu, m.body_torque(s.R), 0.1, lb::hp_guess(m.body_inertia(), s.nu));
  const lb::HeavyTop<float> mf = m.cast<float>();
  const lb::Mat3<float> Rf = to_float(s.R);
  const lb::Vec3<float> nf = lb::cast<float>(s.nu);
  const auto b = lb::hp_sv_step<lb::TauExp>(mf, Rf, nf, mf.body_torque(Rf), 0.1f, lb::hp_guess(mf.body_inertia(), nf));
  const auto c = lb::hp_sv_step<lb::TauCay>(mf, Rf, nf, mf.body_torque(Rf), 0.1f, lb::hp_guess(mf.body_inertia(), nf));
  ASSERT_EQ(a.status, lb::Status::ok);
  ASSERT_EQ(b.status, lb::Status::ok);
  ASSERT_EQ(c.status, lb::Status::ok);
  EXPECT_LE(b.iterations, 12);
  for (int k = 0; k < 9; ++k) EXPECT_NEAR(b.g.m[k], a.g.m[k], 1e-6);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(b.nu[k], a.nu[k], 1e-6 * lb::norm_inf(a.nu));
}

}  // namespace
