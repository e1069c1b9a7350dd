// Command-line entries: the constrained systems, stepped by the half-explicit methods (hedop5;
// docs/constrained.md): the heavy top as a free body in SE(3) held at its fixed point, the same
// physical top as heavy_top's, and the planar pendulum on R^2. A state is (q, v, lambda); a config
// may give (q, v) alone and the multiplier is completed (Runner::complete).
#include <cmath>

#include "cli/models/constrained_models.hpp"
#include "cli/models/heavy_top_entry.hpp"

namespace lb::cli {
namespace {

struct HeavyTopSe3Entry {
  static constexpr const char* name = "heavy_top_se3";
  template <class T> using model = HeavyTopSe3<T>;
  /// The preset's (Π, Γ = e₃) with R = I as (q, v, λ): Ω = 𝕀⁻¹Π, x = Rχ, U = Ω × χ, λ consistent.
  static Parsed<HeavyTopSe3<double>> parse(Node* p, const std::string& preset) {
    const auto [top, y] = parse_top(p, preset);
    const HeavyTopSe3<double> m{ConstrainedHeavyTop<double>::from_heavy_top(top)};
    if (y.empty()) return {m, {}};
    const Vec3<double> omega = vec3(y[0] / top.inertia[0], y[1] / top.inertia[1], y[2] / top.inertia[2]);
    const auto x = m.initial(m.system.configuration(Mat3<double>::identity()), m.system.velocity(omega));
    return {m, {x.v, x.v + HeavyTopSe3<double>::space::dim}};
  }
};

const PlanarPendulumSystem<double> default_pendulum{{9.81, 1.0}};
const Param<PlanarPendulumSystem<double>> pendulum_params[] = {
    {"gravity", 1, Domain::positive, "g along -y", [](const PlanarPendulumSystem<double>& m, double* v) { *v = m.system.gravity; },
     [](PlanarPendulumSystem<double>& m, const double* v) { m.system.gravity = *v; }},
    {"length", 1, Domain::positive, "the rod's", [](const PlanarPendulumSystem<double>& m, double* v) { *v = m.system.length; },
     [](PlanarPendulumSystem<double>& m, const double* v) { m.system.length = *v; }},
};

struct PlanarPendulumEntry {
  static constexpr const char* name = "planar_pendulum";
  template <class T> using model = PlanarPendulumSystem<T>;
  /// [Notes]'s PEND2D: φ₀ = 0.7 from the downward vertical, φ̇₀ = 0.3.
  static Parsed<PlanarPendulumSystem<double>> parse(Node* p, const std::string& preset) {
    PlanarPendulumSystem<double> m{default_pendulum};
    read_params<PlanarPendulumSystem<double>>(p, pendulum_params, m);
    if (preset.empty()) return {m, {}};
    const auto x = m.initial(m.system.position(0.7), m.system.velocity(0.7, 0.3));
    return {m, {x.v, x.v + PlanarPendulumSystem<double>::space::dim}};
  }
};

}  // namespace

void add_constrained_models(std::vector<ModelInfo>& v) {
  v.push_back(info<HeavyTopSe3Entry>(
      "heavy top as a free body in SE(3) held at its fixed point, index-2 DAE ([ArnHE] Fig. 1; the same physical top as "
      "heavy_top); method hedop5 only",
      "R (9, row-major attitude), x (3): centre of mass; Omega (3): body angular velocity, U (3): centre-of-mass "
      "velocity in the body frame; lambda (3): multiplier, minus the reaction at the fixed point. Give (R, x, Omega, U) "
      "(18 numbers) and lambda is completed; Phi = R^T x - com = 0 and B v = U + (R^T x) x Omega = 0",
      top_parameters(), top_presets));
  v.push_back(info<PlanarPendulumEntry>(
      "planar pendulum on R^2 as an index-2 DAE, q'' = -(0, g) - 2 q lambda, |q| = length; method hedop5 only",
      "q (2), v (2), lambda (1): rod tension per unit length over 2. Give (q, v) (4 numbers) and lambda is completed; "
      "|q|^2 = length^2 and q.v = 0",
      help_lines<PlanarPendulumSystem<double>>(pendulum_params, default_pendulum),
      {"pend2d: phi0 = 0.7 from the downward vertical, phi0' = 0.3"}));
}

}  // namespace lb::cli
