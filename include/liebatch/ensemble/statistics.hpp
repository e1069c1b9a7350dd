// Ensemble statistics of observables on the CPU: per output time and observable, and over the
// section records, the count, mean, unbiased variance, extremes and a histogram of the values of
// the members that ended ok. statistics.cuh computes the same on a CUDA device.
//
// Every value offered is accounted for: count + nan + failed = values offered (members, or
// records), and Σ bins + under + over = count. Values are converted to double.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <charconv>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../scalar.hpp"
#include "ensemble.hpp"
#include "cpu.hpp"

namespace lb {

/// How a histogram is binned.
struct Binning {
  int bins = 32;                 ///< number of equal-width bins, ≥ 1
  std::optional<double> lo{}, hi{};  ///< the range [lo, hi) (both or neither); neither: [min, max] of the finite values
};

/// Statistics of one observable over the members of an ensemble (or over section records).
struct ObservableStats {
  long count = 0;   ///< values used: from members with Status::ok, NaN excluded
  long failed = 0;  ///< values left out because their member did not end with Status::ok
  double mean = std::numeric_limits<double>::quiet_NaN();  ///< mean of the used values (NaN when count = 0)
  double var = std::numeric_limits<double>::quiet_NaN();   ///< unbiased variance, divisor count − 1 (NaN when count < 2)
  double min = std::numeric_limits<double>::quiet_NaN();   ///< smallest used value, ±inf included (NaN when count = 0)
  double max = std::numeric_limits<double>::quiet_NaN();   ///< largest used value, ±inf included (NaN when count = 0)
  /// histogram: bin j counts values in [e_j, e_j+1), e_j = lo + j·w in double, w = (hi − lo)/bins, the
  /// last edge hi: numpy.histogram's edges and bins, bitwise, but for a value equal to a given hi
  /// (the range [lo, hi) half-open: over; numpy's last bin is closed)
  std::vector<long> bins;
  long under = 0;   ///< used values below lo (−inf included)
  long over = 0;    ///< used values above hi, or equal to hi when the range is half-open (+inf included)
  long nan = 0;     ///< NaN values of members with Status::ok (in neither the moments nor the histogram)
  double lo = std::numeric_limits<double>::quiet_NaN();  ///< lower end of the binned range
  double hi = std::numeric_limits<double>::quiet_NaN();  ///< upper end of the binned range
  bool closed = false;  ///< hi belongs to the last bin (the data range [min, max]); else the range is [lo, hi)
};

/// Statistics of every observable at every output time and over every section record.
struct EnsembleStatistics {
  int samples = 0;  ///< output times
  int nobs = 0;     ///< observables
  std::vector<ObservableStats> at;    ///< [k·nobs + o]: observable o over the members at output time k
  std::vector<ObservableStats> hits;  ///< [o]: observable o over all section records
  /// Observable o at output time k.
  const ObservableStats& sample(int k, int o) const { return at[std::size_t(k) * std::size_t(nobs) + std::size_t(o)]; }
};

/// Where a value that is not NaN falls: a bin 0 … bins−1, −1 below the range, bins above it. The
/// CPU and the GPU both bin with this function, so their histograms are identical. The bins are
/// decided by the edges as computed (ObservableStats::bins), not by the quotient alone, whose
/// rounding put 0.3, 0.6 and 0.7 of [0, 1) in 10 bins one bin high.
LB_HD long bin_index(double x, double lo, double hi, int bins, bool closed) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (x < lo || x == -inf) return -1;
  if (x > hi || (!closed && x == hi) || x == inf) return bins;
  if (!(hi > lo)) return 0;  // constant data, range [v, v]: its one value in the first bin
  const double w = (hi - lo) / double(bins);
  const auto edge = [&](long j) { return j >= bins ? hi : lo + lb::mul_rn(double(j), w); };  // no FMA on the device
  long b = long((x - lo) / (hi - lo) * double(bins));  // x ≥ lo: truncation is floor; within one bin
  if (b >= bins) b = bins - 1;                         // x = hi (closed), or rounding just below hi
  if (x < edge(b)) --b;
  else if (b + 1 < bins && x >= edge(b + 1)) ++b;
  return b;
}

/// Deepest chain of roundings a value passes through in pairwise_sum over n terms: the error of
/// the sum is at most γ_d·Σ|xᵢ|, γ_d = d·u/(1 − d·u), u = 2⁻⁵³.
inline int pairwise_depth(long n) { return 8 + int(std::ceil(std::log2(double(std::max(n, 1L))))); }

/// Bounds on the errors of a mean and a variance (see moment_error_bound).
struct MomentBound {
  double mean;  ///< bound on |mean − x̄|
  double var;   ///< bound on |var − s²|
};

