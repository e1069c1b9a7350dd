// The observed order of a convergence study, fitted only where it means something: points whose
// error is not well above their measured round-off, and coarse steps where the local slopes have
// not yet settled, are left out, and each one left out says why.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace lb::cli {

/// What the fit made of one step size.
enum class PointUse : std::uint8_t {
  fitted = 0,         ///< in the asymptotic range: used by the fit
  roundoff = 1,       ///< error below `roundoff_factor` × its measured round-off
  preasymptotic = 2,  ///< local slope not yet settled (step too large)
  failed = 3,         ///< the run failed or its error is not a positive finite number
  alone = 4,          ///< the only point above round-off: nothing to fit it with
  whole_span = 5,     ///< a step at least as long as the span: one step, no asymptotic information
};
const char* name(PointUse u);

/// Errors at least this many times their round-off count as truncation errors: round-off then
/// changes a local slope by at most log(1.1)/log(2) ≈ 0.14 at halving steps.
inline constexpr double roundoff_factor = 10;
/// Local slopes within this distance of the finest pair's are settled (for halved steps; for a
/// step ratio ρ the distance is scaled by log 2 / log ρ, as a slope's sensitivity to error is).
inline constexpr double settled_slope = 0.2;

struct OrderFit {
  double order;               ///< least-squares slope of log e against log h over the fitted points (NaN: < 2)
  std::vector<double> slope;  ///< local slope between points j and j + 1 (NaN where either is failed or round-off)
  std::vector<PointUse> use;  ///< per point
  std::string note;           ///< e.g. "fitted over h in [0.0025, 0.01] (3 points); 1 round-off (h = 0.00125)"
};

/// h: the step sizes, decreasing; e: the errors; r: each run's round-off (its difference from the
/// same run in higher precision; NaN where that run failed: the point is kept, the note says so);
/// span: t1 − t0 (a step at least that long is marked whole_span and never fitted).
OrderFit fit_order(const std::vector<double>& h, const std::vector<double>& e, const std::vector<double>& r, double span = INFINITY);

}  // namespace lb::cli
