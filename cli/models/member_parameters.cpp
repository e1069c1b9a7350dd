#include "cli/models/member_parameters.hpp"

#include <cmath>
#include <cstdio>

#include <boost/math/special_functions/erf.hpp>

#include "cli/config/config_node.hpp"

namespace lb::cli {
namespace {

std::string num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

/// Draws of a box sampler per member before a draw outside its domain is an error.
constexpr std::uint32_t max_draws = 1000;

}  // namespace

double Variation::point(std::size_t j) const {
  if (!points.empty()) return points[j];
  const double e = count == 1 ? a : a + (b - a) * double(j) / double(count - 1);
  return log ? std::pow(10.0, e) : e;
}

double Variation::quantile(double u) const {
  const double v = (std::floor(u * 0x1p53) + 0.5) * 0x1p-53;  // in (0, 1): the normal's tails stay finite
  switch (kind) {
    case uniform: return a + (b - a) * v;
    case normal: return a - b * std::sqrt(2.0) * boost::math::erfc_inv(2 * v);
    case lognormal: return std::exp(a - b * std::sqrt(2.0) * boost::math::erfc_inv(2 * v));
    case sweep: break;
  }
  return NAN;
}

std::optional<Variation> read_variation(const nlohmann::json& v, const std::string& path, bool positive, double& x) {
  Variation r;
  r.positive = positive;
  const char* domain = positive ? "a number > 0" : "a finite number";
  if (v.is_number()) {
    x = v.get<double>();
    if (!r.admits(x)) Node::fail(path, std::string("expected ") + domain, v);
    return std::nullopt;
  }
  static const char* kinds = "a number or an object with one of values, linspace, logspace, uniform, normal, lognormal";
  if (!v.is_object() || v.size() != 1) Node::fail(path, std::string("expected ") + kinds, v);
  const std::string key = v.begin().key(), at = path + "/" + key;
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
      r.form = key + "(" + num(p[0]) + ", " + num(p[1]) + ", " + std::to_string(r.count) + ")";
    }
    // Listed values one by one; a linspace or logspace is monotone, so its ends decide (nothing of
    // its size is ever stored).
    const std::size_t n = r.size();
    for (std::size_t j = 0; j < n; j = r.points.empty() && j + 1 < n ? n - 1 : j + 1)
      if (!r.admits(r.point(j)))
        Node::fail(at, "point " + std::to_string(j) + " is " + num(r.point(j)) + "; the parameter takes " + domain);
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
  r.form = key + "(" + num(p[0]) + ", " + num(p[1]) + ")";
  return r;
}

std::size_t MemberRule::grid() const {
  std::size_t g = 1;
  for (const auto& s : sweeps) g *= s.size();
  return g;
}

void MemberRule::member(std::size_t i, double* x) const {
  std::size_t g = i / states;  // the grid point: the last axis fastest
  for (std::size_t s = sweeps.size(); s-- > 0;) {
    const std::size_t n = sweeps[s].size();
    x[s] = sweeps[s].point(g % n);
    g /= n;
  }
  double* d = x + sweeps.size();
  const std::uint32_t attempts = sampler.kind == SamplerKind::box ? max_draws : 1;
  for (std::uint32_t a = 0; a < attempts; ++a) {
    std::size_t bad = draws.size();
    for (std::size_t j = 0; j < draws.size(); ++j) {
      d[j] = draws[j].quantile(sampler(i, int(j), a));
      if (bad == draws.size() && !draws[j].admits(d[j])) bad = j;
    }
    if (bad == draws.size()) return;
    if (a + 1 == attempts)
      throw ConfigError("config /model/parameters: member " + std::to_string(i) + " draws " + draws[bad].name + " = " + num(d[bad]) +
                        " (" + draws[bad].form + "), outside the parameter's domain (> 0)" +
                        (attempts > 1 ? " in " + std::to_string(attempts) + " draws" : " (a Sobol' point has no other draw)"));
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
    s += std::string(", drawn by ") + (sampler.kind == SamplerKind::sobol ? "sobol" : "box") + " seed " + std::to_string(sampler.seed);
  return s;
}

}  // namespace lb::cli