/// Bounds on |mean − x̄| and |var − s²| for the corrected two-pass moments of n values (exact mean x̄
/// and sample variance s²) when every sum has depth at most d (see pairwise_depth):
///   |mean − x̄| ≤ u|x̄| + γ·(b + γ·a),   |var − s²| ≤ γ·s² + 9·n/(n − 1)·γ²·a²,   γ = γ_{d+5},
/// with a = mean |xᵢ| and b = mean |xᵢ − x̄|, for any order of the sums and with or without fused
/// multiply-adds. The offset enters only through γ²a², so data far from 0 keep their variance,
/// unlike Σx² − n x̄², whose error is of order u·a² (first power of u).
inline MomentBound moment_error_bound(long n, int depth, double xbar, double s2, double abs_mean, double abs_dev) {
  constexpr double u = std::numeric_limits<double>::epsilon() / 2;
  const double g = (depth + 5) * u / (1 - (depth + 5) * u);
  return {u * std::abs(xbar) + g * (abs_dev + g * abs_mean),
          g * s2 + 9 * double(n) / double(n - 1) * g * g * abs_mean * abs_mean};
}

namespace detail {

/// Statistics of `samples` output times and `nobs` observables, with no value yet.
inline EnsembleStatistics shaped_statistics(int samples, int nobs) {
  EnsembleStatistics r;
  r.samples = samples;
  r.nobs = nobs;
  r.at.resize(std::size_t(samples) * std::size_t(nobs));
  r.hits.resize(std::size_t(nobs));
  return r;
}

namespace detail {
/// x in messages, the shortest text that reads back as x (std::to_string writes 1e308 in 316
/// characters, and 1e-30 as 0.000000).
inline std::string shown(double x) {
  char s[32];
  return std::string(s, std::to_chars(s, s + sizeof s, x).ptr);
}
}  // namespace detail

/// Throws std::invalid_argument unless binning has 1 entry (shared) or one per observable, each valid.
inline void check_binning(const std::vector<Binning>& binning, int nobs) {
  if (binning.size() != 1 && binning.size() != std::size_t(nobs)) {
    throw std::invalid_argument("statistics: " + std::to_string(binning.size()) +
                                " binnings; expected 1 (shared) or " + std::to_string(nobs) + " (one per observable)");
  }
  for (const Binning& b : binning) {
    if (b.bins < 1) throw std::invalid_argument("statistics: " + std::to_string(b.bins) + " bins; expected ≥ 1");
    if (b.lo.has_value() != b.hi.has_value()) {
      throw std::invalid_argument("statistics: a histogram range needs both lo and hi, or neither");
    }
    if (b.lo && !(std::isfinite(*b.lo) && std::isfinite(*b.hi) && *b.lo < *b.hi && std::isfinite(*b.hi - *b.lo))) {
      throw std::invalid_argument("statistics: histogram range [" + detail::shown(*b.lo) + ", " + detail::shown(*b.hi) +
                                  ") is not finite lo < hi with a finite width");
    }
  }
}

/// mean and var by the corrected two-pass formulas ([CGL83]) from the first-pass
/// mean m₀ = Σxᵢ/n, D = Σ(xᵢ − m₀) and Q = Σ(xᵢ − m₀)²: mean = m₀ + D/n, var = (Q − D·D/n)/(n − 1).
inline void set_moments(ObservableStats& s, double m0, double D, double Q) {
  if (s.count < 1) return;
  const double n = double(s.count), Dn = D / n;
  s.mean = m0 + Dn;
  if (s.count < 2) return;
  const double M2 = Q - D * Dn;
  s.var = (M2 < 0 ? 0.0 : M2) / (n - 1);  // rounding can leave constant data a few ulps below 0; NaN stays NaN
}

/// The binned range: the caller's [lo, hi), or [min, max] of the finite values (NaN when none).
inline void set_range(ObservableStats& s, const Binning& b, double finite_min, double finite_max) {
  s.bins.assign(std::size_t(b.bins), 0);
  if (b.lo) {
    s.lo = *b.lo;
    s.hi = *b.hi;
    s.closed = false;
    return;
  }
  s.closed = true;
  if (finite_min > finite_max) return;  // no finite value: everything is ±inf, in under/over
  if (!std::isfinite(finite_max - finite_min)) {
    throw std::domain_error("statistics: values span [" + detail::shown(finite_min) + ", " + detail::shown(finite_max) +
                            "], wider than the largest double; give a histogram range");
  }
  s.lo = finite_min;
  s.hi = finite_max;
}

/// Counts a used value into the histogram of s.
inline void add_to_histogram(ObservableStats& s, double x) {
  const long j = bin_index(x, s.lo, s.hi, int(s.bins.size()), s.closed);
  if (j < 0) ++s.under;
  else if (j >= long(s.bins.size())) ++s.over;
  else ++s.bins[std::size_t(j)];
}

/// Σ f(xᵢ) over x[0, n): pairwise halves down to blocks of 8 summed in order (depth ≤ pairwise_depth(n)).
template <class F> double pairwise_sum(const double* x, std::size_t n, const F& f) {
  if (n <= 8) {
    double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += f(x[i]);
    return s;
  }
  const std::size_t h = n / 2;
  return pairwise_sum(x, h, f) + pairwise_sum(x + h, n - h, f);
}

}  // namespace detail

