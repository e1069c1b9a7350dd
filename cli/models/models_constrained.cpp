// Command-line entries: the constrained systems, stepped by the half-explicit methods (hedop5;
// docs/constrained.md): the heavy top as a free body in SE(3) held at its fixed point, the same
// physical top as heavy_top's, and the planar pendulum on R^2. A state is (q, v, lambda); a config
// may give (q, v) alone and the multiplier is completed (Runner::complete).
#include <cmath>

#include "cli/models/constrained_models.hpp"
#include "cli/models/heavy_top_entry.hpp"

namespace lb::cli {
namespace {

struct HeavyTopSe3Entry : TopEntry {
  static constexpr const char* name = "heavy_top_se3";
  template <class T> using model = HeavyTopSe3<T>;
  static HeavyTopSe3<double> make(const HeavyTop<double>& top) { return {ConstrainedHeavyTop<double>::from_heavy_top(top)}; }
  /// The preset's (Π, Γ = e₃) with R = I as (q, v, λ): Ω = 𝕀⁻¹Π, x = Rχ, U = Ω × χ, λ consistent.
  static std::vector<double> initial(const HeavyTop<double>& top, const std::string& preset) {
    const auto y = body_initial(top, preset);
    if (y.empty()) return {};
    const auto m = make(top);
    const Vec3<double> omega = vec3(y[0] / top.inertia[0], y[1] / top.inertia[1], y[2] / top.inertia[2]);
    const auto x = m.initial(m.system.configuration(Mat3<double>::identity()), m.system.velocity(omega));
    return {x.v, x.v + HeavyTopSe3<double>::space::dim};
  }
};

using Pendulum = PlanarPendulum<double>;
const Param<Pendulum> pendulum_params[] = {
    member<&Pendulum::gravity>("gravity", Domain::positive, "g along -y"),
    member<&Pendulum::length>("length", Domain::positive, "the rod's"),
};

struct PlanarPendulumEntry {
  static constexpr const char* name = "planar_pendulum";
  template <class T> using model = PlanarPendulumSystem<T>;
  using parameters = Pendulum;
  static std::span<const Param<Pendulum>> table() { return pendulum_params; }
  static Pendulum base(const std::string&) { return {9.81, 1.0}; }
  static PlanarPendulumSystem<double> make(const Pendulum& p) { return {p}; }
  /// [Notes]'s PEND2D: φ₀ = 0.7 from the downward vertical, φ̇₀ = 0.3.
  static std::vector<double> initial(const Pendulum& p, const std::string& preset) {
    if (preset.empty()) return {};
    const auto m = make(p);
    const auto x = m.initial(m.system.position(0.7), m.system.velocity(0.7, 0.3));
    return {x.v, x.v + PlanarPendulumSystem<double>::space::dim};
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
      top_presets));
  v.push_back(info<PlanarPendulumEntry>(
      "planar pendulum on R^2 as an index-2 DAE, q'' = -(0, g) - 2 q lambda, |q| = length; method hedop5 only",
      "q (2), v (2), lambda (1): rod tension per unit length over 2. Give (q, v) (4 numbers) and lambda is completed; "
      "|q|^2 = length^2 and q.v = 0",
      {"pend2d: phi0 = 0.7 from the downward vertical, phi0' = 0.3"}));
}

}  // namespace lb::cli
