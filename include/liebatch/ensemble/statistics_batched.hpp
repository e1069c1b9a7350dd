// Ensemble statistics on the device: what lb::statistics (statistics.hpp) computes on the CPU
// — per output time and observable, and over the section records, the count, mean, unbiased
// variance, extremes and histogram of the values of the members that ended ok — from arrays that
// live on the device. Written against an engine backend B (backend.hpp) that also
// provides transform_reduce(n, f, init, combine) over the indices 0 … n−1: CUDA with Thrust
// (statistics.cuh) or the CPU backend (cpu.hpp).
//
// Moments: the corrected two-pass formulas of statistics.hpp, the sums Σx, Σ(x − m₀) and
// Σ(x − m₀)² done by B's transform_reduce. (Two passes rather than one reduction of (count,
// mean, M2) pairs combined by the formula of [CGL83]: that one's error grows with the offset |x̄|/σ
// to first order in u, the corrected two-pass one only to second order.)
//
// The GPU mean and variance may differ from the CPU's in the last bits, because the sums run in
// another order (Thrust does not document its order; the CPU sums sorted values pairwise). Both
// obey lb::moment_error_bound, the CPU with depth d = pairwise_depth(n), the GPU with d = n − 1
// (any order), so with u = 2⁻⁵³, a = mean|xᵢ|, b = mean|xᵢ − x̄| and γ_k = k·u/(1 − k·u):
//   |mean_gpu − mean_cpu| ≤ 2u|x̄| + (γ_c + γ_g)·b + (γ_c² + γ_g²)·a,
//   |var_gpu − var_cpu|   ≤ (γ_c + γ_g)·s² + 9·n/(n − 1)·(γ_c² + γ_g²)·a²,
// γ_c = γ_{pairwise_depth(n)+5}, γ_g = γ_{n+4}: for n = 10⁵ values 10⁸ + N(0, 1), 2.2e-8 (1.5 ulp of
// 10⁸) on the mean and 1.1e-5 on the variance (1.1e-11 for N(0, 1); in practice a few ulps).
// Counts, extremes, the binned range and the histogram are exact and equal the CPU's: the same
// lb::bin_index decides every bin.
#pragma once
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "statistics.hpp"
#include "engine.hpp"

namespace lb {

/// A run's output held in a backend's memory (device pointers), laid out as in lb::EnsembleOutput.
template <class T> struct DeviceOutput {
  std::size_t size = 0;                      ///< members
  int samples = 0;                           ///< output times
  int nobs = 0;                              ///< observables
  const T* sample_obs = nullptr;             ///< [(k·nobs + o)·size + i]
  const std::uint8_t* status = nullptr;      ///< lb::Status per member
  std::size_t records = 0;                   ///< section records
  const T* hit_obs = nullptr;                ///< [record·nobs + o]
  const std::size_t* hit_member = nullptr;   ///< member of each record
};

}  // namespace lb