/// Statistics of the values x of one observable, `failed` values having been left out already.
/// The moments are the corrected two-pass formulas over pairwise sums: error O(u·log n) whatever
/// the offset of the data (Welford's is O(u·n·κ), the naive Σx² − n x̄² loses everything when
/// |x̄| ≫ σ); x is sorted first (−0 before +0), so the result depends on the multiset of values
/// only, not on their order.
inline ObservableStats observable_stats(std::vector<double> x, long failed, const Binning& binning) {
  detail::check_binning({binning}, 1);
  ObservableStats s;
  s.failed = failed;
  const auto kept = std::remove_if(x.begin(), x.end(), [](double v) { return std::isnan(v); });
  s.nan = long(x.end() - kept);
  x.erase(kept, x.end());
  std::sort(x.begin(), x.end(),
            [](double a, double b) { return a < b || (a == b && std::signbit(a) && !std::signbit(b)); });
  s.count = long(x.size());
  constexpr double inf = std::numeric_limits<double>::infinity();
  double finite_min = inf, finite_max = -inf;
  if (!x.empty()) {
    s.min = x.front();
    s.max = x.back();
    const auto first = std::find_if(x.begin(), x.end(), [](double v) { return v != -inf; });
    const auto last = std::find_if(x.rbegin(), x.rend(), [](double v) { return v != inf; });
    if (first != x.end() && *first != inf) {
      finite_min = *first;
      finite_max = *last;
    }
    const double m0 = detail::pairwise_sum(x.data(), x.size(), [](double v) { return v; }) / double(s.count);
    const double D = detail::pairwise_sum(x.data(), x.size(), [m0](double v) { return v - m0; });
    const double Q = detail::pairwise_sum(x.data(), x.size(), [m0](double v) {
      const double d = v - m0;
      return d * d;
    });
    detail::set_moments(s, m0, D, Q);
  }
  detail::set_range(s, binning, finite_min, finite_max);
  for (double v : x) detail::add_to_histogram(s, v);
  return s;
}

/// Statistics of every observable at every output time of `out` (over its members) and over its
/// section records, from the members that ended with Status::ok; `binning` holds one Binning shared
/// by every observable or one per observable. Each (time, observable) is computed by one of
/// `threads` threads (0: all hardware threads) from sorted values, so the results are bitwise
/// independent of the thread count and of the order of the members and records.
template <class T>
EnsembleStatistics statistics(const EnsembleOutput<T>& out, const std::vector<Binning>& binning = {Binning{}},
                              int threads = 0) {
  detail::check_binning(binning, out.nobs);
  const std::size_t n = out.size, nobs = std::size_t(out.nobs), records = out.hit_member.size();
  const auto ok = [&](std::size_t member) { return out.status[member] == std::uint8_t(Status::ok); };
  const auto binning_of = [&](std::size_t o) { return binning.size() == 1 ? binning[0] : binning[o]; };
  EnsembleStatistics r = detail::shaped_statistics(out.samples, out.nobs);
  // Task c < samples·nobs: column c of sample_obs; task samples·nobs + o: observable o of the records.
  auto task = [&](std::size_t c) {
    std::vector<double> x;
    long failed = 0;
    if (c < r.at.size()) {
      for (std::size_t i = 0; i < n; ++i) {
        if (ok(i)) x.push_back(double(out.sample_obs[c * n + i]));
        else ++failed;
      }
      r.at[c] = observable_stats(std::move(x), failed, binning_of(c % nobs));
    } else {
      const std::size_t o = c - r.at.size();
      for (std::size_t j = 0; j < records; ++j) {
        if (ok(out.hit_member[j])) x.push_back(double(out.hit_obs[j * nobs + o]));
        else ++failed;
      }
      r.hits[o] = observable_stats(std::move(x), failed, binning_of(o));
    }
  };
  // Tasks are claimed one at a time (each is a whole column); which thread runs one does not matter.
  // A task's exception is kept and the first one (by task) rethrown after the join.
  const std::size_t tasks = r.at.size() + r.hits.size();
  std::vector<std::exception_ptr> error(tasks);
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t c; (c = next.fetch_add(1)) < tasks;) {
      try {
        task(c);
      } catch (...) {
        error[c] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t k = 1; k < std::min(std::size_t(cpu_threads(threads)), tasks); ++k) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  for (const auto& e : error)
    if (e) std::rethrow_exception(e);
  return r;
}

}  // namespace lb
