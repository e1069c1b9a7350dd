// Command-line entries: the heavy top on se*(3) (Lie–Poisson) and on T*SO(3) (spatial momentum).
#include <liebatch/models/heavy_top_spatial.hpp>

#include "heavy_top_entry.hpp"

namespace lb::cli {
namespace {

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
  const auto& params = top_parameters;
  const auto& presets = top_presets;
  v.push_back(info<HeavyTopEntry>("heavy top, Lie-Poisson equations on se*(3) ([CCLMO22] eqs 23-24)",
                                  "Pi (3): body angular momentum, Gamma (3): gravity direction in the body (|Gamma| = 1)",
                                  params, presets));
  v.push_back(info<HeavyTopSpatialEntry>("heavy top on T*SO(3) in the spatial momentum ([CCLMO22] eqs 21-22)",
                                         "Q (9, row-major attitude), pi (3): spatial angular momentum", params, presets));
}

}  // namespace lb::cli
