#include "cli/models/member_parameters.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include <boost/math/special_functions/erf.hpp>

#include "cli/config/config_node.hpp"

namespace lb::cli {

std::string full_digits(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

namespace {

/// float's normal numbers, as the command's other float refusals give them.
const std::string float_range = [] {
  char b[64];
  std::snprintf(b, sizeof b, "%g and %g", double(std::numeric_limits<float>::min()), double(std::numeric_limits<float>::max()));
  return std::string(b);
}();

/// Draws of a box sampler per member before a draw outside its domain is an error.
constexpr std::uint32_t max_draws = 1000;

}  // namespace

double Variation::point(std::size_t j) const {
  if (!points.empty()) return points[j];
  // numpy's linspace, operation for operation (j·step + a, the last point b), so that a sweep's
  // points equal numpy's bitwise; its logspace is 10 to those.
  const double delta = b - a, div = double(count - 1), step = count > 1 ? delta / div : 0;
  const double e = count == 1 ? 0.0 * delta + a : j + 1 == count ? b : step == 0 ? double(j) / div * delta + a : double(j) * step + a;
  return log ? std::pow(10.0, e) : e;
}

double Variation::quantile(double u, double cell) const {
  // The middle of u's cell as the probability below it (lower half) or above it (upper half).
  // Both are exact (u and 1 − u are multiples of the cell, and half a cell more or less stays in
  // their binade), so neither tail rounds onto 0 or 1: the quantile is finite, and symmetric.
  const bool upper = u >= 0.5;
  const double p = upper ? (1 - u) - 0.5 * cell : u + 0.5 * cell;
  const auto z = [&] { return std::sqrt(2.0) * boost::math::erfc_inv(2 * p); };  // Φ⁻¹(1 − p) > 0
  switch (kind) {
    case uniform:
      return upper ? b - (b - a) * p : a + (b - a) * p;
    case normal:
      return upper ? a + b * z() : a - b * z();
    case lognormal:
      return std::exp(upper ? a + b * z() : a - b * z());
    case sweep: break;
  }
  return NAN;
}

std::optional<Variation> read_variation(const nlohmann::json& v, const std::string& path, bool positive, double& x) {
  Variation r;
  r.positive = positive;
  const char* domain = r.domain();
  if (v.is_number()) {
    x = v.get<double>();
    if (!r.admits(x)) Node::fail(path, std::string("expected ") + domain, v);
    return std::nullopt;
  }
  static const char* kinds = "a number or an object with one of values, linspace, logspace, uniform, normal, lognormal";
  if (!v.is_object() || v.size() != 1) Node::fail(path, std::string("expected ") + kinds, v);
  const std::string key = v.begin().key(), at = path + "/" + key;
  r.path = at;
  const nlohmann::json& args = v.begin().value();
  const auto numbers = [&](std::size_t n) {
    if (!args.is_array() || (n > 0 && args.size() != n))
      Node::fail(at, n > 0 ? "expected an array of " + std::to_string(n) + " numbers" : "expected a non-empty array of numbers", args);
    std::vector<double> xs;
    for (std::size_t k = 0; k < args.size(); ++k) {
      if (!args[k].is_number() || !std::isfinite(args[k].get<double>()))
        Node::fail(at + "/" + std::to_string(k), "expected a finite number", args[k]);
      xs.push_back(args[k].get<double>());
    }
    if (xs.empty()) Node::fail(at, "expected a non-empty array of numbers", args);
    return xs;
  };
  if (key == "values" || key == "linspace" || key == "logspace") {
    if (key == "values") {
      r.points = numbers(0);
      r.form = "values(" + std::to_string(r.points.size()) + ")";
    } else {
      const auto p = numbers(3);
      if (!args[2].is_number_integer() || p[2] < 1 || p[2] > double(max_members))
        Node::fail(at + "/2", "expected a point count, an integer in [1, 2^40]", args[2]);
      if (!std::isfinite(p[1] - p[0])) Node::fail(at, "expected ends a, b whose difference is finite in double", args);
      r.a = p[0];
      r.b = p[1];
      r.count = std::size_t(p[2]);
      r.log = key == "logspace";
      r.form = key + "(" + full_digits(p[0]) + ", " + full_digits(p[1]) + ", " + std::to_string(r.count) + ")";
    }
    // Listed values one by one; a linspace or logspace is monotone, so its ends decide (nothing of
    // its size is ever stored).
    const std::size_t n = r.size();
    for (std::size_t j = 0; j < n; j = r.points.empty() && j + 1 < n ? n - 1 : j + 1)
      if (!r.admits(r.point(j)))
        Node::fail(at, "point " + std::to_string(j) + " is " + full_digits(r.point(j)) + "; the parameter takes " + domain);
    return r;
  }
  const auto p = numbers(2);
  if (key == "uniform") {
    if (!(p[0] < p[1])) Node::fail(at, "expected [a, b] with a < b", args);
    if (!std::isfinite(p[1] - p[0])) Node::fail(at, "expected ends a, b whose difference is finite in double", args);
    if (positive && !(p[0] >= 0)) Node::fail(at + "/0", "the parameter is > 0: a uniform range from a >= 0", args[0]);
    r.kind = Variation::uniform;
  } else if (key == "normal" || key == "lognormal") {
    if (!(p[1] > 0)) Node::fail(at + "/1", "expected a standard deviation > 0", args[1]);
    r.kind = key == "normal" ? Variation::normal : Variation::lognormal;
  } else {
    Node::fail(at, std::string("unknown variation; expected ") + kinds);
  }
  r.a = p[0];
  r.b = p[1];
  r.form = key + "(" + full_digits(p[0]) + ", " + full_digits(p[1]) + ")";
  return r;
}

std::size_t MemberRule::grid() const {
  std::size_t g = 1;
  for (const auto& s : sweeps) g *= s.size();
  return g;
}

void MemberRule::member(std::size_t i, double* x) const {
  const auto no_float = [&](const Variation& v, double value, const char* takes) {
    if (single && float_cannot_hold(value))
      throw ConfigError("config " + v.path + ": member " + std::to_string(i) + " " + takes + " " + v.name + " = " + full_digits(value) +
                        " (" + v.form + "), which float cannot hold (its normal numbers lie between " + float_range + "); use double");
  };
  std::size_t g = i / states;  // the grid point: the last axis fastest
  for (std::size_t s = sweeps.size(); s-- > 0;) {
    const std::size_t n = sweeps[s].size();
    x[s] = sweeps[s].point(g % n);
    no_float(sweeps[s], x[s], "takes");
    g /= n;
  }
  double* d = x + sweeps.size();
  const bool box = sampler.kind == SamplerKind::box;
  const std::uint32_t attempts = box ? max_draws : 1;
  const double cell = box ? 0x1p-53 : 0x1p-32;  // the resolution of the sampler's points
  for (std::uint32_t a = 0; a < attempts; ++a) {
    std::size_t bad = draws.size();
    for (std::size_t j = 0; j < draws.size(); ++j) {
      d[j] = draws[j].quantile(sampler(i, int(j), a), cell);
      if (bad == draws.size() && !draws[j].admits(d[j])) bad = j;
    }
    if (bad == draws.size()) {
      for (std::size_t j = 0; j < draws.size(); ++j) no_float(draws[j], d[j], "draws");
      return;
    }
    if (a + 1 == attempts) {
      const Variation& v = draws[bad];
      const bool corner = !box && sampler.seed == 0 && i == 0;  // every coordinate 0: the distribution's far tail
      throw ConfigError(
          "config " + v.path + ": member " + std::to_string(i) + " draws " + v.name + " = " + full_digits(d[bad]) + " (" + v.form +
          "), outside the parameter's domain (" + v.domain() + ")" +
          (box ? " in " + std::to_string(attempts) + " draws"
               : std::string(" (a Sobol' point has no other draw") +
                     (corner ? "; an unshifted sequence starts at the corner u = 0: give parameter_sampler a seed to shift it)" : ")")));
    }
  }
}

std::vector<double> MemberRule::member(std::size_t i) const {
  std::vector<double> v(numbers());
  member(i, v.data());
  return v;
}

std::string MemberRule::describe() const {
  std::string s;
  for (const auto* list : {&sweeps, &draws})
    for (const auto& x : *list) s += (s.empty() ? "" : "; ") + x.name + ": " + x.form;
  if (!draws.empty())
    s += std::string(", drawn by ") + (sampler.kind == SamplerKind::sobol ? "sobol" : "box") + " seed " + std::to_string(sampler.seed) +
         (sampler.first > 0 ? ", coordinates " + std::to_string(sampler.first) + " on of the initial states' sequence" : "");
  return s;
}

}  // namespace lb::cli
