// The CPU ensemble path: bitwise independence of thread count and chunking, output samples against
// direct integrations, failure isolation, per-member parameters and input validation.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include <liebatch/ensemble/cpu.hpp>
#include "ensembles.hpp"

namespace {

using namespace lb::methods;
using Out = lb::EnsembleOutput<double>;

/// Bitwise equality of two runs (doubles compared by their bytes, so NaNs compare too).
void expect_identical(const Out& a, const Out& b) {
  auto same = [](const auto& x, const auto& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(x[0])) == 0;
  };
  EXPECT_TRUE(same(a.y, b.y));
  EXPECT_TRUE(same(a.t, b.t));
  EXPECT_TRUE(same(a.steps, b.steps));
  EXPECT_TRUE(same(a.rejected, b.rejected));
  EXPECT_TRUE(same(a.status, b.status));
  EXPECT_TRUE(same(a.iterations, b.iterations));
  EXPECT_TRUE(same(a.iterations_max, b.iterations_max));
  EXPECT_TRUE(same(a.sample_t, b.sample_t));
  EXPECT_TRUE(same(a.sample_y, b.sample_y));
  EXPECT_TRUE(same(a.sample_obs, b.sample_obs));
}

TEST(EnsembleCpu, ResultsAreBitwiseIndependentOfTheThreadCount) {
  auto e = lbtest::heavy_top_ensemble(700);
  e.samples = 11;
  e.control.v[0].atol = e.control.v[0].rtol = 1e-9;
  lb::RunOptions o;
  o.adaptive = true;
  o.threads = 1;
  const Out one = lb::run_cpu<rkmk54>(e, o);
  for (int th : {2, 3, 7}) {
    o.threads = th;
    expect_identical(one, lb::run_cpu<rkmk54>(e, o));
  }
  for (std::size_t i = 0; i < e.size; ++i) ASSERT_EQ(one.status[i], std::uint8_t(lb::Status::ok));
}

TEST(EnsembleCpu, ChunkedAndUnchunkedRunsAreIdentical) {
  auto e = lbtest::heavy_top_ensemble(300);
  lb::RunOptions o;
  o.adaptive = true;
  const Out whole = lb::run_cpu<cf43>(e, o);
  o.chunks = 13;
  expect_identical(whole, lb::run_cpu<cf43>(e, o));

  e.samples = 21;
  o.samples_per_chunk = 100;
  const Out sampled = lb::run_cpu<rkmk54>(e, o);
  o.samples_per_chunk = 3;
  expect_identical(sampled, lb::run_cpu<rkmk54>(e, o));
  o.adaptive = false;
  e.control.v[0].h = 0.013;
  o.samples_per_chunk = 100;
  const Out fixed = lb::run_cpu<rkmk4>(e, o);
  o.samples_per_chunk = 1;
  expect_identical(fixed, lb::run_cpu<rkmk4>(e, o));
}

TEST(EnsembleCpu, PausesWithinChunksChangeNoResult) {
  auto e = lbtest::heavy_top_ensemble(200);
  e.samples = 7;
  lb::RunOptions o;
  o.adaptive = true;
  o.samples_per_chunk = 4;
  for (bool simd : {true, false}) {  // packs, and one member at a time
    o.simd = simd;
    o.pauses = 1;
    const Out whole = lb::run_cpu<rkmk54>(e, o);
    o.pauses = 9;
    expect_identical(whole, lb::run_cpu<rkmk54>(e, o));
  }
  e.samples = 0;
  o.adaptive = false;
  e.control.v[0].h = 0.013;
  o.pauses = 1;
  const Out fixed = lb::run_cpu<rkmk4>(e, o);
  o.pauses = 200;  // legs of 1/200 < h: most legs take no step
  expect_identical(fixed, lb::run_cpu<rkmk4>(e, o));
}

/// A run that takes a checkpoint at every pause (RunOptions::checkpoint) equals the plain run, and so
/// does the run resumed from each of them (RunOptions::resume), bitwise.
template <class Method, class E> void expect_resumable(const E& e, lb::RunOptions o) {
  const Out whole = lb::run_cpu<Method>(e, o);
  std::vector<lb::EngineState> states;
  o.checkpoint_due = [] { return true; };
  o.checkpoint = [&](const lb::EngineState& s) { states.push_back(s); };
  expect_identical(whole, lb::run_cpu<Method>(e, o));
  ASSERT_GE(states.size(), 4u);
  o.checkpoint = nullptr;
  for (const auto& s : states) {
    o.resume = &s;
    SCOPED_TRACE("resumed at member " + std::to_string(s.b0) + ", leg " + std::to_string(s.leg));
    expect_identical(whole, lb::run_cpu<Method>(e, o));
  }
}

