// Per-member model parameters: any number of a model's parameter table may be a sweep (values,
// linspace, logspace) or a distribution (uniform, normal, lognormal). Sweeps form a grid of G
// points, the product in the order of the model's table (`liebatch list models`), the first
// slowest; with N₀ initial states the members are G·N₀, member i = g·N₀ + k taking grid point g and
// initial state k. Distributions are drawn per member through the inverse CDF of a UnitSampler
// point (box: Philox; or Sobol'), a pure function of (seed, member, draw), so every batch, and
// later every rank, makes its own members, identical on the CPU and the GPU.
#pragma once
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <liebatch/sampling/unit_sampler.hpp>

namespace lb::cli {

/// The most members a config may ask for: initial states, and their product with a sweep's grid.
inline constexpr long max_members = 1L << 40;

/// Whether float cannot hold x: past its range, or nonzero below its smallest normal.
inline bool float_cannot_hold(double x) {
  return std::abs(x) > std::numeric_limits<float>::max() || (x != 0 && std::abs(x) < std::numeric_limits<float>::min());
}

/// x with 17 significant digits (as a double reads back), for messages naming a value.
std::string full_digits(double x);

/// How one number of a parameter varies over the members.
struct Variation {
  enum Kind { sweep, uniform, normal, lognormal } kind = sweep;
  std::vector<double> points;    ///< a sweep's listed values; empty for linspace and logspace (made by point())
  double a = 0, b = 0;           ///< linspace: ends; logspace: their exponents; uniform: [a, b]; normal: mean,
                                 ///< standard deviation; lognormal: those of ln x
  std::size_t count = 0;         ///< linspace, logspace: points
  bool log = false;              ///< logspace
  int param = 0, component = 0;  ///< the number it sets: the table's parameter, and the index within it
  bool positive = false;         ///< the parameter's domain: > 0 (else any finite number)
  std::string name;              ///< "mass", "com[1]": for messages
  std::string form;              ///< as given, e.g. "linspace(0, 21, 4096)"
  std::string path;              ///< its place in the config, "/model/parameters/com/1/normal"
  /// A sweep's points, and point j: listed, or numpy's linspace (a + j·((b − a)/(n − 1)), the last
  /// point b itself) and logspace (10 to that power).
  std::size_t size() const { return points.empty() ? count : points.size(); }
  double point(std::size_t j) const;
  /// The draw at u, a point of a sampler's lattice in [0, 1) of spacing `cell` (box: 2⁻⁵³, Sobol':
  /// 2⁻³²): the inverse CDF at the middle of u's cell, so never ±∞.
  double quantile(double u, double cell) const;
  /// Whether the parameter takes x: finite, and > 0 where it must be.
  bool admits(double x) const { return std::isfinite(x) && (!positive || x > 0); }
  /// The domain, for messages: "a number > 0" or "a finite number".
  const char* domain() const { return positive ? "a number > 0" : "a finite number"; }
};

/// A parameter number as the config gives it: a number (written to `x`, nothing returned) or an
/// object with one key, {"values": [...]}, {"linspace": [a, b, n]}, {"logspace": [a, b, n]}
/// (10^a … 10^b, as numpy's), {"uniform": [a, b]}, {"normal": [mean, sd]} or {"lognormal": [mean,
/// sd] of ln x}. A sweep's value outside the domain is refused, naming the path and the value.
std::optional<Variation> read_variation(const nlohmann::json& v, const std::string& path, bool positive, double& x);

/// Every variation of a model's parameters, and which members take which values.
struct MemberRule {
  std::vector<Variation> sweeps, draws;  ///< sweeps in the table's order: the grid's axes, first slowest
  UnitSampler sampler;                   ///< of the draws: box (default) or sobol, one dimension per draw
  std::size_t states = 1;                ///< N₀: member i takes initial state i mod N₀ and grid point i / N₀
  bool single = false;                   ///< a float run: a member's number that float cannot hold is refused
  bool varies() const { return !sweeps.empty() || !draws.empty(); }
  /// G, the grid's points (1 without sweeps).
  std::size_t grid() const;
  /// Member i's numbers, sweeps first, then draws. A draw outside its domain is drawn again (box:
  /// up to 1000 draws) or refused (ConfigError naming the member, the parameter and the value), as
  /// is, in a float run, a number float cannot hold.
  std::vector<double> member(std::size_t i) const;
  /// The same into x[0, numbers()), allocating nothing (member by member, in the run's loops).
  void member(std::size_t i, double* x) const;
  /// How many numbers vary: sweeps, then draws.
  std::size_t numbers() const { return sweeps.size() + draws.size(); }
  /// "rho: linspace(0, 21, 4096); mass: normal(15, 0.15), box seed 3": recorded in the output.
  std::string describe() const;
};

}  // namespace lb::cli
