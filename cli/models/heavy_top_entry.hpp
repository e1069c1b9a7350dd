// The heavy top's parameters and presets as the command line reads them, shared by its entries on
// se*(3), on T*SO(3) (models_heavy_top.cpp) and as a constrained body in SE(3)
// (models_constrained.cpp): the same physical top in each.
#pragma once
#include <string>
#include <vector>

#include <liebatch/models/heavy_top.hpp>

#include "cli/models/entry_util.hpp"

namespace lb::cli {

/// The default top of the command line (the Brüls–Cardona top is the preset).
inline HeavyTop<double> default_top() { return {vec3(2.0, 1.5, 0.8), vec3(0.1, 0.05, 0.5), 1.0, 9.81}; }

inline const Param<HeavyTop<double>> top_params[] = {
    member<&HeavyTop<double>::inertia>("inertia", Domain::positive, "[I1, I2, I3] principal moments about the fixed point"),
    member<&HeavyTop<double>::com>("com", Domain::finite, "[X1, X2, X3] centre of mass in the body frame"),
    member<&HeavyTop<double>::mass>("mass", Domain::positive, "M"),
    member<&HeavyTop<double>::gravity>("gravity", Domain::positive, "g"),
};

/// The top's parameters over the default top or the Brüls–Cardona preset; the preset also gives
/// the initial state (Π, Γ), with Q(0) = I.
inline Parsed<HeavyTop<double>> parse_top(Node* p, const std::string& preset) {
  const bool bc = preset == "bruls_cardona";
  HeavyTop<double> top = bc ? HeavyTop<double>::bruls_cardona() : default_top();
  read_params<HeavyTop<double>>(p, top_params, top);
  if (!bc) return {top, {}};
  const auto y = top.bruls_cardona_initial();
  return {top, {y.v, y.v + 6}};
}

inline std::vector<std::string> top_parameters() { return help_lines<HeavyTop<double>>(top_params, default_top()); }
inline const std::vector<std::string> top_presets = {
    "bruls_cardona: the Brüls-Cardona top of [CCLMO22 §3.4.4] (M = 15, X = (0, 1, 0), thin-disk inertia moved to "
    "the fixed point) and its initial state"};

}  // namespace lb::cli