TEST(EnsembleCpu, ARunResumedFromAnyPauseEqualsTheUninterruptedRun) {
  auto e = lbtest::heavy_top_ensemble(200);
  e.samples = 7;
  lb::RunOptions o;
  o.adaptive = true;
  o.samples_per_chunk = 4;  // two chunks of three legs, and resumes within a chunk's samples
  o.pauses = 3;
  o.batch = 72;  // three batches, the last short
  for (bool simd : {true, false}) {
    o.simd = simd;
    expect_resumable<rkmk54>(e, o);
  }
  e.samples = 0;
  o.adaptive = false;
  e.control.v[0].h = 0.013;
  o.chunks = 2;
  expect_resumable<rkmk4>(e, o);
}

TEST(EnsembleCpu, FixedStepSamplesAreTheDirectIntegrationsToEachSampleTime) {
  auto e = lbtest::heavy_top_ensemble(50);
  e.samples = 9;                 // Δ = 1/8 = 8h: samples fall on the step grid
  e.control.v[0].h = 1.0 / 64;
  lb::RunOptions o;
  const Out out = lb::run_cpu<cf4>(e, o);
  const auto& m = e.model[0];
  for (std::size_t i = 0; i < e.size; ++i) {
    for (int k = 0; k < e.samples; ++k) {
      const double tk = lb::sample_time(0.0, 1.0, k, e.samples);
      EXPECT_EQ(out.sample_t[k * e.size + i], tk);
      const auto direct = k == 0 ? lb::Outcome<lb::Vec6<double>>{e.state(i), 0.0, 0, 0, lb::Status::ok, 0, 0}
                                 : lb::integrate_fixed<cf4>(m, 0.0, tk, e.state(i), 1.0 / 64, 1000);
      for (int d = 0; d < 6; ++d) ASSERT_EQ(out.sample_y[(k * 6 + d) * e.size + i], direct.y[d]) << "member " << i << " sample " << k;
      const auto obs = m.observables(direct.y);
      for (int q = 0; q < 3; ++q) ASSERT_EQ(out.sample_obs[(k * 3 + q) * e.size + i], obs[q]);
    }
  }
}

TEST(EnsembleCpu, SamplesOnTheStepGridUpToRoundingTakeNoExtraSteps) {
  // h = 0.1 with a sample every 0.1 s: k·h and t₀ + k(t₁ − t₀)/30 differ by an ulp for 11 of the
  // 30 samples. Those are the same grid point, not a step of one ulp; likewise t₁ = 86·(3/86).
  auto e = lbtest::heavy_top_ensemble(4);
  e.t1.v = {3.0};
  e.samples = 31;
  e.control.v[0].h = 0.1;
  const Out out = lb::run_cpu<rkmk4>(e, lb::RunOptions{});
  const auto direct = lb::integrate_fixed<rkmk4>(e.model[0], 0.0, 3.0, e.state(0), 0.1, 1000);
  for (std::size_t i = 0; i < e.size; ++i) {
    EXPECT_EQ(out.steps[i], 30) << "member " << i;
    for (int k = 0; k < e.samples; ++k) EXPECT_EQ(out.sample_t[k * e.size + i], lb::sample_time(0.0, 3.0, k, e.samples));
  }
  EXPECT_EQ(direct.steps, 30);
  for (int d = 0; d < 6; ++d) EXPECT_NEAR(out.y[d * e.size], direct.y[d], 1e-12 * (1 + std::abs(direct.y[d])));
  for (int k = 1; k < 87; ++k)  // every end point k·(3/86) is reached in k steps
    EXPECT_EQ(lb::integrate_fixed<rkmk4>(e.model[0], 0.0, 3.0 * k / 86, e.state(0), 3.0 / 86, 1000).steps, k) << k;
}

