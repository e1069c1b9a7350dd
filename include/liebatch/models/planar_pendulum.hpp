// The planar pendulum as a Euclidean index-2 DAE on ℝ² (docs/constrained.md §4): a unit point
// mass at q ∈ ℝ² on a massless rod of length ℓ from the origin, gravity −g e₂,
//   q̈ = −(0, g) − 2qλ,   Φ(q) = |q|² − ℓ² = 0,   B(q) = 2qᵀ,
// λ the rod's tension per unit length (over 2). On ℝ² the group is the translations, q̇ = v.
#pragma once
#include <string>
#include <vector>

#include "../constrained_model.hpp"
#include "../rn.hpp"

namespace lb {

template <class T> struct PlanarPendulum {
  using scalar = T;
  using group = Translation<T, 2>;
  using vec = Vec<T, 2>;
  static constexpr int constraints = 1;
  T gravity;  ///< g > 0
  T length;   ///< ℓ

  /// M = I.
  LB_HD vec inverse_mass(const group&, const vec& w) const { return w; }
  /// g(q, v, t) = (0, g): gravity moved to the left-hand side.
  LB_HD vec forces(const group&, const vec&, T) const { return vec{{T(0), gravity}}; }
  LB_HD Vec<T, 1> constraint(const group& q) const { return Vec<T, 1>{{norm2(q.t) - length * length}}; }
  LB_HD ConstraintGradient<T, 1, 2> gradient(const group& q) const { return {{T(2) * q.t}}; }
  /// d/dt(2qᵀ)·v = 2|v|² since q̇ = v.
  LB_HD Vec<T, 1> curvature(const group&, const vec& v) const { return Vec<T, 1>{{T(2) * norm2(v)}}; }

  /// E = ½|v|² + g q_y.
  LB_HD T energy(const group& q, const vec& v) const { return T(0.5) * norm2(v) + gravity * q.t[1]; }
  static std::vector<std::string> configuration_names() { return {"q_x", "q_y"}; }
  static std::vector<std::string> velocity_names() { return {"v_x", "v_y"}; }
  template <class U> LB_HD PlanarPendulum<U> cast() const { return {U(gravity), U(length)}; }

  /// The state at angle φ from the downward vertical and angular velocity φ̇:
  /// q = ℓ(sin φ, −cos φ), v = ℓφ̇(cos φ, sin φ) (λ left to consistent_multiplier).
  LB_HD group position(T phi) const { return {vec{{length * lb::sin(phi), -length * lb::cos(phi)}}}; }
  LB_HD vec velocity(T phi, T phidot) const { return (length * phidot) * vec{{lb::cos(phi), lb::sin(phi)}}; }
};

}  // namespace lb