namespace lb::engine {

namespace detail {

/// One observable's values: item j is x[j·stride], of member member[j] (member j when null).
template <class T> struct Column {
  const T* x;                   ///< first value
  std::size_t stride;           ///< distance between consecutive items
  const std::size_t* member;    ///< member of each item, or null
  const std::uint8_t* status;   ///< lb::Status per member
  LB_HD double value(std::size_t j) const { return double(x[j * stride]); }
  LB_HD bool ok(std::size_t j) const { return status[member ? member[j] : j] == std::uint8_t(Status::ok); }
};

/// First pass over a column: the counts, Σx and the extremes of the used values.
struct Tally {
  long count;         ///< used values (member ok, not NaN)
  long failed;        ///< values of members that did not end ok
  long nan;           ///< NaN values of members that ended ok
  double sum;         ///< Σx over the used values
  double min, max;    ///< extremes of the used values, ±inf included
  double finite_min;  ///< smallest finite used value (+inf when none)
  double finite_max;  ///< largest finite used value (−inf when none)
};

/// The tally of no value.
LB_HD Tally empty_tally() {
  constexpr double inf = std::numeric_limits<double>::infinity();
  return {0, 0, 0, 0.0, inf, -inf, inf, -inf};
}

/// The tally of item j alone.
template <class T> struct TallyOf {
  Column<T> c;  ///< the column
  LB_HD Tally operator()(std::size_t j) const {
    Tally t = empty_tally();
    if (!c.ok(j)) {
      t.failed = 1;
      return t;
    }
    const double x = c.value(j);
    if (std::isnan(x)) {
      t.nan = 1;
      return t;
    }
    t.count = 1;
    t.sum = t.min = t.max = x;
    if (std::isfinite(x)) t.finite_min = t.finite_max = x;
    return t;
  }
};

/// Two tallies as one.
struct CombineTallies {
  LB_HD Tally operator()(const Tally& a, const Tally& b) const {
    return {a.count + b.count,
            a.failed + b.failed,
            a.nan + b.nan,
            a.sum + b.sum,
            b.min < a.min ? b.min : a.min,
            b.max > a.max ? b.max : a.max,
            b.finite_min < a.finite_min ? b.finite_min : a.finite_min,
            b.finite_max > a.finite_max ? b.finite_max : a.finite_max};
  }
};

/// Second pass: D = Σ(x − m₀) and Q = Σ(x − m₀)² over the used values.
struct Deviations {
  double D;  ///< Σ(x − m₀)
  double Q;  ///< Σ(x − m₀)²
};

/// Item j's deviation from the first-pass mean m₀ and its square (zero for unused items).
template <class T> struct DeviationOf {
  Column<T> c;  ///< the column
  double m0;    ///< first-pass mean
  LB_HD Deviations operator()(std::size_t j) const {
    if (!c.ok(j)) return {0.0, 0.0};
    const double x = c.value(j);
    if (std::isnan(x)) return {0.0, 0.0};
    const double d = x - m0;
    return {d, d * d};
  }
};

/// Two partial sums of deviations as one.
struct AddDeviations {
  LB_HD Deviations operator()(const Deviations& a, const Deviations& b) const { return {a.D + b.D, a.Q + b.Q}; }
};

/// One more count at *p: atomic on the device; host backends run their launches serially.
LB_HD void count_one(unsigned long long* p) {
#if defined(__CUDA_ARCH__)
  atomicAdd(p, 1ULL);
#else
  std::atomic_ref<unsigned long long>(*p).fetch_add(1, std::memory_order_relaxed);  // CPU backend threads
#endif
}

/// Counts used item j of c into counts[0 … bins−1], below the range into counts[bins], above it
/// into counts[bins + 1] (global atomics on the device: fine for the few bins of a histogram; NaN
/// and failed items are counted by the tally).
template <class T> struct BinItem {
  Column<T> c;  ///< the column
  double lo, hi;
  int bins;
  bool closed;
  unsigned long long* counts;
  LB_HD void operator()(std::size_t j) const {
    if (!c.ok(j)) return;
    const double x = c.value(j);
    if (std::isnan(x)) return;
    const long b = bin_index(x, lo, hi, bins, closed);
    count_one(&counts[b < 0 ? bins : (b >= bins ? bins + 1 : b)]);
  }
};

/// The statistics of the m items of c, as lb::observable_stats computes them on the CPU.
template <class B, class T>
ObservableStats column_stats(const Column<T>& c, std::size_t m, const Binning& binning,
                             buffer<B, unsigned long long>& counts) {
  const B b;
  const Tally t = b.transform_reduce(m, TallyOf<T>{c}, empty_tally(), CombineTallies{});
  ObservableStats s;
  s.count = t.count;
  s.failed = t.failed;
  s.nan = t.nan;
  if (s.count > 0) {
    s.min = t.min;
    s.max = t.max;
    const double m0 = t.sum / double(s.count);
    const Deviations dev = b.transform_reduce(m, DeviationOf<T>{c, m0}, Deviations{0.0, 0.0}, AddDeviations{});
    lb::detail::set_moments(s, m0, dev.D, dev.Q);
  }
  lb::detail::set_range(s, binning, t.finite_min, t.finite_max);
  if (s.count > 0) {
    const int bins = binning.bins;
    counts.resize(std::size_t(bins) + 2);
    b.fill(counts, 0ULL);
    b.launch(m, BinItem<T>{c, s.lo, s.hi, bins, s.closed, B::raw(counts)}, "histogram kernel");
    b.synchronize("histogram kernel");
    std::vector<unsigned long long> h(counts.size());
    b.copy(counts.begin(), counts.end(), h.begin());
    for (int k = 0; k < bins; ++k) s.bins[std::size_t(k)] = long(h[std::size_t(k)]);
    s.under = long(h[std::size_t(bins)]);
    s.over = long(h[std::size_t(bins) + 1]);
  }
  return s;
}

}  // namespace detail

/// Statistics of every observable at every output time and over the section records of a run held
/// in B's memory, as lb::statistics computes them on the CPU (see the top of this file for how far
/// mean and variance may differ); `binning` holds one Binning shared by every observable or one per
/// observable. Throws std::invalid_argument for a bad binning; B's failures propagate.
template <class B, class T>
EnsembleStatistics statistics_on(const DeviceOutput<T>& d, const std::vector<Binning>& binning = {Binning{}}) {
  lb::detail::check_binning(binning, d.nobs);
  const std::size_t nobs = std::size_t(d.nobs);
  const auto binning_of = [&](std::size_t o) { return binning.size() == 1 ? binning[0] : binning[o]; };
  EnsembleStatistics r = lb::detail::shaped_statistics(d.samples, d.nobs);
  buffer<B, unsigned long long> counts;
  for (std::size_t c = 0; c < r.at.size(); ++c) {
    const detail::Column<T> col{d.sample_obs + c * d.size, 1, nullptr, d.status};
    r.at[c] = detail::column_stats<B>(col, d.size, binning_of(c % nobs), counts);
  }
  for (std::size_t o = 0; o < nobs; ++o) {
    const detail::Column<T> col{d.records > 0 ? d.hit_obs + o : nullptr, nobs, d.hit_member, d.status};
    r.hits[o] = detail::column_stats<B>(col, d.records, binning_of(o), counts);
  }
  return r;
}

/// The same for a run's output on the host: copied to B's memory, then reduced there.
template <class B, class T>
EnsembleStatistics statistics_on(const EnsembleOutput<T>& out, const std::vector<Binning>& binning = {Binning{}}) {
  buffer<B, T> sample_obs(out.sample_obs.begin(), out.sample_obs.end()), hit_obs(out.hit_obs.begin(), out.hit_obs.end());
  buffer<B, std::uint8_t> status(out.status.begin(), out.status.end());
  buffer<B, std::size_t> hit_member(out.hit_member.begin(), out.hit_member.end());
  const DeviceOutput<T> d{out.size,
                          out.samples,
                          out.nobs,
                          B::raw(sample_obs),
                          B::raw(status),
                          out.hit_member.size(),
                          B::raw(hit_obs),
                          B::raw(hit_member)};
  return statistics_on<B>(d, binning);
}

}  // namespace lb::engine
