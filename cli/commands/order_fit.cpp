#include "cli/commands/order_fit.hpp"

#include <cmath>
#include <cstdio>

namespace lb::cli {

const char* name(PointUse u) {
  switch (u) {
    case PointUse::fitted:
      return "fitted";
    case PointUse::roundoff:
      return "round-off";
    case PointUse::preasymptotic:
      return "pre-asymptotic";
    case PointUse::failed:
      return "failed";
    case PointUse::alone:
      return "alone";
    case PointUse::whole_span:
      return "step >= span";
  }
  return "?";
}

namespace {
std::string g(double x) {
  char s[32];
  std::snprintf(s, sizeof s, "%.3g", x);
  return s;
}
}  // namespace

OrderFit fit_order(const std::vector<double>& h, const std::vector<double>& e, const std::vector<double>& r, double span) {
  const std::size_t n = h.size();
  OrderFit f{NAN, std::vector<double>(n > 0 ? n - 1 : 0, NAN), std::vector<PointUse>(n, PointUse::preasymptotic), ""};
  std::vector<std::size_t> c;  // candidates: finite errors well above their round-off
  for (std::size_t j = 0; j < n; ++j) {
    // A failed run first: one as long as the span that failed is a failure, not a whole-span point.
    if (!(std::isfinite(e[j]) && e[j] >= 0)) f.use[j] = PointUse::failed;
    else if (!(h[j] < span)) f.use[j] = PointUse::whole_span;
    else if (e[j] == 0) f.use[j] = PointUse::roundoff;  // exact (a fixed point): nothing above round-off to fit
    else if (e[j] < roundoff_factor * r[j]) f.use[j] = PointUse::roundoff;
    else c.push_back(j);
  }
  // Local slopes between consecutive candidates; the settled range runs from the finest pair
  // towards larger steps while the slopes stay within settled_slope of the finest pair's.
  std::vector<double> p, tol;
  for (std::size_t m = 0; m + 1 < c.size(); ++m) {
    const double log_ratio = std::log(h[c[m]] / h[c[m + 1]]);
    p.push_back(std::log(e[c[m]] / e[c[m + 1]]) / log_ratio);
    tol.push_back(settled_slope * std::log(2.0) / log_ratio);
    if (c[m + 1] == c[m] + 1) f.slope[c[m]] = p.back();
  }
  if (c.size() == 1) f.use[c[0]] = PointUse::alone;
  std::size_t first = c.size();  // first candidate (index into c) of the settled range
  if (!p.empty()) {
    first = p.size() - 1;
    while (first > 0 && std::abs(p[first - 1] - p.back()) <= tol[first - 1]) --first;
  }
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int k = 0;
  for (std::size_t m = first; m < c.size() && !p.empty(); ++m) {
    f.use[c[m]] = PointUse::fitted;
    const double x = std::log(h[c[m]]), y = std::log(e[c[m]]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    ++k;
  }
  if (k >= 2) {
    f.order = (k * sxy - sx * sy) / (k * sxx - sx * sx);
    f.note = "fitted over h in [" + g(h[c.back()]) + ", " + g(h[c[first]]) + "] (" + std::to_string(k) + " points";
    if (k > 2) f.note += ", local slopes " + g(p[first]) + " .. " + g(p.back());
    f.note += ")";
  } else {
    f.note = "no fit: fewer than two points above round-off";
  }
  std::size_t unmeasured = 0;
  for (std::size_t j = 0; j < n; ++j) unmeasured += f.use[j] != PointUse::failed && std::isnan(r[j]);  // (its own error finite)
  if (unmeasured) f.note += "; round-off not measured at " + std::to_string(unmeasured) + " (its higher-precision run failed)";
  for (PointUse u : {PointUse::whole_span, PointUse::preasymptotic, PointUse::roundoff, PointUse::failed, PointUse::alone}) {
    std::size_t count = 0;
    double lo = INFINITY, hi = 0;
    for (std::size_t j = 0; j < n; ++j)
      if (f.use[j] == u) {
        ++count;
        lo = std::min(lo, h[j]);
        hi = std::max(hi, h[j]);
      }
    if (count == 0) continue;
    f.note +=
        "; " + std::to_string(count) + " " + name(u) + " (h " + (count == 1 ? "= " + g(lo) : "in [" + g(lo) + ", " + g(hi) + "]") + ")";
  }
  return f;
}

}  // namespace lb::cli