TEST(EnsembleCpu, NoStepIsASliverBeforeOrAfterAStop) {
  // Fixed steps in long double with h = 1/400 rounded to double, as `validate` runs its reference:
  // 25h misses the sample at 1/16 by ~1e-18, beyond long double's rounding allowance, and the step
  // after each sample used to be that sliver (a method dividing by h, HEDOP5, cannot take it). A
  // stop within h/1024 of a grid point is that grid point: 100 steps, samples exactly on time.
  const auto d = lbtest::heavy_top_ensemble(4);
  lb::Ensemble<lb::HeavyTop<long double>> e;
  e.size = d.size;
  e.model.v = {lbtest::HeavyTopProblem::model<long double>()};
  e.y0.assign(d.y0.begin(), d.y0.end());
  e.t1.v = {0.25L};
  e.samples = 5;
  e.control.v[0].h = (long double)(1.0 / 400);
  ASSERT_NE(25 * e.control.v[0].h, 0.0625L);  // the premise: the grid misses the samples
  const auto out = lb::run_cpu<rkmk4>(e, lb::RunOptions{});
  for (std::size_t i = 0; i < e.size; ++i) {
    EXPECT_EQ(out.steps[i], 100) << "member " << i;
    for (int k = 0; k < e.samples; ++k) EXPECT_EQ(out.sample_t[k * e.size + i], lb::sample_time(0.0L, 0.25L, k, e.samples));
  }
  // Adaptive steps of at most 0.1(1 − 1e-6) with a loose tolerance end 1e-7 before each stop; the
  // step is stretched onto the stop instead of leaving a 1e-7 step after it: 2 steps, not 4.
  auto a = lbtest::heavy_top_ensemble(4);
  a.t1.v = {0.2};
  a.samples = 3;
  a.control.v[0].h = a.control.v[0].h_max = 0.1 * (1 - 1e-6);
  a.control.v[0].atol = a.control.v[0].rtol = 1e-2;
  lb::RunOptions o;
  o.adaptive = true;
  const Out ad = lb::run_cpu<rkmk54>(a, o);
  for (std::size_t i = 0; i < a.size; ++i) {
    EXPECT_EQ(ad.status[i], std::uint8_t(lb::Status::ok));
    EXPECT_EQ(ad.steps[i] + ad.rejected[i], 2) << "member " << i;
    EXPECT_EQ(ad.sample_t[1 * a.size + i], 0.1);
  }
}

TEST(EnsembleCpu, FixedStepSamplesOffTheStepGridLandExactly) {
  auto e = lbtest::heavy_top_ensemble(30);
  e.samples = 8;             // Δ = 1/7, not a multiple of h: steps are split at each sample
  e.control.v[0].h = 0.013;
  const Out out = lb::run_cpu<rkmk4>(e, lb::RunOptions{});
  lb::StepControl<double> tight;
  tight.atol = tight.rtol = 1e-13;
  for (std::size_t i = 0; i < e.size; ++i) {
    for (int k = 0; k < e.samples; ++k) {
      const double tk = lb::sample_time(0.0, 1.0, k, e.samples);
      ASSERT_EQ(out.sample_t[k * e.size + i], tk);
      if (k == 0) continue;
      const auto ref = lb::integrate_adaptive<rkmk54>(e.model[0], 0.0, tk, e.state(i), tight);
      const auto plain = lb::integrate_fixed<rkmk4>(e.model[0], 0.0, tk, e.state(i), 0.013, 1000);  // no splits
      double err = 0, err_plain = 0;
      for (int d = 0; d < 6; ++d) {
        err = std::max(err, std::abs(out.sample_y[(k * 6 + d) * e.size + i] - ref.y[d]));
        err_plain = std::max(err_plain, std::abs(plain.y[d] - ref.y[d]));
      }
      // Splitting steps at samples keeps RKMK4's accuracy: within twice the error of the unsplit run.
      EXPECT_LT(err, 2 * err_plain + 1e-12) << "member " << i << " sample " << k;
    }
  }
}

TEST(EnsembleCpu, AdaptiveSamplesMatchDirectIntegrationsWithinTolerance) {
  auto e = lbtest::heavy_top_ensemble(40);
  e.samples = 7;
  e.control.v[0].atol = e.control.v[0].rtol = 1e-10;
  lb::RunOptions o;
  o.adaptive = true;
  const Out out = lb::run_cpu<rkmk54>(e, o);
  const auto& m = e.model[0];
  for (std::size_t i = 0; i < e.size; ++i) {
    for (int k = 1; k < e.samples; ++k) {
      const double tk = lb::sample_time(0.0, 1.0, k, e.samples);
      // A far more accurate direct integration to tk.
      lb::StepControl<double> tight;
      tight.atol = tight.rtol = 1e-13;
      const auto ref = lb::integrate_adaptive<rkmk54>(m, 0.0, tk, e.state(i), tight);
      double err = 0;
      for (int d = 0; d < 6; ++d) err = std::max(err, std::abs(out.sample_y[(k * 6 + d) * e.size + i] - ref.y[d]));
      EXPECT_LT(err, 1e-8) << "member " << i << " sample " << k;
      if (k == 1) {  // no earlier stop: bitwise the direct run with the same tolerance
        const auto same = lb::integrate_adaptive<rkmk54>(m, 0.0, tk, e.state(i), e.control[i]);
        for (int d = 0; d < 6; ++d) EXPECT_EQ(out.sample_y[(k * 6 + d) * e.size + i], same.y[d]);
      }
    }
  }
}

