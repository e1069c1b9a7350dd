// Stepping: invariants over 10⁴ steps for every method, fixed steps landing on t_end, adaptive
// runs (error against tolerance, rejections, different step counts per member, exact landing)
// and every failure status.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "problems.hpp"

namespace {

using namespace lb::methods;
using lbtest::DoublePendulumProblem;
using lbtest::HeavyTopProblem;
using lbtest::RigidBodyProblem;

template <class M> class EveryMethod : public ::testing::Test {};
using Methods = ::testing::Types<lie_euler, lie_euler_heun, rkmk3_kutta, rkmk3_ssp, rkmk4, rkmk4_commutators, rkmk5,
                                 rkmk4_truncated<2>, cf3, cf4, cg3, cg4a, rkmk54, rkmk32, cf32a, cf32b, cf43>;
TYPED_TEST_SUITE(EveryMethod, Methods);

TYPED_TEST(EveryMethod, InvariantsHoldToRoundOffOverTenThousandSteps) {
  using M = TypeParam;
  {
    const auto m = RigidBodyProblem::model<double>();
    const auto y0 = RigidBodyProblem::y0<double>();
    const auto o = lb::integrate_fixed<M>(m, 0.0, 100.0, y0, 0.01, 20000);
    ASSERT_EQ(o.steps, 10000);
    EXPECT_LE(std::abs(m.casimir(o.y) - m.casimir(y0)), 1e-13) << "|mu|";
  }
  {
    const auto m = HeavyTopProblem::model<double>();
    const auto y0 = HeavyTopProblem::y0<double>();
    const auto o = lb::integrate_fixed<M>(m, 0.0, 10.0, y0, 1e-3, 20000);
    ASSERT_EQ(o.steps, 10000);
    const auto P = o.y.template seg<0, 3>(), G = o.y.template seg<3, 3>();
    EXPECT_LE(std::abs(m.gamma_norm(o.y) - 1.0), 1e-13) << "|Gamma|";
    EXPECT_LE(std::abs(m.vertical_momentum(o.y) - m.vertical_momentum(y0)), 1e-13 * lb::norm(P) * lb::norm(G)) << "Pi.Gamma";
  }
  {
    const auto m = DoublePendulumProblem::model<double>();
    const auto y0 = DoublePendulumProblem::y0<double>();
    const auto o = lb::integrate_fixed<M>(m, 0.0, 10.0, y0, 1e-3, 20000);
    ASSERT_EQ(o.steps, 10000);
    for (int i = 0; i < 2; ++i) {
      const auto q = m.q(o.y, i), w = m.w(o.y, i);
      EXPECT_LE(std::abs(lb::norm(q) - 1.0), 1e-13) << "|q" << i << "|";
      EXPECT_LE(std::abs(lb::dot(q, w)), 1e-13 * lb::norm(w)) << "q" << i << ".w" << i;
    }
  }
}

TYPED_TEST(EveryMethod, RunsInFloat) {
  const lb::FreeRigidBody<float> m{lb::vec3(2.0f, 1.0f, 2.0f / 3.0f)};
  const lb::Vec3<float> y0 = lb::vec3(0.3f, 0.8f, 0.5f);
  const auto o = lb::integrate_fixed<TypeParam>(m, 0.0f, 2.0f, y0, 0.01f, 1000);
  const auto od = lb::integrate_fixed<TypeParam>(RigidBodyProblem::model<double>(), 0.0, 2.0,
                                                  RigidBodyProblem::y0<double>(), 0.01, 1000);
  EXPECT_EQ(o.status, lb::Status::ok);
  // Round-off walk of up to five exponentials a step over 200 steps: √200·5·ε_f ≈ 4e-6.
  EXPECT_LE(std::abs(m.casimir(o.y) - m.casimir(y0)), 5e-6f);
  EXPECT_LE(lb::norm(lb::cast<double>(o.y) - od.y), 1e-5);  // float agrees with double to float round-off
}

TEST(FixedStep, LastStepIsShortenedToLandExactly) {
  const auto m = HeavyTopProblem::model<double>();
  const auto y0 = HeavyTopProblem::y0<double>();
  const double h = 0.03, t1 = 0.7;  // 23 full steps and one of 0.01
  const auto o = lb::integrate_fixed<rkmk4>(m, 0.0, t1, y0, h, 1000);
  EXPECT_EQ(o.status, lb::Status::ok);
  EXPECT_EQ(o.t, t1);
  EXPECT_EQ(o.steps, 24);
  auto y = y0;
  for (int n = 0; n < 23; ++n) y = rkmk4::step(m, n * h, y, h).y;
  y = rkmk4::step(m, 23 * h, y, t1 - 23 * h).y;
  for (int i = 0; i < 6; ++i) EXPECT_EQ(o.y[i], y[i]);
}

// ---------------------------------------------------------------------------------------------
// Adaptive steps.

using LD = long double;

template <class P> auto reference_at(double t1) {
  const auto m = P::template model<LD>();
  const auto o = lb::integrate_fixed<rkmk5>(m, LD(0), LD(t1), P::template y0<LD>(), LD(t1) / 8192, 1 << 20);
  return lb::cast<double>(o.y);
}

template <class M> class EveryPair : public ::testing::Test {};
using Pairs = ::testing::Types<rkmk54, rkmk32, cf32a, cf32b, cf43>;
TYPED_TEST_SUITE(EveryPair, Pairs);

TYPED_TEST(EveryPair, GlobalErrorFallsWithTheToleranceAndLandsOnTEnd) {
  using M = TypeParam;
  const auto m = HeavyTopProblem::model<double>();
  const auto y0 = HeavyTopProblem::y0<double>();
  const double t1 = 1.0;
  const auto ref = reference_at<HeavyTopProblem>(t1);
  double prev_err = 1, prev_steps = 0;
  for (double tol : {1e-4, 1e-6, 1e-8, 1e-10}) {
    lb::StepControl<double> opt;
    opt.atol = opt.rtol = tol;
    const auto o = lb::integrate_adaptive<M>(m, 0.0, t1, y0, opt);
    ASSERT_EQ(o.status, lb::Status::ok);
    EXPECT_EQ(o.t, t1);  // bitwise
    const double err = lb::norm_inf(o.y - ref);
    EXPECT_LT(err, 200 * tol) << "tol " << tol;             // the error follows the tolerance...
    EXPECT_LT(err, prev_err / 10) << "tol " << tol;         // ...and falls as it falls
    EXPECT_GT(double(o.steps), prev_steps) << "tol " << tol;  // by taking more steps
    std::printf("  tol %.0e: %4ld steps, %3ld rejected, error %.1e\n", tol, o.steps, o.rejected, err);
    prev_err = err;
    prev_steps = double(o.steps);
  }
}

/// Counts right-hand-side evaluations (host only) to check the step bookkeeping.
struct CountingTop {
  using space = lb::HeavyTop<double>::space;
  lb::HeavyTop<double> top;
  long* calls;
  lb::Vec6<double> f(double t, const lb::Vec6<double>& y) const { ++*calls; return top.f(t, y); }
};

TYPED_TEST(EveryPair, RejectedStepsAreCountedAndRetriedInOneIteration) {
  using M = TypeParam;
  long calls = 0;
  const CountingTop m{HeavyTopProblem::model<double>(), &calls};
  lb::StepControl<double> opt;
  opt.atol = opt.rtol = 1e-8;
  opt.h = 0.5;  // far too large: the first attempts are rejected
  const auto o = lb::integrate_adaptive<M>(m, 0.0, 1.0, HeavyTopProblem::y0<double>(), opt);
  ASSERT_EQ(o.status, lb::Status::ok);
  EXPECT_GE(o.rejected, 1);
  EXPECT_EQ(calls, long(M::stages) * (o.steps + o.rejected));  // one attempt per loop iteration
}

TEST(Adaptive, MembersWithDifferentDynamicsTakeDifferentNumbersOfSteps) {
  const auto m = HeavyTopProblem::model<double>();
  lb::StepControl<double> opt;
  opt.atol = opt.rtol = 1e-8;
  long previous = 0;
  for (double spin : {0.5, 5.0, 50.0}) {  // faster tops need more steps
    auto y0 = HeavyTopProblem::y0<double>();
    for (int i = 0; i < 3; ++i) y0[i] *= spin;
    const auto o = lb::integrate_adaptive<rkmk54>(m, 0.0, 1.0, y0, opt);
    ASSERT_EQ(o.status, lb::Status::ok);
    EXPECT_GT(o.steps, previous) << "spin " << spin;
    previous = o.steps;
  }
}

/// The integral controller with every proposal halved, counting its verdicts (host only).
struct HalvingControl {
  static inline long verdicts = 0, accepted = 0;
  template <int order_hat, class T, class P> static lb::Verdict<T> judge(const lb::StepControl<T>& c, const P& err, const P& y0,
                                                                         const P& y1, const bool& good, const T& hh, const T& proposed,
                                                                         const bool& shortened) {
    auto v = lb::IntegralControl::judge<order_hat>(c, err, y0, y1, good, hh, proposed, shortened);
    ++verdicts;
    accepted += v.accepted;
    v.h /= 2;
    return v;
  }
};
static_assert(lb::StepController<HalvingControl, double, lb::Vec6<double>>);
static_assert(!lb::StepController<CountingTop, double, lb::Vec6<double>>);

TEST(Adaptive, TheControllerIsAPolicyThatJudgesEveryAttempt) {
  const auto m = HeavyTopProblem::model<double>();
  lb::StepControl<double> opt;
  opt.atol = opt.rtol = 1e-8;
  auto run = [&]<class Controller>() {
    auto s = lb::start(HeavyTopProblem::y0<double>(), 0.0, opt.h);
    lb::advance<rkmk54, true, Controller>(m, s, {.t0 = 0.0, .t1 = 1.0}, opt);
    return s;
  };
  const auto plain = run.operator()<lb::IntegralControl>();
  const auto halved = run.operator()<HalvingControl>();
  ASSERT_EQ(plain.status, lb::Status::ok);
  ASSERT_EQ(halved.status, lb::Status::ok);
  EXPECT_EQ(HalvingControl::verdicts, halved.steps + halved.rejected);  // one verdict per attempt
  EXPECT_EQ(HalvingControl::accepted, halved.steps);
  // Halved proposals settle where θe^{−1/5}/2 = 1: steps about half as long, about twice as many.
  EXPECT_GT(double(halved.steps), 1.6 * double(plain.steps));
  EXPECT_LT(double(halved.steps), 2.6 * double(plain.steps));
}

// ---------------------------------------------------------------------------------------------
// Failure statuses end a trajectory instead of looping or returning garbage.

TEST(Status, StepUnderflowStepCapAndNonFinite) {
  const auto m = HeavyTopProblem::model<double>();
  const auto y0 = HeavyTopProblem::y0<double>();
  lb::StepControl<double> opt;
  opt.atol = opt.rtol = 1e-14;
  opt.h_min = 1e-2;  // the tolerance needs much smaller steps
  EXPECT_EQ(lb::integrate_adaptive<rkmk54>(m, 0.0, 1.0, y0, opt).status, lb::Status::step_underflow);

  lb::StepControl<double> cap;
  cap.max_attempts = 5;
  const auto c = lb::integrate_adaptive<rkmk54>(m, 0.0, 1.0, y0, cap);
  EXPECT_EQ(c.status, lb::Status::step_cap);
  EXPECT_EQ(c.steps + c.rejected, 5);
  EXPECT_EQ(lb::integrate_fixed<rkmk4>(m, 0.0, 1.0, y0, 1e-3, 10).status, lb::Status::step_cap);

  auto bad = y0;
  bad[2] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(lb::integrate_adaptive<rkmk54>(m, 0.0, 1.0, bad, lb::StepControl<double>{}).status, lb::Status::nonfinite);
  EXPECT_EQ(lb::integrate_fixed<cf4>(m, 0.0, 1.0, bad, 1e-2, 1000).status, lb::Status::nonfinite);
}

/// A field that overflows after t = 0.5: the trajectory ends non-finite, at the last good state.
struct BlowUp {
  using space = lb::CoadjointSO3<double>;
  lb::Vec3<double> f(double t, const lb::Vec3<double>& y) const {
    return t > 0.5 ? lb::vec3(1e308, 1e308, 1e308) * 10.0 : lb::vec3(y[1], -y[0], 0.0);
  }
};

TEST(Status, OverflowMidRunEndsNonFiniteAtTheLastGoodState) {
  const auto o = lb::integrate_fixed<rkmk4>(BlowUp{}, 0.0, 1.0, lb::vec3(1.0, 0.0, 0.0), 0.1, 100);
  EXPECT_EQ(o.status, lb::Status::nonfinite);
  EXPECT_TRUE(lb::all_finite(o.y));
  EXPECT_LE(o.t, 0.5 + 1e-12);
  lb::StepControl<double> opt;
  const auto a = lb::integrate_adaptive<rkmk54>(BlowUp{}, 0.0, 1.0, lb::vec3(1.0, 0.0, 0.0), opt);
  EXPECT_EQ(a.status, lb::Status::nonfinite);
  EXPECT_TRUE(lb::all_finite(a.y));
}

TEST(Status, SingularDexpinvIsReportedNotReturnedAsGarbage) {
  const auto m = RigidBodyProblem::model<double>();
  const auto y0 = 10.0 * RigidBodyProblem::y0<double>();  // |𝕀⁻¹μ| ≈ 12: stage angles > 2π at h = 1
  const auto o = lb::integrate_fixed<rkmk4>(m, 0.0, 10.0, y0, 1.0, 100);
  EXPECT_EQ(o.status, lb::Status::dexpinv_singular);
  EXPECT_EQ(o.steps, 0);
  // The adaptive driver instead rejects such steps and shrinks h.
  lb::StepControl<double> opt;
  opt.h = 1.0;
  const auto a = lb::integrate_adaptive<rkmk54>(m, 0.0, 10.0, y0, opt);
  EXPECT_EQ(a.status, lb::Status::ok);
  EXPECT_GE(a.rejected, 1);
}

}  // namespace
