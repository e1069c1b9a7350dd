// The Lie group integrators: tableau sanity, reduction to classical Runge–Kutta on ℝⁿ, observed
// orders on three non-commuting problems against a far more accurate long-double run, the order
// drop without dexp⁻¹, invariants over 10⁴ steps, adaptive stepping and failure statuses.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "problems.hpp"
#include "rooted_trees.hpp"

namespace {

using namespace lb::methods;
using lbtest::DoublePendulumProblem;
using lbtest::HeavyTopProblem;
using lbtest::RigidBodyProblem;
using lbtest::Tree;
using lbtest::trees_up_to;
using LD = long double;

// ---------------------------------------------------------------------------------------------
// Classical tableaux (RK directly; commutator-free schemes by summing their exponentials along
// the chain of base points, as on ℝⁿ) and the rooted-tree order conditions.

struct Classical {
  int s = 0;
  std::vector<std::vector<LD>> a;
  std::vector<LD> b, c;
};

template <int S> Classical classical(const lb::Tableau<S>& t, bool hat) {
  Classical r;
  r.s = S;
  r.a.assign(S, std::vector<LD>(S, 0));
  for (int i = 0; i < S; ++i) {
    for (int j = 0; j < S; ++j) r.a[i][j] = t.a[i][j].template as<LD>();
    r.b.push_back((hat ? t.bhat[i] : t.b[i]).template as<LD>());
    r.c.push_back(t.c[i].template as<LD>());
  }
  return r;
}

template <int S, int E> std::vector<LD> summed(const lb::CFMap<S, E>& m, const std::vector<std::vector<LD>>& a) {
  std::vector<LD> row = a[m.base];
  for (int e = 0; e < m.nexp; ++e)
    for (int k = 0; k < S; ++k) row[k] += m.alpha[e][k].template as<LD>();
  return row;
}

template <int S, int E> Classical classical(const lb::CFScheme<S, E>& sch, bool hat) {
  Classical r;
  r.s = S;
  r.a.assign(S, std::vector<LD>(S, 0));
  for (int i = 1; i < S; ++i) r.a[i] = summed(sch.stage[i], r.a);
  r.b = summed(hat ? sch.out_hat : sch.out, r.a);
  for (int i = 0; i < S; ++i) r.c.push_back(sch.c[i].template as<LD>());
  return r;
}

/// Max |Φ(t) − 1/γ(t)| over the trees of order p exactly.
LD order_defect(const Classical& m, const std::vector<Tree>& trees, int p) {
  LD worst = 0;
  for (LD r : lbtest::order_residuals(m.a, m.b, trees, p)) worst = std::max(worst, std::abs(r));
  return worst;
}

/// `tol`: 1e-17 for exact rational tableaux; published decimal coefficients are only as exact as
/// their digits.
void expect_tableau_sane(const Classical& m, int order, const char* what, double tol = 1e-17) {
  const auto trees = trees_up_to(6);
  LD sb = 0;
  for (LD x : m.b) sb += x;
  EXPECT_NEAR(double(sb), 1.0, tol) << what << ": Σb";
  for (int i = 0; i < m.s; ++i) {
    LD si = 0;
    for (int j = 0; j < m.s; ++j) {
      si += m.a[i][j];
      if (j >= i) {
        EXPECT_EQ(double(m.a[i][j]), 0.0) << what << ": explicit";
      }
    }
    EXPECT_NEAR(double(si), double(m.c[i]), tol) << what << ": c" << i << " = Σⱼ a" << i << "ⱼ";
  }
  for (int p = 1; p <= order; ++p) EXPECT_LE(double(order_defect(m, trees, p)), tol) << what << ": order " << p;
  EXPECT_GT(double(order_defect(m, trees, order + 1)), 1e-6) << what << ": order is exactly " << order;
}

TEST(Tableau, TreeCountsAreRight) {
  const auto t = trees_up_to(6);
  int count[7] = {};
  for (const auto& x : t) ++count[x.order];
  EXPECT_EQ(count[1], 1); EXPECT_EQ(count[2], 1); EXPECT_EQ(count[3], 2);
  EXPECT_EQ(count[4], 4); EXPECT_EQ(count[5], 9); EXPECT_EQ(count[6], 20);
}

TEST(Tableau, EveryTableauSatisfiesItsOrderConditions) {
  expect_tableau_sane(classical(lb::tableaux::euler, false), 1, "euler");
  expect_tableau_sane(classical(lb::tableaux::heun, false), 2, "heun");
  expect_tableau_sane(classical(lb::tableaux::kutta3, false), 3, "kutta3");
  expect_tableau_sane(classical(lb::tableaux::ssp3, false), 3, "ssp3");
  expect_tableau_sane(classical(lb::tableaux::rk4, false), 4, "rk4");
  expect_tableau_sane(classical(lb::tableaux::bs32, false), 3, "bs32");
  expect_tableau_sane(classical(lb::tableaux::bs32, true), 2, "bs32 b̂");
  expect_tableau_sane(classical(lb::tableaux::dopri5, false), 5, "dopri5");
  expect_tableau_sane(classical(lb::tableaux::dopri5, true), 4, "dopri5 b̂");
  expect_tableau_sane(classical(lb::schemes::cf32a, false), 3, "cf32a");
  expect_tableau_sane(classical(lb::schemes::cf32a, true), 2, "cf32a ŷ");
  expect_tableau_sane(classical(lb::schemes::cf32b, false), 3, "cf32b");
  expect_tableau_sane(classical(lb::schemes::cf32b, true), 2, "cf32b ŷ");
  expect_tableau_sane(classical(lb::schemes::cf43, false), 4, "cf43");
  expect_tableau_sane(classical(lb::schemes::cf43, true), 3, "cf43 ŷ");
  expect_tableau_sane(classical(lb::schemes::cg3, false), 3, "cg3");
  expect_tableau_sane(classical(lb::schemes::cg4a, false), 4, "cg4a", 1e-15);
}

// ---------------------------------------------------------------------------------------------
// On ℝⁿ every method is its classical Runge–Kutta method.

/// A nonlinear, time-dependent field on ℝ³ (forced Lorenz), through the Euclidean space.
struct ForcedLorenz {
  using space = lb::Euclidean<double, 3>;
  lb::Vec3<double> f(double t, const lb::Vec3<double>& y) const {
    return lb::vec3(10 * (y[1] - y[0]) + std::sin(t), y[0] * (28 - y[2]) - y[1], y[0] * y[1] - 8.0 / 3 * y[2]);
  }
};

lb::Vec3<double> classical_step(const Classical& m, double t, const lb::Vec3<double>& y, double h) {
  std::vector<lb::Vec3<double>> k(m.s);
  ForcedLorenz F;
  for (int i = 0; i < m.s; ++i) {
    lb::Vec3<double> yi = y;
    for (int j = 0; j < i; ++j) yi += (h * double(m.a[i][j])) * k[j];
    k[i] = F.f(t + double(m.c[i]) * h, yi);
  }
  lb::Vec3<double> r = y;
  for (int i = 0; i < m.s; ++i) r += (h * double(m.b[i])) * k[i];
  return r;
}

template <class Method> void expect_classical_on_rn(const Classical& m, const char* what) {
  const ForcedLorenz F;
  lb::Vec3<double> y = lb::vec3(1.0, 2.0, 20.0);
  for (int n = 0; n < 20; ++n) {
    const double t = 0.3 + 0.01 * n;
    const auto lie = Method::step(F, t, y, 0.01).y;
    const auto rk = classical_step(m, t, y, 0.01);
    EXPECT_LE(lb::norm_inf(lie - rk), 1e-14 * lb::norm_inf(rk)) << what << " step " << n;
    y = rk;
  }
}

TEST(Euclidean, EveryMethodIsItsClassicalRungeKutta) {
  expect_classical_on_rn<lie_euler>(classical(lb::tableaux::euler, false), "lie_euler");
  expect_classical_on_rn<lie_euler_heun>(classical(lb::tableaux::heun, false), "lie_euler_heun");
  expect_classical_on_rn<rkmk3_kutta>(classical(lb::tableaux::kutta3, false), "rkmk3_kutta");
  expect_classical_on_rn<rkmk3_ssp>(classical(lb::tableaux::ssp3, false), "rkmk3_ssp");
  expect_classical_on_rn<rkmk4>(classical(lb::tableaux::rk4, false), "rkmk4");
  expect_classical_on_rn<rkmk4_commutators>(classical(lb::tableaux::rk4, false), "rkmk4_commutators");
  expect_classical_on_rn<rkmk5>(classical(lb::tableaux::dopri5, false), "rkmk5");
  expect_classical_on_rn<rkmk54_hat>(classical(lb::tableaux::dopri5, true), "rkmk54_hat");
  expect_classical_on_rn<rkmk32>(classical(lb::tableaux::bs32, false), "rkmk32");
  expect_classical_on_rn<rkmk32_hat>(classical(lb::tableaux::bs32, true), "rkmk32_hat");
  expect_classical_on_rn<cf3>(classical(lb::schemes::cf32a, false), "cf3");
  expect_classical_on_rn<cf32a_hat>(classical(lb::schemes::cf32a, true), "cf32a_hat");
  expect_classical_on_rn<cf32b>(classical(lb::schemes::cf32b, false), "cf32b");
  expect_classical_on_rn<cf32b_hat>(classical(lb::schemes::cf32b, true), "cf32b_hat");
  expect_classical_on_rn<cf4>(classical(lb::schemes::cf43, false), "cf4");
  expect_classical_on_rn<cf43_hat>(classical(lb::schemes::cf43, true), "cf43_hat");
  expect_classical_on_rn<cg3>(classical(lb::schemes::cg3, false), "cg3");
  expect_classical_on_rn<cg4a>(classical(lb::schemes::cg4a, false), "cg4a");
}

// ---------------------------------------------------------------------------------------------
// Observed orders.

/// Reference solution: fixed-step RKMK5 in long double with 16384 steps; its own error (checked
/// against 8192 steps) must be far below the errors it measures.
template <class P> auto reference(LD* self_err) {
  const auto m = P::template model<LD>();
  const auto y0 = P::template y0<LD>();
  const auto a = lb::integrate_fixed<rkmk5>(m, LD(0), LD(P::t_end), y0, LD(P::t_end) / 8192, 1 << 20);
  const auto b = lb::integrate_fixed<rkmk5>(m, LD(0), LD(P::t_end), y0, LD(P::t_end) / 16384, 1 << 20);
  *self_err = lb::norm_inf(a.y - b.y);
  return b.y;
}

/// Least-squares slope of log(error) against log(h) over N0, 2N0, 4N0, 8N0 steps. The method runs
/// in long double (the same templated step code as in double) so that round-off never cuts the
/// asymptotic range short.
template <class Method, class P> double observed_order(int N0, double* finest_err) {
  LD ref_err = 0;
  const auto ref = reference<P>(&ref_err);
  const auto m = P::template model<LD>();
  const auto y0 = P::template y0<LD>();
  std::vector<double> lx, ly;
  for (int N = N0; N <= 8 * N0; N *= 2) {
    const auto o = lb::integrate_fixed<Method>(m, LD(0), LD(P::t_end), y0, LD(P::t_end) / N, 1 << 20);
    EXPECT_EQ(o.status, lb::Status::ok);
    const double e = double(lb::norm_inf(o.y - ref));
    EXPECT_GT(e, 100 * double(ref_err)) << "reference not accurate enough";  // shifts the slope by < 0.015
    lx.push_back(std::log(P::t_end / N));
    ly.push_back(std::log(e));
    *finest_err = e;
  }
  const double n = double(lx.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < lx.size(); ++i) {
    sx += lx[i]; sy += ly[i]; sxx += lx[i] * lx[i]; sxy += lx[i] * ly[i];
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

/// Coarsest step count per order and problem: asymptotic at N0 (local orders measured from 25 to
/// 6400 steps), above round-off at 8·N0. The falling double pendulum is asymptotic for order 4
/// only from h = 1/400, and the order-2 member of Bogacki–Shampine only from h = 1/800.
template <class P> int base_steps(int p) {
  const int rb[] = {0, 400, 100, 50, 25, 10};
  const int ht[] = {0, 400, 100, 50, 25, 32};
  const int dp[] = {0, 400, 800, 50, 400, 80};
  if constexpr (std::is_same_v<P, RigidBodyProblem>) return rb[p];
  else if constexpr (std::is_same_v<P, HeavyTopProblem>) return ht[p];
  else return dp[p];
}

template <class Method, class P> void expect_order(int p, const char* name) {
  double finest = 0;
  const double q = observed_order<Method, P>(base_steps<P>(p), &finest);
  EXPECT_NEAR(q, p, 0.15) << name << " on " << P::name;
  std::printf("  %-22s %-38s order %.3f (theory %d), finest error %.1e\n", name, P::name, q, p, finest);
}

template <class Method> void expect_order_all(int p, const char* name) {
  expect_order<Method, RigidBodyProblem>(p, name);
  expect_order<Method, HeavyTopProblem>(p, name);
  expect_order<Method, DoublePendulumProblem>(p, name);
}

// Every method of the list (LB_METHODS) reaches the order it declares, measured on the three
// non-commuting problems: a method added to the list is measured without another line here.
TEST(Order, EveryListedMethodReachesItsDeclaredOrder) {
#define LB_METHOD_ORDER(m, w, ...) expect_order_all<m>(m::order, #m);
  LB_METHODS(LB_METHOD_ORDER)
#undef LB_METHOD_ORDER
  EXPECT_EQ(rkmk5::order, 5);  // the declarations themselves, against the sources' orders
  EXPECT_EQ(cf4::order, 4);
  EXPECT_EQ(cg4a::order, 4);
  EXPECT_EQ(lie_euler::order, 1);
}

TEST(Order, VariantsAndTheLowerMembersOfEveryEmbeddedPair) {
  expect_order_all<rkmk4_truncated<2>>(4, "rkmk4, dexpinv 2 comm.");
  expect_order_all<rkmk54_hat>(4, "rkmk54 embedded");
  expect_order_all<rkmk32_hat>(2, "rkmk32 embedded");
  expect_order_all<cf32a_hat>(2, "cf32a embedded");
  expect_order_all<cf32b_hat>(2, "cf32b embedded");
  expect_order_all<cf43_hat>(3, "cf43 embedded");
}

// Without dexp⁻¹ RKMK4 is only a second-order method: the order tests can fail.
TEST(Order, RKMK4WithoutDexpinvDropsToOrderTwo) {
  expect_order_all<lb::RKMK<lb::tableaux::rk4, lb::DexpinvIdentity>>(2, "rkmk4, dexpinv = id");
}

}  // namespace
