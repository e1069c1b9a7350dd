// Ensemble statistics on the CPU (ensemble/statistics.hpp): moments against a quad-precision two-pass
// computation, far from zero too (where Σx² − n x̄² fails); histograms against direct counts; NaN,
// out-of-range values and failed members accounted for; bitwise independence of thread count and
// member order; and a pendulum ensemble whose mean energy is conserved, at output times and at
// section crossings.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/multiprecision/float128.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <liebatch/ensemble/cpu.hpp>
#include <liebatch/ensemble/statistics.hpp>
#include "ensembles.hpp"
#include <liebatch/liebatch.hpp>
#include <liebatch/models/pendulum_chain.hpp>

namespace {

using Q = boost::multiprecision::float128;
using Out = lb::EnsembleOutput<double>;
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double inf = std::numeric_limits<double>::infinity();

/// Exact-enough moments of x (quad two-pass), and the a = mean|x|, b = mean|x − x̄| of the bound.
struct Reference {
  double mean, var, abs_mean, abs_dev;
};
Reference reference(const std::vector<double>& x) {
  const Q n = Q(x.size());
  Q s = 0, a = 0;
  for (double v : x) {
    s += v;
    a += abs(Q(v));
  }
  const Q m = s / n;
  Q v2 = 0, b = 0;
  for (double v : x) {
    v2 += (Q(v) - m) * (Q(v) - m);
    b += abs(Q(v) - m);
  }
  return {double(m), double(v2 / (n - 1)), double(a / n), double(b / n)};
}

/// The bound of ensemble/statistics.hpp for the CPU's sums, plus the rounding of the reference to double.
lb::MomentBound tolerance(const Reference& r, long n) {
  const double u = std::numeric_limits<double>::epsilon() / 2;
  const auto b = lb::moment_error_bound(n, lb::pairwise_depth(n), r.mean, r.var, r.abs_mean, r.abs_dev);
  return {b.mean + u * std::abs(r.mean), b.var + u * r.var};
}

std::vector<double> gaussian(std::size_t n, double offset, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  std::vector<double> x(n);
  for (double& v : x) v = offset + g(rng);
  return x;
}

/// Bitwise equality of two results (doubles by their bytes, so NaNs compare too).
bool same_bits(const lb::ObservableStats& a, const lb::ObservableStats& b) {
  auto eq = [](double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; };
  return a.count == b.count && a.failed == b.failed && eq(a.mean, b.mean) && eq(a.var, b.var) && eq(a.min, b.min) &&
         eq(a.max, b.max) && a.bins == b.bins && a.under == b.under && a.over == b.over && a.nan == b.nan &&
         eq(a.lo, b.lo) && eq(a.hi, b.hi) && a.closed == b.closed;
}
bool same_bits(const lb::EnsembleStatistics& a, const lb::EnsembleStatistics& b) {
  if (a.at.size() != b.at.size() || a.hits.size() != b.hits.size()) return false;
  for (std::size_t c = 0; c < a.at.size(); ++c)
    if (!same_bits(a.at[c], b.at[c])) return false;
  for (std::size_t o = 0; o < a.hits.size(); ++o)
    if (!same_bits(a.hits[o], b.hits[o])) return false;
  return true;
}

/// n members, `samples` output times, 2 observables with values offset + N(0, 1) (the second
/// scaled by 10), every 7th member failed, 3 section records per member.
Out random_output(std::size_t n, int samples, double offset, unsigned seed) {
  Out out;
  out.allocate(n, 1, 2, samples);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  for (std::size_t c = 0; c < std::size_t(samples) * 2; ++c)
    for (std::size_t i = 0; i < n; ++i) out.sample_obs[c * n + i] = (c % 2 ? 10.0 : 1.0) * (offset + g(rng));
  for (std::size_t i = 0; i < n; ++i) {
    out.status[i] = std::uint8_t(i % 7 == 3 ? lb::Status::nonfinite : lb::Status::ok);
    for (int j = 0; j < 3; ++j) {
      const double y = 0, obs[2] = {offset + g(rng), 10 * (offset + g(rng))};
      out.add_hit(i, j, double(j), &y, obs);
    }
  }
  return out;
}

TEST(Statistics, MomentsMatchAQuadTwoPassEvenFarFromZero) {
  const std::size_t n = 100000;
  for (double offset : {0.0, 1e8}) {
    const auto x = gaussian(n, offset, 11);
    const auto s = lb::observable_stats(x, 0, lb::Binning{});
    const Reference ref = reference(x);
    const auto tol = tolerance(ref, long(n));
    ASSERT_EQ(s.count, long(n));
    EXPECT_LE(std::abs(s.mean - ref.mean), tol.mean) << "offset " << offset;
    EXPECT_LE(std::abs(s.var - ref.var), tol.var) << "offset " << offset;
    // The naive one-pass formula on the same data, to show the tolerance separates it.
    double sx = 0, sxx = 0;
    for (double v : x) {
      sx += v;
      sxx += v * v;
    }
    const double naive = (sxx - sx * sx / double(n)) / double(n - 1);
    std::printf("offset %.0e: |mean - ref| %.1e (tol %.1e), |var - ref| %.1e (tol %.1e), naive Σx² formula %.1e\n",
                offset, std::abs(s.mean - ref.mean), tol.mean, std::abs(s.var - ref.var), tol.var,
                std::abs(naive - ref.var));
    if (offset > 0) {
      EXPECT_GT(std::abs(naive - ref.var), 1e3 * tol.var) << "the test must catch the naive formula";
    }
  }
}

TEST(Statistics, SmallCountsAndConstantData) {
  const auto none = lb::observable_stats({}, 4, lb::Binning{});
  EXPECT_EQ(none.count, 0);
  EXPECT_EQ(none.failed, 4);
  EXPECT_TRUE(std::isnan(none.mean) && std::isnan(none.var) && std::isnan(none.min) && std::isnan(none.lo));
  const auto one = lb::observable_stats({2.5}, 0, lb::Binning{4});
  EXPECT_EQ(one.mean, 2.5);
  EXPECT_TRUE(std::isnan(one.var));
  EXPECT_EQ(one.bins, (std::vector<long>{1, 0, 0, 0}));
  const auto constant = lb::observable_stats(std::vector<double>(1000, 1e8 + 0.1), 0, lb::Binning{4});
  EXPECT_EQ(constant.mean, 1e8 + 0.1);
  EXPECT_EQ(constant.var, 0.0);
  EXPECT_EQ(constant.bins, (std::vector<long>{1000, 0, 0, 0}));
  const auto pair = lb::observable_stats({1.0, 3.0}, 0, lb::Binning{});
  EXPECT_EQ(pair.mean, 2.0);
  EXPECT_EQ(pair.var, 2.0);  // ((1 − 2)² + (3 − 2)²)/(2 − 1)
}

TEST(Statistics, HistogramsCountEveryValueAsADirectCountDoes) {
  auto x = gaussian(20000, 0.5, 5);
  for (double& v : x) v *= 2;
  const std::vector<double> special = {-3.0, 5.0, 1.0, std::nextafter(-3.0, -4.0), std::nextafter(5.0, 4.0),
                                       nan, nan, inf, -inf, 1e300};
  x.insert(x.end(), special.begin(), special.end());
  // Caller range [−3, 5) in 16 bins: edges −3 + j/2 are exact, so direct comparisons are exact.
  const auto s = lb::observable_stats(x, 0, lb::Binning{16, -3.0, 5.0});
  std::vector<long> bins(16, 0);
  long under = 0, over = 0, nans = 0;
  for (double v : x) {
    if (std::isnan(v)) ++nans;
    else if (v < -3.0) ++under;
    else if (v >= 5.0) ++over;
    else {
      for (int j = 0; j < 16; ++j)
        if (v >= -3.0 + 0.5 * j && v < -3.0 + 0.5 * (j + 1)) ++bins[std::size_t(j)];
    }
  }
  EXPECT_EQ(s.bins, bins);
  EXPECT_EQ(s.under, under);
  EXPECT_EQ(s.over, over);
  EXPECT_EQ(s.nan, 2);
  EXPECT_EQ(nans, 2);
  EXPECT_FALSE(s.closed);
  EXPECT_EQ(s.count, long(x.size()) - 2);
  long total = s.under + s.over;
  for (long b : s.bins) total += b;
  EXPECT_EQ(total, s.count);
  EXPECT_GE(s.under, 3);  // nextafter(−3), −inf and the gaussian tail
  EXPECT_GE(s.over, 3);   // 5 itself (half-open), inf, 1e300
  EXPECT_EQ(s.min, -inf);
  EXPECT_EQ(s.max, inf);

  // Data range: [min, max] of the finite values, closed; the documented edges lo + j·w, w = (hi − lo)/10.
  x.resize(x.size() - special.size());
  const auto d = lb::observable_stats(x, 0, lb::Binning{10});
  EXPECT_TRUE(d.closed);
  EXPECT_EQ(d.lo, d.min);
  EXPECT_EQ(d.hi, d.max);
  EXPECT_EQ(d.under + d.over, 0);
  const auto direct = [](const std::vector<double>& xs, double lo, double hi, int n) {
    std::vector<long> count(std::size_t(n), 0);
    const double w = (hi - lo) / n;
    for (double v : xs) {
      int j = 0;
      while (j < n - 1 && v >= lo + (j + 1) * w) ++j;
      ++count[std::size_t(j)];
    }
    return count;
  };
  EXPECT_EQ(d.bins, direct(x, d.lo, d.hi, 10));
  // Values on the edges as computed, and beside them: the rounded quotient put 0.3, 0.6 and 0.7 of
  // [0, 1) in 10 bins one bin high.
  std::vector<double> hundredths;
  for (int k = 0; k < 100; ++k) hundredths.push_back(k / 100.0);
  for (int k = 1; k < 10; ++k) hundredths.push_back(std::nextafter(k * 0.1, 0.0));
  const auto e = lb::observable_stats(hundredths, 0, lb::Binning{10, 0.0, 1.0});
  EXPECT_EQ(e.bins, direct(hundredths, 0.0, 1.0, 10));
  EXPECT_GE(d.bins.front(), 1);
  EXPECT_GE(d.bins.back(), 1);  // the maximum lands in the last bin

  EXPECT_THROW(lb::observable_stats(x, 0, lb::Binning{0}), std::invalid_argument);
  EXPECT_THROW(lb::observable_stats(x, 0, lb::Binning{4, 1.0, 1.0}), std::invalid_argument);
  EXPECT_THROW(lb::observable_stats(x, 0, lb::Binning{4, 1.0, {}}), std::invalid_argument);
  EXPECT_THROW(lb::observable_stats({-1e308, 1e308}, 0, lb::Binning{4}), std::domain_error);
}

TEST(Statistics, FailedMembersAndTheirRecordsAreExcludedAndCounted) {
  const std::size_t n = 3000;
  Out out = random_output(n, 3, 0.0, 3);
  // Garbage in failed members (as a failed run may leave): excluded, it cannot reach the results.
  for (std::size_t i = 0; i < n; ++i)
    if (out.status[i] != std::uint8_t(lb::Status::ok)) out.sample_obs[4 * n + i] = 1e300;
  out.sample_obs[4 * n + 0] = nan;  // an ok member with a NaN value: counted as NaN
  const auto st = lb::statistics(out, {lb::Binning{8}, lb::Binning{5, -50.0, 50.0}});
  const long failed = long((n + 3) / 7);
  for (int k = 0; k < 3; ++k) {
    for (int o = 0; o < 2; ++o) {
      const auto& s = st.sample(k, o);
      std::vector<double> x;
      for (std::size_t i = 0; i < n; ++i)
        if (out.status[i] == std::uint8_t(lb::Status::ok)) x.push_back(out.sample_obs[(std::size_t(k) * 2 + o) * n + i]);
      const bool with_nan = k == 2 && o == 0;
      EXPECT_EQ(s.failed, failed);
      EXPECT_EQ(s.nan, with_nan ? 1 : 0);
      EXPECT_EQ(s.count, long(n) - failed - s.nan);
      if (with_nan) x.erase(x.begin());
      const Reference ref = reference(x);
      const auto tol = tolerance(ref, s.count);
      EXPECT_LE(std::abs(s.mean - ref.mean), tol.mean) << k << " " << o;
      EXPECT_LE(std::abs(s.var - ref.var), tol.var) << k << " " << o;
      EXPECT_EQ(s.bins.size(), o == 0 ? 8u : 5u);
    }
  }
  for (int o = 0; o < 2; ++o) {
    const auto& h = st.hits[std::size_t(o)];
    std::vector<double> x;
    for (std::size_t r = 0; r < out.hit_member.size(); ++r)
      if (out.status[out.hit_member[r]] == std::uint8_t(lb::Status::ok)) x.push_back(out.hit_obs[r * 2 + std::size_t(o)]);
    EXPECT_EQ(h.failed, 3 * failed);
    EXPECT_EQ(h.count, long(x.size()));
    const Reference ref = reference(x);
    EXPECT_LE(std::abs(h.mean - ref.mean), tolerance(ref, h.count).mean);
    EXPECT_LE(std::abs(h.var - ref.var), tolerance(ref, h.count).var);
  }
  EXPECT_THROW(lb::statistics(out, {lb::Binning{}, lb::Binning{}, lb::Binning{}}), std::invalid_argument);
}

TEST(Statistics, ResultsAreBitwiseIndependentOfThreadsAndMemberOrder) {
  const std::size_t n = 5000;
  const int samples = 4;
  const Out out = random_output(n, samples, 1e8, 9);
  const std::vector<lb::Binning> binning = {lb::Binning{16}, lb::Binning{7, 1e9 - 30, 1e9 + 30}};
  const auto one = lb::statistics(out, binning, 1);
  for (int threads : {2, 3, 8}) EXPECT_TRUE(same_bits(one, lb::statistics(out, binning, threads))) << threads << " threads";

  // The members shuffled, the records reversed and renumbered with them.
  std::vector<std::size_t> perm(n);
  for (std::size_t i = 0; i < n; ++i) perm[i] = i;
  std::shuffle(perm.begin(), perm.end(), std::mt19937_64(4));
  Out shuffled = out;
  for (std::size_t i = 0; i < n; ++i) {
    shuffled.status[perm[i]] = out.status[i];
    for (std::size_t c = 0; c < std::size_t(samples) * 2; ++c)
      shuffled.sample_obs[c * n + perm[i]] = out.sample_obs[c * n + i];
  }
  const std::size_t records = out.hit_member.size();
  for (std::size_t r = 0; r < records; ++r) {
    shuffled.hit_member[records - 1 - r] = perm[out.hit_member[r]];
    for (std::size_t o = 0; o < 2; ++o) shuffled.hit_obs[(records - 1 - r) * 2 + o] = out.hit_obs[r * 2 + o];
  }
  EXPECT_TRUE(same_bits(one, lb::statistics(shuffled, binning, 3)));

  // The shuffle matters: a sum in member order changes its last bits on this data.
  double a = 0, b = 0;
  for (std::size_t i = 0; i < n; ++i) {
    a += out.sample_obs[i];
    b += shuffled.sample_obs[i];
  }
  EXPECT_NE(a, b);
}

TEST(Statistics, PendulumEnergyMeanIsConservedAtOutputTimesAndCrossings) {
  // Planar pendulums (m = L = 1) released from rest at a ∈ [0.2, 1.2): E = −g cos a exactly, and
  // every 50th member poisoned with a NaN state.
  const std::size_t n = 400;
  auto e = lbtest::released_pendulums(n, 10.0);
  const double g = e.model.v[0].gravity, tol = 1e-10;
  e.samples = 11;
  e.control.v[0].atol = e.control.v[0].rtol = tol;
  std::vector<Q> energy0(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double a = 0.2 + double(i) / double(n);
    energy0[i] = -Q(g) * cos(Q(a));
    if (i % 50 == 7) e.y0[1 * n + i] = nan;
  }
  lb::RunOptions o;
  o.adaptive = true;
  const auto out = lb::run_cpu<lb::methods::rkmk54>(e, o, lb::Hyperplane<double>{0, 0.0, lb::Crossing::both});
  const auto st = lb::statistics(out, {lb::Binning{20}});

  const std::size_t poisoned = n / 50;
  Q sum = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (i % 50 != 7) sum += energy0[i];
  const Q mean0 = sum / Q(n - poisoned);
  Q ss = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (i % 50 != 7) ss += (energy0[i] - mean0) * (energy0[i] - mean0);
  const double var0 = double(ss / Q(n - poisoned - 1));

  const auto& first = st.sample(0, 0);
  const auto& last = st.sample(e.samples - 1, 0);
  for (const auto* s : {&first, &last}) {
    EXPECT_EQ(s->failed, long(poisoned));
    EXPECT_EQ(s->count, long(n - poisoned));
    long binned = 0;
    for (long b : s->bins) binned += b;
    EXPECT_EQ(binned, s->count);
  }
  // At t0 the observables are the initial states' energies: the closed form to rounding.
  EXPECT_NEAR(first.mean, double(mean0), 1e-14);
  EXPECT_NEAR(first.var, var0, 1e-13);
  // At t1 each member's energy has drifted by at most ~tol per unit time: so has the mean.
  const double drift = std::abs(last.mean - double(mean0));
  std::printf("mean energy %.15f at t0, %.15f at t1 (drift %.1e); var %.6e / %.6e; %ld crossings\n",
              double(mean0), last.mean, drift, var0, last.var, st.hits[0].count);
  EXPECT_LE(drift, 10 * tol * 10.0 * g);
  EXPECT_LE(std::abs(last.var - var0), 10 * tol * 10.0 * g * 2 * std::sqrt(var0));

  // Crossings of q_x = 0: each record's energy is its member's initial energy, to the same drift.
  const auto& h = st.hits[0];
  ASSERT_GE(out.hit_member.size(), 9 * (n - poisoned));  // about one crossing per half period (≈ 1.0–1.1)
  EXPECT_EQ(h.count, long(out.hit_member.size()));
  EXPECT_EQ(h.failed, 0);
  Q hsum = 0;
  for (std::size_t member : out.hit_member) hsum += energy0[member];
  EXPECT_LE(std::abs(h.mean - double(hsum / Q(out.hit_member.size()))), 10 * tol * 10.0 * g);
}

}  // namespace