TEST(EnsembleCpu, PoisonedMembersAreFlaggedAndLeaveTheOthersBitwiseUntouched) {
  const std::size_t n = 1000;
  auto clean = lbtest::heavy_top_ensemble(n);
  clean.samples = 5;
  auto poisoned = clean;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<lb::Status> expect(n, lb::Status::ok);
  for (std::size_t i = 3; i < n; i += 100) {  // 1 %: alternately a NaN state and an overflowing one
    if ((i / 100) % 2 == 0) {
      poisoned.y0[2 * n + i] = nan;
      expect[i] = lb::Status::nonfinite;
    } else {
      for (int d = 0; d < 3; ++d) poisoned.y0[d * n + i] = 1e200;  // 𝕀⁻¹Π·Π overflows in the first step
      expect[i] = lb::Status::nonfinite;
    }
  }
  lb::RunOptions o;
  o.adaptive = true;
  const Out a = lb::run_cpu<rkmk54>(clean, o), b = lb::run_cpu<rkmk54>(poisoned, o);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(b.status[i], std::uint8_t(expect[i])) << "member " << i;
    if (expect[i] != lb::Status::ok) continue;
    ASSERT_EQ(a.steps[i], b.steps[i]);
    for (int d = 0; d < 6; ++d) ASSERT_EQ(std::memcmp(&a.y[d * n + i], &b.y[d * n + i], sizeof(double)), 0);
    for (int k = 0; k < 5; ++k)
      for (int d = 0; d < 6; ++d) {
        const std::size_t at = (k * 6 + d) * n + i;
        ASSERT_EQ(std::memcmp(&a.sample_y[at], &b.sample_y[at], sizeof(double)), 0);
      }
  }
}

TEST(EnsembleCpu, PerMemberParametersStepsAndSpans) {
  auto e = lbtest::heavy_top_ensemble(64);
  std::vector<lb::HeavyTop<double>> models;
  std::vector<double> t1;
  std::vector<lb::StepControl<double>> ctl;
  for (std::size_t i = 0; i < e.size; ++i) {
    auto m = e.model[0];
    m.mass = 0.5 + 0.01 * double(i);
    models.push_back(m);
    t1.push_back(0.5 + 0.01 * double(i));
    lb::StepControl<double> c;
    c.h = 0.01 + 0.0005 * double(i);
    ctl.push_back(c);
  }
  e.model.v = models;
  e.t1.v = t1;
  e.control.v = ctl;
  const Out out = lb::run_cpu<rkmk4>(e, lb::RunOptions{});
  for (std::size_t i = 0; i < e.size; ++i) {
    const auto direct = lb::integrate_fixed<rkmk4>(models[i], 0.0, t1[i], e.state(i), ctl[i].h, 1000000);
    EXPECT_EQ(out.t[i], t1[i]);
    EXPECT_EQ(out.steps[i], direct.steps);
    for (int d = 0; d < 6; ++d) EXPECT_EQ(out.y[d * e.size + i], direct.y[d]);
  }
}

TEST(EnsembleCpu, BadInputNamesTheFieldAndTheValue) {
  auto e = lbtest::heavy_top_ensemble(10);
  auto expect_error = [](const auto& ens, const std::string& needle, bool adaptive = false) {
    lb::RunOptions o;
    o.adaptive = adaptive;
    try {
      (void)lb::run_cpu<rkmk4>(ens, o);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const std::invalid_argument& err) {
      EXPECT_NE(std::string(err.what()).find(needle), std::string::npos) << err.what();
    }
  };
  auto bad = e;
  bad.y0.pop_back();
  expect_error(bad, "'y0' has 59 values");
  bad = e;
  bad.t1.v = {1.0, 2.0};
  expect_error(bad, "'t1' has 2 values");
  bad = e;
  bad.control.v[0].h = -0.1;
  expect_error(bad, "step h = -0.1");
  bad = e;
  bad.samples = 1;
  expect_error(bad, "'samples' is 1");
  bad = e;
  bad.t1.v = {0.0};
  expect_error(bad, "t1 = 0");
  expect_error(e, "embedded pair", true);
}

