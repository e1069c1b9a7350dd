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

/// What the heavy top's entries share: the table, the default top or the Brüls–Cardona preset, and
/// the preset's initial state (Π, Γ) for the top's parameters, with Q(0) = I.
struct TopEntry {
  using parameters = HeavyTop<double>;
  static std::span<const Param<HeavyTop<double>>> table() { return top_params; }
  static HeavyTop<double> base(const std::string& preset) {
    return preset == "bruls_cardona" ? HeavyTop<double>::bruls_cardona() : default_top();
  }
  static std::vector<double> body_initial(const HeavyTop<double>& top, const std::string& preset) {
    if (preset != "bruls_cardona") return {};
    const auto y = top.bruls_cardona_initial();
    return {y.v, y.v + 6};
  }
};

inline const std::vector<std::string> top_presets = {
    "bruls_cardona: the Brüls-Cardona top of [CCLMO22 §3.4.4] (M = 15, X = (0, 1, 0), thin-disk inertia moved to "
    "the fixed point) and its initial state"};

}  // namespace lb::cli
