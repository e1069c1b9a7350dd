// HEDOP5 as a method of the engine (issue 18; docs/constrained.md §5): a constrained system as a
// model (lb::ConstrainedSystem, state (q, v, λ)), stepped only by the half-explicit methods; each
// ensemble member is the single-trajectory driver's run bitwise, whatever the threads and chunks;
// a member that breaks down ends alone with a status; samples carry the constraint residuals;
// sections locate crossings on the constraint manifold; adaptive steps follow the tolerance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include <liebatch/constrained_system.hpp>
#include <liebatch/ensemble/cpu.hpp>
#include <liebatch/methods/half_explicit.hpp>
#include <liebatch/methods/methods.hpp>
#include <liebatch/methods/symplectic.hpp>
#include <liebatch/models/planar_pendulum.hpp>
#include <liebatch/trajectory/integrate.hpp>
#include <liebatch/trajectory/integrate_half_explicit.hpp>

#include "constrained_problems.hpp"

namespace {

using namespace constrained_problems;
using Sys = lb::ConstrainedSystem<Top>;
using PendSys = lb::ConstrainedSystem<lb::PlanarPendulum<double>>;
using Hedop5 = lb::methods::hedop5;

static_assert(lb::Model<Sys> && Sys::space::dim == 21 && lb::observable_count<Sys>() == 4);
static_assert(lb::MethodFor<Hedop5, Sys> && lb::MethodFor<Hedop5, PendSys>);
static_assert(lb::MethodFor<Hedop5, lb::ConstrainedSystem<lb::ConstrainedHeavyTop<float>>>);
// An explicit or symplectic method would step (q, v) with λ frozen: not a method for these models.
static_assert(!lb::MethodFor<lb::methods::rkmk4, Sys> && !lb::MethodFor<lb::methods::rkmk54, PendSys>);
static_assert(!lb::MethodFor<lb::methods::slgi_half, Sys> && !lb::MethodFor<lb::methods::hp_sv_exp, Sys>);
static_assert(!lb::MethodFor<Hedop5, lb::HeavyTop<double>>, "HEDOP5 steps constrained systems only");
static_assert(lb::method_failure<Hedop5>() == lb::Status::constraint_solve_failed &&
              lb::method_failure<lb::methods::slgi_half>() == lb::Status::nonlinear_solve_failed);

const Sys kSys{Top::bruls_cardona()};

/// Brüls–Cardona tops from R = I, member 0 [Notes]'s BC and member i > 0 with Ω₀ scaled
/// componentwise by 1 + spread·sin(7i + k), the velocity on B v = 0 and λ₀ completed by the library
/// (Sys::initial).
lb::Ensemble<Sys> tops(std::size_t n, double h, double t1, double spread = 0.1) {
  lb::Ensemble<Sys> e;
  e.size = n;
  e.model.v = {kSys};
  e.t1.v = {t1};
  lb::StepControl<double> c;
  c.h = h;
  e.control.v = {c};
  e.y0.resize(std::size_t(Sys::space::dim) * n);
  for (std::size_t i = 0; i < n; ++i) {
    lb::Vec3<double> w;
    for (int k = 0; k < 3; ++k) w[k] = kBC.omega0[k] * (1 + (i > 0 ? spread : 0.0) * std::sin(double(7 * i + std::size_t(k))));
    const auto y = kSys.initial(kSys.system.configuration(lb::Mat3<double>::identity()), kSys.system.velocity(w));
    for (int d = 0; d < Sys::space::dim; ++d) e.y0[std::size_t(d) * n + i] = y[d];
  }
  return e;
}

Sys::point member(const std::vector<double>& y, std::size_t n, std::size_t i) {
  Sys::point p;
  for (int d = 0; d < Sys::space::dim; ++d) p[d] = y[std::size_t(d) * n + i];
  return p;
}

TEST(Hedop5Ensemble, InitialMultiplierIsTheConsistentOne) {
  const auto e = tops(1, 0.01, 1.0);
  const auto s = Sys::unpack(e.state(0));
  // λ₀ of [Notes]'s BC (docs/constrained.md §4), the same physical top.
  const double notes[3] = {0, 319.525988166, 317.2624615385};
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(s.lambda[k], notes[k], 1e-10 * 640) << k;
  // A configuration where B M⁻¹ Bᵀ cannot be solved gives a NaN multiplier, so the member starts
  // as Status::nonfinite rather than with a made-up λ.
  lb::ConstrainedSystem<lb::PlanarPendulum<double>> pend{{9.81, 1.0}};
  const auto bad = pend.initial({lb::Vec<double, 2>::zero()}, lb::Vec<double, 2>::zero());
  EXPECT_TRUE(std::isnan(bad[4]));
  EXPECT_EQ(lb::start(bad, 0.0, 0.1).status, lb::Status::nonfinite);
}

// Fixed steps: every member equals the single-trajectory driver integrate_half_explicit on the
// same (q, v, λ), bitwise, with 1 or 2 threads and in 1 or 3 chunks; the samples' observables are
// the constraint residuals at round-off and the energy.
TEST(Hedop5Ensemble, EveryMemberIsTheSingleTrajectoryDriverBitwise) {
  const double h = 1.0 / 1024;
  const int steps = 256;
  auto e = tops(21, h, h * steps);
  e.samples = 5;
  lb::RunOptions o;
  o.threads = 2;
  o.samples_per_chunk = 2;
  const auto out = lb::run_cpu<Hedop5>(e, o);
  EXPECT_NE(out.device.find("one member per thread"), std::string::npos) << out.device;
  EXPECT_TRUE(out.iterations.empty()) << "no Newton iterations: the stages solve linear systems";
  o.threads = 1;
  o.samples_per_chunk = 64;
  const auto one = lb::run_cpu<Hedop5>(e, o);
  double max_phi = 0, max_bv = 0, max_de = 0;
  for (std::size_t i = 0; i < e.size; ++i) {
    ASSERT_EQ(out.status[i], std::uint8_t(lb::Status::ok)) << i;
    EXPECT_EQ(out.steps[i], steps);
    const auto d = lb::integrate_half_explicit<lb::tableaux::hedop5>(kSys.system, 0.0, h * steps, Sys::unpack(e.state(i)), steps);
    ASSERT_EQ(d.status, lb::Status::ok);
    const auto want = Sys::pack(d.y), got = member(out.y, e.size, i), got1 = member(one.y, e.size, i);
    for (int k = 0; k < Sys::space::dim; ++k) {
      ASSERT_EQ(got[k], want[k]) << "member " << i << ", component " << k;
      ASSERT_EQ(got1[k], want[k]) << "member " << i << ", component " << k << " (1 thread)";
    }
    const double e0 = out.sample_obs[i];
    for (int s = 0; s < e.samples; ++s) {
      auto obs = [&](int o_) { return out.sample_obs[(std::size_t(s) * 4 + std::size_t(o_)) * e.size + i]; };
      max_de = std::max(max_de, std::abs(obs(0) - e0) / std::abs(e0));
      max_phi = std::max(max_phi, obs(1));
      max_bv = std::max(max_bv, obs(2));
    }
  }
  std::printf("[ INFO ] 21 BC tops, h = 1/1024 to t = 0.25: max |Phi| %.1e, max |Bv| %.1e, max relative energy change %.1e\n",
              max_phi, max_bv, max_de);
  EXPECT_LE(max_phi, 1e-14);
  EXPECT_LE(max_bv, 1e-14);
  EXPECT_LE(max_de, 1e-7);
}

// [Notes]'s stability limit through the engine: members at h = 0.01 (BC itself, member 0, and a
// faster one) break down before t = 1 and end with a failure status and their last good state (the
// driver's, bitwise); a member with a NaN velocity ends at once as nonfinite; every other member is
// as if alone, bitwise. And an ensemble of tops within 2 % of BC at h = 0.01: every member fails.
TEST(Hedop5Ensemble, BrokenMembersEndAloneWithAStatus) {
  const double h = 1.0 / 128;
  auto e = tops(12, h, 1.0);
  std::vector<lb::StepControl<double>> c(e.size, e.control[0]);
  c[0].h = c[8].h = 0.01;
  e.control.v = c;
  e.y0[std::size_t(13) * e.size + 5] = std::nan("");  // member 5's Ω_y
  const auto out = lb::run_cpu<Hedop5>(e, lb::RunOptions{});
  for (std::size_t i = 0; i < e.size; ++i) {
    const auto y0 = e.state(i);
    const auto d = lb::integrate_fixed<Hedop5>(kSys, 0.0, 1.0, y0, c[i].h, 1 << 20);
    const auto st = lb::Status(out.status[i]);
    if (i == 5) {
      EXPECT_EQ(st, lb::Status::nonfinite);
      EXPECT_EQ(out.steps[i], 0);
    } else if (i == 0 || i == 8) {
      EXPECT_TRUE(st == lb::Status::dexpinv_singular || st == lb::Status::constraint_solve_failed || st == lb::Status::nonfinite)
          << i << ": " << lb::status_name(out.status[i]);
      EXPECT_LT(out.t[i], 1.0) << i;
      std::printf("[ INFO ] member %zu at h = 0.01: %s at t = %.2f after %ld steps\n", i, lb::status_name(out.status[i]),
                  out.t[i], out.steps[i]);
    } else {
      EXPECT_EQ(st, lb::Status::ok) << i;
    }
    EXPECT_EQ(st, d.status) << i;
    EXPECT_EQ(out.steps[i], d.steps) << i;
    EXPECT_EQ(out.t[i], d.t) << i;
    const auto got = member(out.y, e.size, i);
    if (i == 5) continue;
    for (int k = 0; k < Sys::space::dim; ++k) ASSERT_EQ(got[k], d.y[k]) << "member " << i << ", component " << k;
  }
  // Tops within 2 % of BC at h = 0.01: a member either breaks down before t = 1 with a status, or
  // is within the stability limit (slower spins) and ends ok, then accurate: its Ω and λ at t = 1
  // within 1 % of a run at h = 1/1024. Never an ok member with a blown-up multiplier.
  const auto near = tops(16, 0.01, 1.0, 0.02);
  auto fine = near;
  fine.control.v[0].h = 1.0 / 1024;
  const auto all = lb::run_cpu<Hedop5>(near, lb::RunOptions{}), ref = lb::run_cpu<Hedop5>(fine, lb::RunOptions{});
  int failed = 0;
  for (std::size_t i = 0; i < near.size; ++i) {
    const auto y = Sys::unpack(member(all.y, near.size, i)), r = Sys::unpack(member(ref.y, near.size, i));
    EXPECT_TRUE(std::isfinite(lb::norm(y.lambda)) && std::isfinite(lb::norm(y.v))) << i;
    ASSERT_EQ(ref.status[i], std::uint8_t(lb::Status::ok)) << i;
    if (all.status[i] != std::uint8_t(lb::Status::ok)) {
      ++failed;
      EXPECT_LT(all.t[i], 1.0) << i;
    } else {
      EXPECT_LE(lb::norm(y.v - r.v) / lb::norm(r.v), 1e-2) << i;
      EXPECT_LE(lb::norm(y.lambda - r.lambda) / lb::norm(r.lambda), 1e-2) << i;
    }
  }
  std::printf("[ INFO ] 16 tops within 2 %% of BC at h = 0.01: %d end with a failure status before t = 1\n", failed);
  EXPECT_NE(all.status[0], std::uint8_t(lb::Status::ok)) << "BC itself";
}

// Float (as on a GPU in single precision): the same top in float against double over 256 steps:
// Ω and λ within a few float ulps per step, both constraints at float round-off.
TEST(Hedop5Ensemble, FloatFollowsDouble) {
  using SysF = lb::ConstrainedSystem<lb::ConstrainedHeavyTop<float>>;
  const SysF sf = kSys.cast<float>();
  const auto e = tops(4, 1.0 / 1024, 0.25);
  lb::Ensemble<SysF> ef;
  ef.size = e.size;
  ef.model.v = {sf};
  ef.t1.v = {0.25f};
  lb::StepControl<float> c;
  c.h = 1.0f / 1024;
  ef.control.v = {c};
  ef.y0.assign(e.y0.begin(), e.y0.end());
  const auto d = lb::run_cpu<Hedop5>(e, lb::RunOptions{});
  const auto f = lb::run_cpu<Hedop5>(ef, lb::RunOptions{});
  for (std::size_t i = 0; i < e.size; ++i) {
    ASSERT_EQ(f.status[i], std::uint8_t(lb::Status::ok)) << i;
    SysF::point yf;
    for (int k = 0; k < 21; ++k) yf[k] = f.y[std::size_t(k) * e.size + i];
    const auto a = SysF::unpack(yf);
    const auto b = Sys::unpack(member(d.y, e.size, i));
    const double dw = lb::norm(lb::cast<double>(a.v) - b.v) / lb::norm(b.v), dl = lb::norm(lb::cast<double>(a.lambda) - b.lambda) / lb::norm(b.lambda);
    std::printf("[ INFO ] member %zu float vs double at t = 0.25: v %.1e, lambda %.1e, |Phi| %.1e, |Bv| %.1e\n", i, dw, dl,
                double(lb::norm(sf.system.constraint(a.q))), double(lb::norm(sf.system.gradient(a.q) * a.v)));
    EXPECT_LE(dw, 1e-3) << i;
    EXPECT_LE(dl, 1e-3) << i;
    EXPECT_LE(lb::norm(sf.system.constraint(a.q)), 1e-5f) << i;
    EXPECT_LE(lb::norm(sf.system.gradient(a.q) * a.v), 1e-4f * lb::norm(a.v)) << i;
  }
}

/// The error at t = 1 of a BC run against the body-form reference: max-abs in R, and |ΔΩ|/|Ω|,
/// |Δλ|/|λ|.
struct EndError {
  double R, omega, lambda;
};
EndError end_error(const Sys::point& y, const TopExact& ref) {
  const auto s = Sys::unpack(y), x = exact_state(kBC, ref);
  EndError r{0, lb::norm(s.v.seg<0, 3>() - x.v.seg<0, 3>()) / lb::norm(x.v.seg<0, 3>()), lb::norm(s.lambda - x.lambda) / lb::norm(x.lambda)};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.R = std::max(r.R, std::abs(s.q.R(i, j) - x.q.R(i, j)));
  return r;
}

// Adaptive steps with the embedded b̂ (order_hat 4): on the Brüls–Cardona top over [0, 1] the error
// at t = 1 follows the tolerance from 1e-4 to 1e-10, and the engine's members are the
// single-trajectory integrate_adaptive's bitwise.
TEST(Hedop5Ensemble, AdaptiveErrorFollowsTheTolerance) {
  const auto ref = top_reference(kBC, 1, 1 << 20).back();
  const auto y0 = tops(1, 0.01, 1.0).state(0);
  double prev = 0;
  for (double tol : {1e-4, 1e-6, 1e-8, 1e-10}) {
    lb::StepControl<double> c;
    c.h = 1e-3;
    c.atol = c.rtol = tol;
    const auto o = lb::integrate_adaptive<Hedop5>(kSys, 0.0, 1.0, y0, c);
    ASSERT_EQ(o.status, lb::Status::ok) << tol;
    const EndError err = end_error(o.y, ref);
    const double worst = std::max({err.R, err.omega, err.lambda});
    std::printf("[ INFO ] tol %.0e: %ld steps, %ld rejected; error at t = 1: R %.2e, Omega %.2e, lambda %.2e\n", tol, o.steps,
                o.rejected, err.R, err.omega, err.lambda);
    // The global error after ~10³ steps of a fast top is about 90 tol (76, 92, 90, 89 measured).
    EXPECT_LE(worst, 300 * tol) << tol;
    if (prev > 0) {
      EXPECT_LE(worst, prev / 40) << "100x tighter tolerance, at least 40x smaller error: " << tol;
    }
    prev = worst;
  }
  auto e = tops(9, 1e-3, 1.0);
  lb::StepControl<double> c;
  c.h = 1e-3;
  c.atol = c.rtol = 1e-8;
  e.control.v = {c};
  lb::RunOptions o;
  o.adaptive = true;
  o.chunks = 3;
  const auto out = lb::run_cpu<Hedop5>(e, o);
  for (std::size_t i = 0; i < e.size; ++i) {
    const auto a = lb::integrate_adaptive<Hedop5>(kSys, 0.0, 1.0, e.state(i), c);
    ASSERT_EQ(out.status[i], std::uint8_t(a.status)) << i;
    EXPECT_EQ(out.steps[i], a.steps) << i;
    EXPECT_EQ(out.rejected[i], a.rejected) << i;
    const auto got = member(out.y, e.size, i);
    for (int k = 0; k < Sys::space::dim; ++k) ASSERT_EQ(got[k], a.y[k]) << "member " << i << ", component " << k;
  }
}

// The estimate h Σ (bⱼ − b̂ⱼ)(Θ̇ⱼ, V̇ⱼ) of one step from the BC initial state, as the engine's
// error vector (q part in embedding coordinates, v part): O(h⁵), the local error of b̂'s 4th-order
// formula, in both parts ([Notes] measures 4.9–5.0 at these h).
TEST(Hedop5Ensemble, EmbeddedEstimateIsOrderFiveOnTheBrulsCardonaTop) {
  const auto y0 = tops(1, 0.01, 1.0).state(0);
  double prev_q = 0, prev_v = 0;
  for (double h : {0.004, 0.002, 0.001, 0.0005}) {
    const auto r = Hedop5::step(kSys, 0.0, y0, h);
    const double eq = lb::norm(r.err.seg<0, 12>()), ev = lb::norm(r.err.seg<12, 6>());
    EXPECT_EQ(lb::norm(r.err.seg<18, 3>()), 0.0) << "λ is not estimated";
    if (prev_q > 0) {
      const double sq = std::log2(prev_q / eq), sv = std::log2(prev_v / ev);
      std::printf("[ INFO ] estimate h = %.4f: q %.3e (slope %.2f), v %.3e (slope %.2f)\n", h, eq, sq, ev, sv);
      EXPECT_NEAR(sq, 5.0, 0.2) << h;
      EXPECT_NEAR(sv, 5.0, 0.2) << h;
    }
    prev_q = eq, prev_v = ev;
  }
}

// A section through the engine: the centre of mass crossing the plane x = 0 (x_x, component 9;
// the top precesses about the vertical) upwards. Hits lie on the section to the root tolerance and
// on both constraints to round-off (a hit is the step re-taken to the crossing), and their times
// converge with the step at HEDOP5's order (differences between h = 1/1024, 1/2048 and 1/4096).
TEST(Hedop5Ensemble, SectionHitsLieOnTheConstraintManifold) {
  auto hits_at = [](double h) {
    auto e = tops(3, h, 2.0);
    return lb::run_cpu<Hedop5>(e, lb::RunOptions{}, lb::Hyperplane<double>{9, 0.0, lb::Crossing::up});
  };
  const auto a = hits_at(1.0 / 1024), b = hits_at(1.0 / 2048), c = hits_at(1.0 / 4096);
  ASSERT_GE(a.hit_t.size(), 3u);
  ASSERT_EQ(a.hit_t.size(), b.hit_t.size());
  ASSERT_EQ(a.hit_t.size(), c.hit_t.size());
  double dab = 0, dbc = 0;
  for (std::size_t k = 0; k < a.hit_t.size(); ++k) {
    EXPECT_EQ(a.hit_member[k], c.hit_member[k]);
    EXPECT_LE(std::abs(a.hit_y[k * Sys::space::dim + 9]), 1e-12) << k;
    EXPECT_LE(a.hit_obs[k * 4 + 1], 1e-14) << k;
    EXPECT_LE(a.hit_obs[k * 4 + 2], 1e-14) << k;
    dab = std::max(dab, std::abs(a.hit_t[k] - b.hit_t[k]));
    dbc = std::max(dbc, std::abs(b.hit_t[k] - c.hit_t[k]));
  }
  std::printf("[ INFO ] %zu hits; hit times apart by %.1e (h = 1/1024 vs 1/2048) and %.1e (1/2048 vs 1/4096)\n",
              a.hit_t.size(), dab, dbc);
  EXPECT_LE(dbc, dab / 16) << "order at least 4";
  EXPECT_LE(dbc, 1e-7);
}

}  // namespace
