// Command-line entries: the heavy top on se*(3) (Lie–Poisson) and on T*SO(3) (spatial momentum).
#include <liebatch/models/heavy_top_spatial.hpp>

#include "entry_util.hpp"

namespace lb::cli {
namespace {

/// The top's parameters over the default top or the Brüls–Cardona preset; the preset also gives
/// the initial state (Π, Γ), with Q(0) = I.
Parsed<HeavyTop<double>> parse_top(Node* p, const std::string& preset) {
  const bool bc = preset == "bruls_cardona";
  const HeavyTop<double> d = bc ? HeavyTop<double>::bruls_cardona()
                                : HeavyTop<double>{vec3(2.0, 1.5, 0.8), vec3(0.1, 0.05, 0.5), 1.0, 9.81};
  const HeavyTop<double> top{vec3_of(positives(p, "inertia", 3, {d.inertia[0], d.inertia[1], d.inertia[2]})),
                             vector3(p, "com", d.com), positive(p, "mass", d.mass), positive(p, "gravity", d.gravity)};
  if (!bc) return {top, {}};
  const auto y = top.bruls_cardona_initial();
  return {top, {y.v, y.v + 6}};
}

struct HeavyTopEntry {
  static constexpr const char* name = "heavy_top";
  template <class T> using model = HeavyTop<T>;
  static Parsed<HeavyTop<double>> parse(Node* p, const std::string& preset) { return parse_top(p, preset); }
};

struct HeavyTopSpatialEntry {
  static constexpr const char* name = "heavy_top_spatial";
  template <class T> using model = HeavyTopSpatial<T>;
  static Parsed<HeavyTopSpatial<double>> parse(Node* p, const std::string& preset) {
    auto [top, y] = parse_top(p, preset);
    if (y.empty()) return {{top}, {}};
    const auto x = HeavyTopSpatial<double>::from_body(Mat3<double>::identity(), vec3(y[0], y[1], y[2]));
    return {{top}, {x.v, x.v + 12}};
  }
};

}  // namespace

void add_heavy_top_models(std::vector<ModelInfo>& v) {
  const std::vector<std::string> params = {
      "inertia: [I1, I2, I3] principal moments about the fixed point (default [2, 1.5, 0.8])",
      "com: [X1, X2, X3] centre of mass in the body frame (default [0.1, 0.05, 0.5])",
      "mass: M > 0 (default 1)", "gravity: g > 0 (default 9.81)"};
  const std::vector<std::string> presets = {
      "bruls_cardona: the Brüls-Cardona top of [CCLMO22 §3.4.4] (M = 15, X = (0, 1, 0), thin-disk inertia moved to "
      "the fixed point) and its initial state"};
  v.push_back(info<HeavyTopEntry>("heavy top, Lie-Poisson equations on se*(3) ([CCLMO22] eqs 23-24)",
                                  "Pi (3): body angular momentum, Gamma (3): gravity direction in the body (|Gamma| = 1)",
                                  params, presets));
  v.push_back(info<HeavyTopSpatialEntry>("heavy top on T*SO(3) in the spatial momentum ([CCLMO22] eqs 21-22)",
                                         "Q (9, row-major attitude), pi (3): spatial angular momentum", params, presets));
}

}  // namespace lb::cli
