// Ensemble statistics through a backend B of ensemble/statistics_batched.hpp against the
// CPU's (ensemble/statistics.hpp) on the same random outputs: CUDA in statistics_gpu.cu, the host
// emulation in test_ensemble_emulated.cpp.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <liebatch/ensemble/statistics_batched.hpp>
#include "statistics_gpu.hpp"

namespace lbtest {

namespace detail {


/// n members, 3 output times, 2 observables offset + N(0, 1) (the second × 10), 2 section records
/// per member; every 9th member failed, a few NaN values of members that are ok, and +inf, −inf in
/// column 5 (its mean and variance NaN on both sides).
template <class T> lb::EnsembleOutput<T> random_output(std::size_t n, double offset, unsigned seed) {
  lb::EnsembleOutput<T> out;
  out.allocate(n, 1, 2, 3);
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> g;
  for (std::size_t c = 0; c < 6; ++c)
    for (std::size_t i = 0; i < n; ++i) out.sample_obs[c * n + i] = T((c % 2 ? 10.0 : 1.0) * (offset + g(rng)));
  for (std::size_t i = 0; i < n; ++i) {
    out.status[i] = std::uint8_t(i % 9 == 4 ? lb::Status::step_cap : lb::Status::ok);
    for (int j = 0; j < 2; ++j) {
      const T y = 0, obs[2] = {T(offset + g(rng)), T(10 * (offset + g(rng)))};
      out.add_hit(i, j, T(j), &y, obs);
    }
  }
  for (std::size_t i = 0; i < n; i += 1000) out.sample_obs[2 * n + i] = std::numeric_limits<T>::quiet_NaN();
  out.sample_obs[5 * n + 1] = std::numeric_limits<T>::infinity();
  out.sample_obs[5 * n + 2] = -std::numeric_limits<T>::infinity();
  return out;
}

/// The values that enter column c's moments: sample column c < 6, then the records' observable c − 6.
template <class T> std::vector<double> used_values(const lb::EnsembleOutput<T>& out, std::size_t c) {
  std::vector<double> x;
  const auto ok = [&](std::size_t member) { return out.status[member] == std::uint8_t(lb::Status::ok); };
  if (c < 6) {
    for (std::size_t i = 0; i < out.size; ++i)
      if (ok(i)) x.push_back(double(out.sample_obs[c * out.size + i]));
  } else {
    for (std::size_t r = 0; r < out.hit_member.size(); ++r)
      if (ok(out.hit_member[r])) x.push_back(double(out.hit_obs[r * 2 + (c - 6)]));
  }
  x.erase(std::remove_if(x.begin(), x.end(), [](double v) { return std::isnan(v); }), x.end());
  return x;
}

inline bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

/// "" when the exact fields are equal and mean, var are within the sum of the CPU's and the GPU's
/// bounds (lb::moment_error_bound with depths pairwise_depth(n) and n − 1, evaluated at the CPU's
/// mean and variance); updates the largest ratios seen.
inline std::string compare(const lb::ObservableStats& c, const lb::ObservableStats& g, const std::vector<double>& x,
                    StatisticsComparison& r) {
  if (c.count != g.count || c.failed != g.failed || c.nan != g.nan) return "counts differ";
  if (c.count != long(x.size())) return "count is not the number of used values";
  if (!same(c.min, g.min) || !same(c.max, g.max)) return "extremes differ";
  if (!same(c.lo, g.lo) || !same(c.hi, g.hi) || c.closed != g.closed) return "binned ranges differ";
  if (c.bins != g.bins || c.under != g.under || c.over != g.over) return "histograms differ";
  if (std::isnan(c.mean) || std::isnan(g.mean) || std::isnan(c.var) || std::isnan(g.var)) {
    return same(c.mean, g.mean) && same(c.var, g.var) ? "" : "a mean or variance is NaN on one side only";
  }
  long double a = 0, b = 0;
  for (double v : x) a += std::abs((long double)v);
  for (double v : x) b += std::abs((long double)v - (long double)c.mean);
  const long n = c.count;
  const double abs_mean = double(a / n), abs_dev = double(b / n);
  const auto bc = lb::moment_error_bound(n, lb::pairwise_depth(n), c.mean, c.var, abs_mean, abs_dev);
  const auto bg = lb::moment_error_bound(n, int(n - 1), c.mean, c.var, abs_mean, abs_dev);
  r.mean_ratio = std::max(r.mean_ratio, std::abs(g.mean - c.mean) / (bc.mean + bg.mean));
  r.var_ratio = std::max(r.var_ratio, std::abs(g.var - c.var) / (bc.var + bg.var));
  return "";
}

template <class B, class T> std::string check(double offset, StatisticsComparison& r) {
  const auto out = random_output<T>(100000, offset, 17);
  const std::vector<lb::Binning> binning = {lb::Binning{12}, lb::Binning{9, 10 * offset - 25, 10 * offset + 25}};
  const auto cpu = lb::statistics(out, binning);
  const auto gpu = lb::engine::statistics_on<B>(out, binning);
  for (std::size_t c = 0; c < 8; ++c) {
    const auto& sc = c < 6 ? cpu.at[c] : cpu.hits[c - 6];
    const auto& sg = c < 6 ? gpu.at[c] : gpu.hits[c - 6];
    const std::string why = compare(sc, sg, used_values(out, c), r);
    if (!why.empty()) {
      return why + " (" + (sizeof(T) == 4 ? "float" : "double") + ", offset " + std::to_string(offset) + ", column " +
             std::to_string(c) + ")";
    }
  }
  return "";
}

}  // namespace detail

/// Random outputs (float and double; offsets 0 and 1e8; NaN, ±inf, failed members, section
/// records; data and fixed ranges) reduced through B and by lb::statistics: counts, extremes,
/// ranges and histograms equal, means and variances within the bound of ensemble/statistics_batched.hpp.
template <class B> StatisticsComparison statistics_check() {
  StatisticsComparison r;
  for (double offset : {0.0, 1e8}) {
    for (const std::string& why : {detail::check<B, double>(offset, r), detail::check<B, float>(offset, r)}) {
      if (!why.empty() && r.failure.empty()) r.failure = why;
    }
  }
  return r;
}

}  // namespace lbtest
