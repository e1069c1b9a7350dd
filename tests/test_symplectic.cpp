// The symplectic Lie group integrators (methods/slgi.hpp) and their solver (methods/newton.hpp,
// dual.hpp), one trajectory at a time. Every reference is computed here, independently of the code
// under test: closed-form classical maps on ℝ¹, a classical RK4 of the body-frame top equations in
// quad precision, and the canonical chart g = exp(q̂), p = dexp_qᵀμ from reference.hpp's matrix
// exponential and ad-series. The numbers to meet are those of [Notes] (docs/symplectic.md §6).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <type_traits>
#include <utility>
#include <vector>

#include "liebatch/methods/methods.hpp"
#include "liebatch/methods/slgi.hpp"
#include "liebatch/models/heavy_top_quadratic.hpp"
#include "liebatch/models/heavy_top_spatial.hpp"
#include "liebatch/models/rigid_body_attitude.hpp"
#include "cotangent_problems.hpp"
#include "reference.hpp"

namespace {

using namespace cotangent;
using V6 = lb::Vec6<double>;

// ---------------------------------------------------------------------------------------------
// Dual numbers and the solver's parts.

TEST(Dual, ArithmeticAndFunctionsGiveExactDerivatives) {
  using D = lb::Dual<double, 2>;
  const double x = 0.7, y = -1.3;
  const D a = D::variable(x, 0), b = D::variable(y, 1);
  // f = sin(a b) / (1 + a²) + cos(b) √(a² + b²) − |b| tan(a) + atan2(b, a)
  const D f = lb::sin(a * b) / (1.0 + a * a) + lb::cos(b) * lb::sqrt(a * a + b * b) - lb::abs(b) * lb::tan(a) +
              lb::atan2(b, a);
  auto val = [](double u, double v) {
    return std::sin(u * v) / (1 + u * u) + std::cos(v) * std::sqrt(u * u + v * v) - std::abs(v) * std::tan(u) +
           std::atan2(v, u);
  };
  const double r = std::sqrt(x * x + y * y);
  const double fx = y * std::cos(x * y) / (1 + x * x) - std::sin(x * y) * 2 * x / ((1 + x * x) * (1 + x * x)) +
                    std::cos(y) * x / r - std::abs(y) / (std::cos(x) * std::cos(x)) - y / (x * x + y * y);
  const double fy = x * std::cos(x * y) / (1 + x * x) - std::sin(y) * r + std::cos(y) * y / r + std::tan(x) +
                    x / (x * x + y * y);  // d|y|/dy = −1 at y < 0
  EXPECT_NEAR(f.v, val(x, y), 1e-15);
  EXPECT_NEAR(f.d[0], fx, 1e-14);
  EXPECT_NEAR(f.d[1], fy, 1e-14);
  EXPECT_TRUE(lb::isfinite(f));
  D g = f;
  g.d[1] = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(lb::isfinite(g));  // a non-finite partial is non-finite
}

// exp on SO(3) through the series tiers and the closed form, differentiated by duals, against central
// differences of the double exp: the dual scalar runs through so3.hpp/series.hpp unchanged.
TEST(Dual, SO3ExpAndDexpDerivativesMatchCentralDifferences) {
  using D = lb::Dual<double, 3>;
  for (double scale : {1e-3, 0.1, 0.4, 1.0, 2.0, 3.0}) {  // every series tier and the closed form
    const V3 u = scale * lb::vec3(0.6, -0.48, 0.64);
    const V3 v = lb::vec3(0.3, 0.2, -0.9);
    lb::Vec3<D> ud;
    for (int i = 0; i < 3; ++i) ud[i] = D::variable(u[i], i);
    const lb::Mat3<D> E = lb::SO3<D>::exp(ud).R;
    const lb::Vec3<D> w = lb::so3<D>::dexp(ud, lb::cast<D>(v));
    for (int j = 0; j < 3; ++j) {
      const double eps = 1e-6;
      V3 up = u, um = u;
      up[j] += eps;
      um[j] -= eps;
      const M3 Ep = lb::SO3<double>::exp(up).R, Em = lb::SO3<double>::exp(um).R;
      const V3 wp = lb::so3<double>::dexp(up, v), wm = lb::so3<double>::dexp(um, v);
      for (int k = 0; k < 9; ++k) EXPECT_NEAR(E.m[k].d[j], (Ep.m[k] - Em.m[k]) / (2 * eps), 1e-8) << scale;
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(w[k].d[j], (wp[k] - wm[k]) / (2 * eps), 1e-8) << scale;
    }
  }
}

TEST(Newton, LuSolvePivotsAndReportsSingular) {
  lb::SquareMat<double, 3> A{{{0, 2, 1}, {1, 1, 1}, {4, -1, 2}}};  // a zero first pivot without pivoting
  const lb::Vec3<double> x0 = lb::vec3(1.0, -2.0, 0.5);
  lb::Vec3<double> b, x;
  for (int i = 0; i < 3; ++i) b[i] = A.a[i][0] * x0[0] + A.a[i][1] * x0[1] + A.a[i][2] * x0[2];
  ASSERT_TRUE(lb::lu_solve<3>(A, b, x));
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(x[i], x0[i], 1e-15);
  lb::SquareMat<double, 3> S{{{1, 2, 3}, {2, 4, 6}, {0, 1, 1}}};
  EXPECT_FALSE(lb::lu_solve<3>(S, b, x));
  A.a[1][1] = std::nan("");
  EXPECT_FALSE(lb::lu_solve<3>(A, b, x));
}

TEST(Newton, ConvergesQuadraticallyAndFailsHonestly) {
  // r(z) = (z₀² + z₁² − 4, z₀ − z₁): root (√2, √2).
  auto r = [](const auto& z) {
    using S = std::decay_t<decltype(z[0])>;
    return lb::Vec<S, 2>{{z[0] * z[0] + z[1] * z[1] - S(4), z[0] - z[1]}};
  };
  const auto o = lb::newton<2>(r, lb::Vec<double, 2>{{3.0, 1.0}});
  EXPECT_TRUE(o.converged);
  EXPECT_LE(o.iterations, 8);
  EXPECT_NEAR(o.z[0], std::sqrt(2.0), 1e-15);
  EXPECT_NEAR(o.z[1], std::sqrt(2.0), 1e-15);
  const auto of = lb::newton<2>(r, lb::Vec<float, 2>{{3.0f, 1.0f}});
  EXPECT_TRUE(of.converged);
  EXPECT_NEAR(of.z[0], std::sqrt(2.0f), 1e-6f);
  // No root (z₀² + 4 = 0): never converges, and says so.
  auto nr = [](const auto& z) {
    using S = std::decay_t<decltype(z[0])>;
    return lb::Vec<S, 2>{{z[0] * z[0] + S(4), z[1] - S(1)}};
  };
  const auto on = lb::newton<2>(nr, lb::Vec<double, 2>{{1.0, 0.0}});
  EXPECT_FALSE(on.converged);
  EXPECT_LE(on.iterations, 10);
  // Singular Jacobian at the guess (∂r/∂z₀ = 2z₀ = 0).
  const auto os = lb::newton<2>(nr, lb::Vec<double, 2>{{0.0, 0.0}});
  EXPECT_FALSE(os.converged);
}

/// The largest errors of DoubleWord<T>'s +, ×, /, √ (relative, in u² with u = ε/2) and sin, cos
/// (absolute, in u) over random pairs, against R, a type with more digits than two T.
struct WordErrors {
  double add, mul, quo, root, trig, u;
};
template <class T, class R> WordErrors word_errors(int n) {
  using W = lb::DoubleWord<T>;
  using std::abs, std::cos, std::ldexp, std::sin, std::sqrt;
  const double u = std::numeric_limits<T>::epsilon() / 2;
  const int digits = std::numeric_limits<T>::digits;
  auto word = [](R x) {
    const T hi = T(x);
    return W(hi, T(x - R(hi)));
  };
  auto value = [](const W& w) { return R(w.hi) + R(w.lo); };
  auto rel = [](R got, R want) { return double(abs(got - want) / abs(want)); };
  std::mt19937_64 gen(17);
  std::uniform_real_distribution<double> unit(-1, 1);
  std::uniform_int_distribution<int> expo(-20, 20);
  // A value with digits beyond two T's, over 40 binades.
  auto draw = [&] { return ldexp(R(unit(gen)) * (1 + R(unit(gen)) * ldexp(R(1), -digits - 7)), expo(gen)); };
  WordErrors e{};
  e.u = u;
  for (int i = 0; i < n; ++i) {
    const R a = draw();
    const R b = i % 4 == 0 ? -a * (1 + R(unit(gen)) * ldexp(R(1), -digits + 13)) : draw();  // a quarter cancel
    const W x = word(a), y = word(b);
    const R xa = value(x), yb = value(y);
    e.add = std::max(e.add, rel(value(x + y), xa + yb) / (u * u));
    e.mul = std::max(e.mul, rel(value(x * y), xa * yb) / (u * u));
    e.quo = std::max(e.quo, rel(value(x / y), xa / yb) / (u * u));
    e.root = std::max(e.root, rel(value(lb::sqrt(lb::abs(x))), sqrt(abs(xa))) / (u * u));
    const W t = word(R(unit(gen)) * 3.2);  // [−π, π] and a little beyond: the angles of exp
    const R ta = value(t);
    e.trig = std::max({e.trig, double(abs(value(lb::sin(t)) - sin(ta))) / u, double(abs(value(lb::cos(t)) - cos(ta))) / u});
  }
  return e;
}

// Double words (double_word.hpp): each operation within its algorithm's bound ([JMP17]: Alg. 6
// 3u² + 13u³, Alg. 12 5u², Alg. 17 15u² + 56u³; √, one Newton correction, has no published bound
// and is held to this test's 4u²), sin and cos within T's own accuracy; double against quad
// precision, float against long double; comparisons order by the value, NaN unordered.
TEST(DoubleWord, OperationsMeetTheirErrorBounds) {
  for (const auto& [name, e] : {std::pair{"double", word_errors<double, Q>(100000)},
                                std::pair{"float", word_errors<float, long double>(100000)}}) {
    std::printf("%s words, relative errors in u^2: + %.2f, * %.2f, / %.2f, sqrt %.2f; sin, cos absolute %.2f u\n",
                name, e.add, e.mul, e.quo, e.root, e.trig);
    EXPECT_LE(e.add, 3 + 13 * e.u) << name;
    EXPECT_LE(e.mul, 5.0) << name;
    EXPECT_LE(e.quo, 15 + 56 * e.u) << name;
    EXPECT_LE(e.root, 4.0) << name;
    EXPECT_LE(e.trig, 2.0) << name;  // T's sin and cos: the double words do not make them more accurate
  }
  using W = lb::DoubleWord<double>;
  const W a(1.0, 1e-20), b(1.0, -1e-20), nan(std::nan(""));
  EXPECT_TRUE(b < a && b <= a && a > b && a >= b && a != b && a <= a && a >= a && !(a < a));
  EXPECT_FALSE(nan < a || nan <= a || nan > a || nan >= a || nan == nan);
  EXPECT_EQ(lb::sqrt(W(std::numeric_limits<double>::infinity())).hi, std::numeric_limits<double>::infinity());
  EXPECT_EQ(double(W(1.0, 0x1p-60)), 1.0);
}

// newton_refined: the same iterations as newton, and a root closer to the one solved in long double
// (64-bit significand): off by what T's sin and cos leave in the double-word residual (2–3e-17
// relative measured), where newton's root is off by double's rounding of the residual (2–6e-16).
TEST(Newton, RefinedRootAgreesWithLongDoubleRoot) {
  using L = long double;
  const State s = bc_initial();
  const lb::HeavyTopSpatial<double> m = bc.model();
  const lb::HeavyTopSpatial<L> ml{bc.top().cast<L>()};
  for (double theta : {0.0, 0.5, 1.0}) {
    auto res = [&](const auto& z) { return lb::slgi_residual<lb::CotangentSO3>(m, s.R, s.pi, 0.01, theta, z); };
    const V6 guess = lb::slgi_guess(m, s.R, s.pi, 0.01);
    const auto plain = lb::newton<6>(res, guess);
    const auto refined = lb::newton_refined<6>(res, guess);
    const auto ld = lb::newton<6>(
        [&](const auto& z) {
          return lb::slgi_residual<lb::CotangentSO3>(ml, lb::CotangentSO3::lift<L>(s.R), lb::cast<L>(s.pi), L(0.01),
                                                    L(theta), z);
        },
        lb::cast<L>(guess));
    ASSERT_TRUE(plain.converged && refined.converged && ld.converged);
    EXPECT_EQ(plain.iterations, refined.iterations);
    L e_plain = 0, e_refined = 0, scale = 0;
    for (int i = 0; i < 6; ++i) {
      e_plain = std::max(e_plain, std::abs(L(plain.z[i]) - ld.z[i]));
      e_refined = std::max(e_refined, std::abs((L(refined.z[i].hi) + L(refined.z[i].lo)) - ld.z[i]));
      scale = std::max(scale, std::abs(ld.z[i]));
    }
    std::printf("BC theta %.1f, first step: root off the long double root by %.1e (newton), %.1e (refined), "
                "relative to |z| = %.2f\n", theta, double(e_plain / scale), double(e_refined / scale), double(scale));
    EXPECT_LE(double(e_refined / scale), 6e-17);
  }
}

// ---------------------------------------------------------------------------------------------
// ℝ¹ with H = ½(p² + q²): f = (∂H/∂p, −∂H/∂q) = (p, −q). SLGI must be the classical maps.

struct Oscillator {
  template <class S> lb::Vec<S, 2> cotangent_f(const lb::Vec<S, 1>& q, const lb::Vec<S, 1>& p) const {
    return lb::Vec<S, 2>{{p[0], -q[0]}};
  }
};

TEST(SLGI, ReducesOnRnToMidpointAndSymplecticEuler) {
  using Gr = lb::CotangentRn<1>;
  const double h = 0.1, q0 = 0.8, p0 = -0.3;
  const Oscillator m;
  const lb::Vec<double, 1> q{{q0}}, p{{p0}};
  auto step = [&](double theta) {
    return lb::slgi_step<Gr>(m, q, p, h, theta, lb::slgi_guess<Gr>(m, q, p, h));
  };
  // θ = ½: (I − hA/2)⁻¹(I + hA/2) with A = [[0, 1], [−1, 0]].
  const double den = 1 + h * h / 4;
  const auto mid = step(0.5);
  ASSERT_EQ(mid.status, lb::Status::ok);
  EXPECT_NEAR(mid.g[0], ((1 - h * h / 4) * q0 + h * p0) / den, 1e-15);
  EXPECT_NEAR(mid.mu[0], ((1 - h * h / 4) * p0 - h * q0) / den, 1e-15);
  // θ = 0: p₁ = p₀ − h q₀, q₁ = q₀ + h p₁.
  const auto e0 = step(0.0);
  EXPECT_NEAR(e0.mu[0], p0 - h * q0, 1e-15);
  EXPECT_NEAR(e0.g[0], q0 + h * (p0 - h * q0), 1e-15);
  // θ = 1: q₁ = q₀ + h p₀, p₁ = p₀ − h q₁.
  const auto e1 = step(1.0);
  EXPECT_NEAR(e1.g[0], q0 + h * p0, 1e-15);
  EXPECT_NEAR(e1.mu[0], p0 - h * (q0 + h * p0), 1e-15);
}

// ---------------------------------------------------------------------------------------------
// The problems and the reference are in cotangent_problems.hpp; SLGI's state is (R, π).

/// Ω = J⁻¹Rᵀπ of an SLGI state.
V3 body_omega(const TopData& d, const State& s) {
  const V3 P = s.R.transpose() * s.pi;
  return lb::vec3(P[0] / d.J[0], P[1] / d.J[1], P[2] / d.J[2]);
}

/// H = ½ Π·J⁻¹Π + m g e₃·Rχ with Π = Rᵀπ.
double energy(const TopData& d, const State& s) {
  const V3 W = body_omega(d, s), P = s.R.transpose() * s.pi;
  const V3 Rc = s.R * lb::vec3(d.chi[0], d.chi[1], d.chi[2]);
  return 0.5 * lb::dot(P, W) + d.m * d.g * Rc[2];
}


/// n steps of SLGI θ from s with warm starts; `each` sees every state.
template <class Gr = lb::CotangentSO3, class Model, class Each>
State run(const Model& m, State s, double h, double theta, long n, Stats& st, Each&& each) {
  V6 z = lb::slgi_guess<Gr>(m, s.R, s.pi, h);
  for (long k = 0; k < n; ++k) {
    const auto r = lb::slgi_step<Gr>(m, s.R, s.pi, h, theta, z);
    if (!st.record(r.iterations, r.status)) return s;
    s = {r.g, r.mu};
    z = r.z;
    each(s);
  }
  return s;
}
template <class Gr = lb::CotangentSO3, class Model>
State run(const Model& m, State s, double h, double theta, long n, Stats& st) {
  return run<Gr>(m, s, h, theta, n, st, [](const State&) {});
}

/// A problem, its initial state and a step.
struct Case {
  const char* name;
  const TopData* d;
  State s0;
  double h;
};
/// The solver's cases of [Notes §2.6]: BC at h = 0.01 (h|ω| = 1.5) and ASYM at h = 0.2.
std::vector<Case> solver_cases() { return {{"BC", &bc, bc_initial(), 0.01}, {"ASYM", &asym, asym_initial(), 0.2}}; }

// ---------------------------------------------------------------------------------------------
// Orders on ASYM, T = 2, against RK4 in quad precision.

TEST(SLGI, OrdersOnAsymmetricTop) {
  const State s0 = asym_initial();
  const Exact ex = body_reference(asym, {0.2, -0.1, 0.3}, {Q(1) / 2, Q(0.5), Q(-0.4) * 3 / 2}, Q(2), 4000);  // Ω₀ = J⁻¹Π₀
  EXPECT_LT(ex.halving, 1e-12) << "the reference is not converged";
  const M3 Rex = ex.R;
  const V3 Wex = ex.W;
  const auto m = asym.model();
  for (double theta : {0.0, 0.5, 1.0}) {
    std::vector<double> err;
    for (int N : {40, 80, 160, 320}) {
      Stats st;
      const State s = run(m, s0, 2.0 / N, theta, N, st);
      ASSERT_TRUE(st.all_ok);
      err.push_back(std::max(max_abs_diff(s.R, Rex),
                             max_abs_diff(body_omega(asym, s), Wex) / std::max(1.0, lb::norm_inf(Wex))));
    }
    const double want = theta == 0.5 ? 2.0 : 1.0;
    for (int i = 0; i + 1 < int(err.size()); ++i) {
      const double p = std::log2(err[i] / err[i + 1]);
      std::printf("theta %.1f  N %d -> %d  error %.3e -> %.3e  order %.3f\n", theta, 40 << i, 80 << i, err[i],
                  err[i + 1], p);
      EXPECT_NEAR(p, want, 0.15) << "theta " << theta;
    }
    if (theta == 0.5) {
      EXPECT_NEAR(err[2], 7.98e-5, 0.05 * 7.98e-5);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Symplecticity in the canonical chart g = exp(q̂), p = dexp_qᵀμ ([Notes §2.5]).

/// One step in canonical coordinates (q, p) ∈ ℝ⁶.
template <class Gr, class Model> std::array<Q, 6> canonical_step(const Model& m, const std::array<Q, 6>& x, double h,
                                                                  double theta) {
  const std::array<Q, 3> q{x[0], x[1], x[2]}, p{x[3], x[4], x[5]};
  const ref::Mat<3> D = ref::dexp_matrix<3>(q);
  ref::Mat<3> Dt;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) Dt(i, j) = D(j, i);
  const auto mu = ref::solve<3>(Dt, p);  // p = dexp_qᵀ μ
  const State s{to_m3(ref::expm(ref::hat(q))), lb::vec3(double(mu[0]), double(mu[1]), double(mu[2]))};
  const auto r = lb::slgi_step<Gr>(m, s.R, s.pi, h, theta, lb::slgi_guess<Gr>(m, s.R, s.pi, h));
  EXPECT_EQ(r.status, lb::Status::ok);
  ref::Mat<3> R1;
  for (int k = 0; k < 9; ++k) R1.a[k] = Q(r.g.m[k]);
  const auto q1 = log_q(R1);
  const ref::Mat<3> D1 = ref::dexp_matrix<3>(q1);
  std::array<Q, 6> y;
  for (int i = 0; i < 3; ++i) {
    y[i] = q1[i];
    y[3 + i] = 0;
    for (int j = 0; j < 3; ++j) y[3 + i] += D1(j, i) * Q(r.mu[j]);  // dexp_{q₁}ᵀ μ₁
  }
  return y;
}

/// max |JᵀΩJ − Ω| of one SLGI step in the canonical chart (cotangent_problems.hpp).
template <class Gr = lb::CotangentSO3, class Model> double symplectic_defect(const Model& m, double h, double theta) {
  return canonical_defect([&](const std::array<Q, 6>& x) { return canonical_step<Gr>(m, x, h, theta); });
}

TEST(SLGI, SymplecticInCanonicalChart) {
  for (const TopData* d : {&asym, &frb})
    for (double theta : {0.0, 0.5, 1.0}) {
      const double e = symplectic_defect(d->model(), 0.2, theta);
      std::printf("%s theta %.1f: symplecticity defect %.2e\n", d == &asym ? "ASYM" : "FRB", theta, e);
      EXPECT_LE(e, 1e-8);
    }
}

/// A test-only mutant: SO(3) with Ad* dropped (Ad*_E = id) in (15) and in (17)'s n̄ term. At θ = 1
/// it is the method itself (the n̄ terms of (15) cancel, and Ad*_{exp(0)} = id in (17)), so it is
/// tested at θ = 0 and ½.
struct CotangentSO3NoCoAd : lb::CotangentSO3 {
  template <class S> static lb::Vec3<S> coAd(const lb::Mat3<S>&, const lb::Vec3<S>& v) { return v; }
};

TEST(SLGI, MutantWithoutCoadjointIsNotSymplectic) {
  for (double theta : {0.0, 0.5}) {
    const double e = symplectic_defect<CotangentSO3NoCoAd>(asym.model(), 0.2, theta);
    std::printf("mutant (Ad* dropped), ASYM theta %.1f: symplecticity defect %.2e\n", theta, e);
    EXPECT_GE(e, 1e-4);
  }
}

// ---------------------------------------------------------------------------------------------
// Momentum, adjointness, the free body.

/// One SLGI step as slgi_step but in plain T: newton instead of newton_refined, and (17) in T. A
/// test-only mutant of the double-word refinement.
template <class Model> lb::SlgiResult<lb::CotangentSO3, double> plain_step(const Model& m, const State& s, double h,
                                                                             double theta, const V6& guess) {
  using G = lb::CotangentSO3;
  const auto o = lb::newton<6>([&](const auto& z) { return lb::slgi_residual<G>(m, s.R, s.pi, h, theta, z); }, guess);
  const V3 xi = o.z.template seg<0, 3>(), n = o.z.template seg<3, 3>();
  return {G::exp_mul(xi, s.R), G::coAd(G::exp((theta - 1) * xi), n) + G::exp_act(xi, s.pi), o.z, o.iterations,
          o.converged ? lb::Status::ok : lb::Status::nonlinear_solve_failed};
}

// The exact map conserves e₃·π; slgi_step refines the root and computes π₁ in double words, so
// e₃·π comes back to the same double every step (docs/symplectic.md §4): 0 measured. The issue asks
// 1e-11; the bound is 1e-13, which plain double (the next test) misses for every θ.
TEST(SLGI, VerticalMomentumOfBrulsCardonaTopIsExact) {
  const State s0 = bc_initial();
  EXPECT_NEAR(s0.pi[2], -70.3124296875, 1e-12);
  for (double theta : {0.0, 0.5, 1.0}) {
    double drift = 0;
    Stats st;
    run(bc.model(), s0, 0.01, theta, 10000, st,
        [&](const State& s) { drift = std::max(drift, std::abs(s.pi[2] - s0.pi[2])); });
    ASSERT_TRUE(st.all_ok);
    std::printf("BC theta %.1f h 0.01, 1e4 steps: max |e3.pi - e3.pi0| = %.2e; Newton iterations mean %.2f max %d\n",
                theta, drift, st.mean(), st.max);
    EXPECT_LE(drift, 1e-13);
    EXPECT_LE(st.max, 8);
  }
}

// The same steps in plain double (plain_step, the mutant of the refinement) drift: at θ = ½ linearly,
// 1.16e-11 here (9.1e-12 with another libm's sin and cos), over 1e-12, ten times the bound of the
// test above; at θ = 0 and 1 they random-walk (1.5e-12 and 2.7e-12 here), printed only.
TEST(SLGI, VerticalMomentumDriftsWithoutDoubleWords) {
  for (double theta : {0.0, 0.5, 1.0}) {
    State s = bc_initial();
    const double pz0 = s.pi[2];
    V6 z = lb::slgi_guess(bc.model(), s.R, s.pi, 0.01);
    double drift = 0;
    for (int k = 0; k < 10000; ++k) {
      const auto r = plain_step(bc.model(), s, 0.01, theta, z);
      ASSERT_EQ(r.status, lb::Status::ok);
      s = {r.g, r.mu};
      z = r.z;
      drift = std::max(drift, std::abs(s.pi[2] - pz0));
    }
    std::printf("BC theta %.1f h 0.01, 1e4 steps in plain double: max |e3.pi - e3.pi0| = %.2e\n", theta, drift);
    if (theta == 0.5) {
      EXPECT_GT(drift, 1e-12);
    }
  }
}

TEST(SLGI, SpatialMomentumOfFreeBodyIsExact) {
  const lb::RigidBodyAttitude<double> m{{lb::vec3(2.0, 1.0, 2.0 / 3.0)}};
  const State s0 = frb_initial();
  for (double theta : {0.0, 0.5, 1.0}) {
    double drift = 0;
    Stats st;
    run(m, s0, 0.1, theta, 10000, st, [&](const State& s) { drift = std::max(drift, max_abs_diff(s.pi, s0.pi)); });
    ASSERT_TRUE(st.all_ok);
    std::printf("FRB theta %.1f h 0.1, 1e4 steps: max |pi - pi0|_inf = %.2e\n", theta, drift);
    EXPECT_LE(drift, 1e-13);
  }
}

TEST(SLGI, ThetaAndOneMinusThetaWithMinusHReturn) {
  for (const Case& c : {Case{"ASYM", &asym, asym_initial(), 0.05}, Case{"BC", &bc, bc_initial(), 0.005}}) {
    const auto m = c.d->model();
    for (double theta : {0.0, 0.5, 1.0}) {
      Stats st;
      const State fwd = run(m, c.s0, c.h, theta, 20, st);
      const State back = run(m, fwd, -c.h, 1.0 - theta, 20, st);
      ASSERT_TRUE(st.all_ok);
      const double e = std::max(max_abs_diff(back.R, c.s0.R), max_abs_diff(back.pi, c.s0.pi) / lb::norm_inf(c.s0.pi));
      std::printf("%s theta %.1f: 20 steps and 20 back with 1 - theta, -h: %.2e relative\n", c.name, theta, e);
      EXPECT_LE(e, 1e-13);
      if (theta == 0.0) {  // undone by itself instead of its adjoint: far off (the test can fail)
        const State wrong = run(m, fwd, -c.h, theta, 20, st);
        EXPECT_GT(max_abs_diff(wrong.R, c.s0.R), 1e-6);
      }
    }
  }
}

TEST(SLGI, FreeBodyEveryThetaGivesTheSameMap) {
  const lb::RigidBodyAttitude<double> m{{lb::vec3(2.0, 1.0, 2.0 / 3.0)}};
  Stats st;
  const State a = run(m, frb_initial(), 0.1, 0.5, 100, st);
  for (double theta : {0.0, 1.0}) {
    const State b = run(m, frb_initial(), 0.1, theta, 100, st);
    const double e = std::max(max_abs_diff(a.R, b.R), max_abs_diff(a.pi, b.pi));
    std::printf("FRB 100 steps h 0.1: theta %.1f vs 0.5: %.2e\n", theta, e);
    EXPECT_LE(e, 1e-13);
  }
  ASSERT_TRUE(st.all_ok);
  // On a top with a potential the maps differ: the comparison can fail.
  const State c = run(asym.model(), asym_initial(), 0.1, 0.0, 100, st);
  const State d = run(asym.model(), asym_initial(), 0.1, 0.5, 100, st);
  EXPECT_GT(max_abs_diff(c.R, d.R), 1e-4);
}

// ---------------------------------------------------------------------------------------------
// The solver.

TEST(SLGI, EveryStepConvergesWithinEightIterations) {
  for (const Case& c : solver_cases())
    for (double theta : {0.0, 0.5, 1.0}) {
      Stats st;
      run(c.d->model(), c.s0, c.h, theta, 1000, st);
      std::printf("%s h %.2f theta %.1f, 1000 steps: Newton iterations mean %.2f max %d\n", c.name, c.h, theta,
                  st.mean(), st.max);
      EXPECT_TRUE(st.all_ok);
      EXPECT_LE(st.max, 8);
    }
}

TEST(SLGI, DualJacobianMatchesCentralDifferences) {
  for (const Case& c : solver_cases())
    for (double theta : {0.0, 0.5, 1.0}) {
      const auto m = c.d->model();
      // At the guess perturbed off the root, so no term vanishes by accident.
      V6 z = lb::slgi_guess<lb::CotangentSO3>(m, c.s0.R, c.s0.pi, c.h);
      for (int i = 0; i < 6; ++i) z[i] *= 1.0 + 0.1 * (i + 1);
      auto res = [&](const auto& x) { return lb::slgi_residual<lb::CotangentSO3>(m, c.s0.R, c.s0.pi, c.h, theta, x); };
      V6 r;
      lb::SquareMat<double, 6> J;
      lb::residual_and_jacobian<6>(res, z, r, J);
      const double e = relative_difference<6>(J, central_jacobian<6>(res, z));
      std::printf("%s theta %.1f: dual Jacobian vs central differences %.1e relative\n", c.name, theta, e);
      EXPECT_LE(e, 1e-7) << "theta " << theta;
      EXPECT_LE(lb::norm_inf(r - res(z)), 1e-15 * std::max(1.0, lb::norm_inf(z)));
    }
}

TEST(SLGI, TooLargeStepFailsWithStatusNeverNaN) {
  const auto m = bc.model();
  State s = bc_initial();
  V6 z = lb::slgi_guess<lb::CotangentSO3>(m, s.R, s.pi, 0.05);
  int failed = 0, ok = 0;
  for (int k = 0; k < 100; ++k) {
    const auto r = lb::slgi_step(m, s.R, s.pi, 0.05, 0.5, z);
    if (r.status == lb::Status::nonlinear_solve_failed) {
      ++failed;
      EXPECT_EQ(max_abs_diff(r.g, s.R), 0.0);  // the start state, unchanged
      EXPECT_EQ(max_abs_diff(r.mu, s.pi), 0.0);
      break;
    }
    ASSERT_EQ(r.status, lb::Status::ok);
    ++ok;
    for (int i = 0; i < 9; ++i) ASSERT_TRUE(std::isfinite(r.g.m[i]));
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(std::isfinite(r.mu[i]));
    EXPECT_LT(lb::norm(r.z.seg<0, 3>()), lb::pi<double>());
    s = {r.g, r.mu};
    z = r.z;
  }
  std::printf("BC h 0.05 (h|omega| = 7.5): %d steps converged, then %s\n", ok,
              failed ? "nonlinear_solve_failed" : "(no failure in 100 steps)");
  EXPECT_EQ(failed + ok, failed ? ok + 1 : 100);
}

TEST(SLGI, ResultIndependentOfInitialGuess) {
  for (const Case& c : solver_cases())
    for (double theta : {0.0, 0.5, 1.0}) {
      const auto m = c.d->model();
      const V6 g1 = lb::slgi_guess<lb::CotangentSO3>(m, c.s0.R, c.s0.pi, c.h);
      V6 g2 = g1;
      for (int i = 0; i < 6; ++i) g2[i] *= 0.7;  // a different start, still in the basin
      const auto a = lb::slgi_step(m, c.s0.R, c.s0.pi, c.h, theta, g1);
      const auto b = lb::slgi_step(m, c.s0.R, c.s0.pi, c.h, theta, g2);
      ASSERT_EQ(a.status, lb::Status::ok);
      ASSERT_EQ(b.status, lb::Status::ok);
      std::printf("%s theta %.1f: two guesses (%d and %d iterations) differ by %.1e in R, %.1e relative in pi\n", c.name,
                  theta, a.iterations, b.iterations, max_abs_diff(a.g, b.g), max_abs_diff(a.mu, b.mu) / lb::norm_inf(a.mu));
      EXPECT_LE(max_abs_diff(a.g, b.g), 1e-13);
      EXPECT_LE(max_abs_diff(a.mu, b.mu), 1e-13 * lb::norm_inf(a.mu));
    }
}

TEST(SLGI, FloatStepConvergesAndMatchesDouble) {
  const auto m = asym.model();
  const lb::HeavyTopSpatial<float> mf = m.cast<float>();
  const State s0 = asym_initial();
  const lb::Mat3<float> Rf = to_float(s0.R);
  const lb::Vec3<float> pf = lb::cast<float>(s0.pi);
  for (double theta : {0.0, 0.5, 1.0}) {
    const auto a = lb::slgi_step(m, s0.R, s0.pi, 0.1, theta, lb::slgi_guess(m, s0.R, s0.pi, 0.1));
    const auto b = lb::slgi_step(mf, Rf, pf, 0.1f, float(theta), lb::slgi_guess(mf, Rf, pf, 0.1f));
    ASSERT_EQ(b.status, lb::Status::ok);
    EXPECT_LE(b.iterations, 12);
    for (int k = 0; k < 9; ++k) EXPECT_NEAR(b.g.m[k], a.g.m[k], 1e-6);
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(b.mu[k], a.mu[k], 1e-6 * lb::norm_inf(a.mu));
  }
}

// ---------------------------------------------------------------------------------------------
// SLGIKK: the same map on (Q, π), p constant, q by the passive update.

// SLGIKK knows its model through the hook alone; a top on T*SO(3) is a CotangentModel, not a block.
static_assert(lb::CotangentBlockModel<lb::HeavyTopQuadratic<double>> && lb::CotangentBlockModel<lb::HeavyTopQuadratic<float>>);
static_assert(!lb::CotangentBlockModel<lb::HeavyTopSpatial<double>> && !lb::CotangentModel<lb::HeavyTopQuadratic<double>>);

TEST(SLGI, KaluzaKleinFormIsTheSameMapPlusPassiveQ) {
  for (const Case& c : {Case{"ASYM", &asym, asym_initial(), 0.05}, Case{"BC", &bc, bc_initial(), 0.01}}) {
    const lb::HeavyTopQuadratic<double> kk{c.d->model().top};
    auto y = kk.from_body(c.s0.R, c.s0.R.transpose() * c.s0.pi);
    y.set_seg(9, c.s0.pi);
    const V3 p = kk.p(y);
    State s = c.s0;
    V6 z = lb::slgi_guess(c.d->model(), s.R, s.pi, c.h), zk = z;
    std::array<Q, 3> q{};  // q₀ = 0 + h Σ (p − Q_θᵀe₃), Q_θ = exp(θξ)Q from the quad exponential
    double dQ = 0, dpi = 0;
    for (int k = 0; k < 200; ++k) {
      const auto a = lb::slgi_step(c.d->model(), s.R, s.pi, c.h, 0.5, z);
      const auto b = lb::slgikk_step(kk, y, c.h, 0.5, zk);
      ASSERT_EQ(a.status, lb::Status::ok);
      ASSERT_EQ(b.status, lb::Status::ok);
      ref::Mat<3> Q0;
      for (int i = 0; i < 9; ++i) Q0.a[i] = Q(y[i]);
      const ref::Mat<3> Qth = ref::expm(ref::hat({Q(b.z[0]) / 2, Q(b.z[1]) / 2, Q(b.z[2]) / 2})) * Q0;
      for (int i = 0; i < 3; ++i) q[i] += Q(c.h) * (Q(p[i]) - Qth(2, i));
      s = {a.g, a.mu};
      y = b.y;
      z = a.z;
      zk = b.z;
      dQ = std::max(dQ, max_abs_diff(s.R, kk.Q(y)));
      dpi = std::max(dpi, max_abs_diff(s.pi, kk.pi(y)) / lb::norm_inf(s.pi));
      for (int i = 0; i < 3; ++i) ASSERT_EQ(kk.p(y)[i], p[i]);  // bit for bit
    }
    double dq = 0;
    for (int i = 0; i < 3; ++i) dq = std::max(dq, std::abs(y[15 + i] - double(q[i])));
    std::printf("%s h %.2f, 200 steps: SLGIKK vs SLGI (Q, pi) %.2e / %.2e relative; q vs its own sum %.2e\n", c.name,
                c.h, dQ, dpi, dq);
    EXPECT_LE(dQ, 1e-12);
    EXPECT_LE(dpi, 1e-12);
    EXPECT_LE(dq, 1e-12 * std::max(1.0, double(ref::norm(q))));
  }
}

// ---------------------------------------------------------------------------------------------
// Bounded energy ([Notes §2.5]): ASYM at h = 0.05 for 10⁵ steps (T = 5000) and BC at h = 0.01 for
// 10⁴ steps (T = 100). The largest relative energy error of the last 10 % of the run is within 1.2×
// that of the first 10 %; RKMK4 on se*(3) at the same h (a contrast: not symplectic) drifts.

/// RKMK4 on the Lie–Poisson form (Π, Γ) of the same top from the same state.
Tenths rkmk4_tenths(const TopData& d, const State& s0, double h, long n) {
  const auto top = d.model().top;
  const V3 P0 = s0.R.transpose() * s0.pi, G0 = s0.R.transpose() * lb::vec3(0.0, 0.0, 1.0);
  lb::Vec6<double> y = lb::concat(P0, G0);
  const double e0 = top.energy(y);
  Tenths t;
  for (long k = 0; k < n; ++k) {
    y = lb::methods::rkmk4::step(top, 0.0, y, h).y;
    t.add(k, n, std::abs(top.energy(y) - e0) / std::abs(e0));
  }
  return t;
}

TEST(SLGI, EnergyErrorBoundedWhereRkmk4Drifts) {
  struct Run {
    const char* name;
    const TopData* d;
    State s0;
    double h;
    long n;
    double bound;  // [Notes]'s θ = ½ level (measured 3.31e-3 ASYM, 5.52e-3 BC)
  };
  for (const Run& c : {Run{"ASYM", &asym, asym_initial(), 0.05, 100000, 4e-3},
                       Run{"BC", &bc, bc_initial(), 0.01, 10000, 6e-3}}) {
    const double e0 = energy(*c.d, c.s0);
    Tenths t;
    long k = 0;
    Stats st;
    run(c.d->model(), c.s0, c.h, 0.5, c.n, st,
        [&](const State& s) { t.add(k++, c.n, std::abs(energy(*c.d, s) - e0) / std::abs(e0)); });
    ASSERT_TRUE(st.all_ok);
    const Tenths r = rkmk4_tenths(*c.d, c.s0, c.h, c.n);
    std::printf("%s h %.2f, %ld steps: SLGI theta 0.5 rel. energy error first 10%% %.3e last 10%% %.3e (ratio %.3f), "
                "Newton mean %.2f max %d; RKMK4 %.3e -> %.3e (ratio %.2f)\n",
                c.name, c.h, c.n, t.first, t.last, t.last / t.first, st.mean(), st.max, r.first, r.last,
                r.last / r.first);
    EXPECT_LE(t.last, 1.2 * t.first) << c.name;
    EXPECT_LT(t.last, c.bound) << c.name;
    EXPECT_LE(st.max, 8) << c.name;
    EXPECT_GE(r.last, 2 * r.first) << c.name << ": the contrast does not drift, so the test cannot tell";
  }
}

}  // namespace