TEST(EnsembleCpu, FloatAndLongDoubleEnsembles) {
  const auto e = lbtest::heavy_top_ensemble(200);
  const Out ref = lb::run_cpu<rkmk4>(e, lb::RunOptions{});
  auto convert = [&](auto tag) {
    using T = decltype(tag);
    lb::Ensemble<lb::HeavyTop<T>> c;
    c.size = e.size;
    c.model.v = {lbtest::HeavyTopProblem::model<T>()};
    c.y0.assign(e.y0.begin(), e.y0.end());
    return c;
  };
  const auto f = lb::run_cpu<rkmk4>(convert(float{}), lb::RunOptions{});
  const auto l = lb::run_cpu<rkmk4>(convert((long double)0), lb::RunOptions{});
  for (std::size_t k = 0; k < ref.y.size(); ++k) {
    EXPECT_NEAR(double(f.y[k]), ref.y[k], 2e-4 * std::max(1.0, std::abs(ref.y[k])));  // float round-off over 100 steps
    EXPECT_NEAR(double(l.y[k]), ref.y[k], 1e-12 * std::max(1.0, std::abs(ref.y[k])));
  }
  // The long-double ensemble is the long-double single-trajectory integration, bitwise.
  const lb::HeavyTop<long double> m = lbtest::HeavyTopProblem::model<long double>();
  for (std::size_t i = 0; i < e.size; i += 37) {
    lb::Vec6<long double> y0;
    for (int d = 0; d < 6; ++d) y0[d] = e.y0[d * e.size + i];
    const auto direct = lb::integrate_fixed<rkmk4>(m, 0.0L, 1.0L, y0, lb::StepControl<long double>{}.h, 1000);
    for (int d = 0; d < 6; ++d) EXPECT_EQ(l.y[d * e.size + i], direct.y[d]);
  }
}

// A float run's output as the command line takes it, in double: every field comes across (the
// timing and lane occupancy too, which a field-by-field copy once dropped), the values exactly.
TEST(EnsembleCpu, FloatOutputCastToDoubleKeepsEveryField) {
  const auto e = lbtest::heavy_top_ensemble(64);
  lb::Ensemble<lb::HeavyTop<float>> c;
  c.size = e.size;
  c.model.v = {lbtest::HeavyTopProblem::model<float>()};
  c.y0.assign(e.y0.begin(), e.y0.end());
  c.samples = 3;
  auto f = lb::run_cpu<rkmk4>(c, lb::RunOptions{});
  ASSERT_GT(f.lane_occupancy, 0.0);
  const auto copy = f;
  const Out d = std::move(f).cast<double>();
  EXPECT_EQ(d.size, copy.size);
  EXPECT_EQ(d.dim, copy.dim);
  EXPECT_EQ(d.samples, copy.samples);
  ASSERT_EQ(d.y.size(), copy.y.size());
  for (std::size_t k = 0; k < d.y.size(); ++k) EXPECT_EQ(d.y[k], double(copy.y[k]));
  ASSERT_EQ(d.sample_obs.size(), copy.sample_obs.size());
  for (std::size_t k = 0; k < d.sample_obs.size(); ++k) EXPECT_EQ(d.sample_obs[k], double(copy.sample_obs[k]));
  EXPECT_EQ(d.steps, copy.steps);
  EXPECT_EQ(d.status, copy.status);
  EXPECT_EQ(d.device, copy.device);
  EXPECT_EQ(d.integrate_seconds, copy.integrate_seconds);
  EXPECT_EQ(d.lane_occupancy, copy.lane_occupancy);
  EXPECT_EQ(d.hits, copy.hits);
}

TEST(EnsembleCpu, ProgressIsReportedPerChunkAndReachesOne) {
  auto e = lbtest::heavy_top_ensemble(100);
  lb::RunOptions o;
  o.chunks = 4;
  std::vector<double> seen;
  o.progress = [&](double f) { seen.push_back(f); };
  (void)lb::run_cpu<rkmk4>(e, o);
  ASSERT_EQ(seen.size(), 4u);
  for (std::size_t k = 1; k < seen.size(); ++k) EXPECT_GT(seen[k], seen[k - 1]);
  EXPECT_NEAR(seen[0], 0.25, 0.02);
  EXPECT_EQ(seen.back(), 1.0);
}

}  // namespace
