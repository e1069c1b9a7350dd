// The heavy top's parameters and presets as the command line reads them, shared by its entries on
// se*(3), on T*SO(3) (models_heavy_top.cpp) and as a constrained body in SE(3)
// (models_constrained.cpp): the same physical top in each.
#pragma once
#include <string>
#include <vector>

#include <liebatch/models/heavy_top.hpp>

#include "cli/models/entry_util.hpp"

namespace lb::cli {

/// The top's parameters over the default top or the Brüls–Cardona preset; the preset also gives
/// the initial state (Π, Γ), with Q(0) = I.
inline Parsed<HeavyTop<double>> parse_top(Node* p, const std::string& preset) {
  const bool bc = preset == "bruls_cardona";
  const HeavyTop<double> d =
      bc ? HeavyTop<double>::bruls_cardona() : HeavyTop<double>{vec3(2.0, 1.5, 0.8), vec3(0.1, 0.05, 0.5), 1.0, 9.81};
  const HeavyTop<double> top{vec3_of(positives(p, "inertia", 3, {d.inertia[0], d.inertia[1], d.inertia[2]})), vector3(p, "com", d.com),
                             positive(p, "mass", d.mass), positive(p, "gravity", d.gravity)};
  if (!bc) return {top, {}};
  const auto y = top.bruls_cardona_initial();
  return {top, {y.v, y.v + 6}};
}

inline const std::vector<std::string> top_parameters = {
    "inertia: [I1, I2, I3] principal moments about the fixed point (default [2, 1.5, 0.8])",
    "com: [X1, X2, X3] centre of mass in the body frame (default [0.1, 0.05, 0.5])", "mass: M > 0 (default 1)",
    "gravity: g > 0 (default 9.81)"};
inline const std::vector<std::string> top_presets = {
    "bruls_cardona: the Brüls-Cardona top of [CCLMO22 §3.4.4] (M = 15, X = (0, 1, 0), thin-disk inertia moved to "
    "the fixed point) and its initial state"};

}  // namespace lb::cli
