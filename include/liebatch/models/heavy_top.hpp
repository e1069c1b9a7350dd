// The heavy top as a Lie–Poisson system on se*(3) (paper 2022 §3.4, eqs (23)–(24)):
//   Π̇ = Π × 𝕀⁻¹Π + M g Γ × X,   Γ̇ = Γ × 𝕀⁻¹Π,
// Π the body angular momentum, Γ the upward vertical in the body frame, X the centre of mass
// (from the fixed point, body frame, length included). Conventions fixed here once: g > 0 is the
// magnitude of gravity and Γ is a unit vector pointing up, so the potential is M g X·Γ.
#pragma once
#include "../coadjoint.hpp"

namespace lb {

template <class T> struct HeavyTop {
  using space = CoadjointSE3<T>;
  using point = typename space::point;
  Vec3<T> inertia;  ///< principal moments of inertia about the fixed point
  Vec3<T> com;      ///< centre of mass X in the body frame
  T mass;           ///< M
  T gravity;        ///< g > 0

  LB_HD Vec3<T> omega(const point& y) const {
    return vec3(y[0] / inertia[0], y[1] / inertia[1], y[2] / inertia[2]);
  }
  /// f(Π, Γ) = (−𝕀⁻¹Π, −M g X): ψ_*(f)|_(Π,Γ) = (Π × 𝕀⁻¹Π + M g Γ × X, Γ × 𝕀⁻¹Π).
  LB_HD Vec6<T> f(T /*t*/, const point& y) const { return concat(-omega(y), (-mass * gravity) * com); }
  /// H = ½ Π·𝕀⁻¹Π + M g X·Γ.
  LB_HD T energy(const point& y) const {
    const Vec3<T> P = y.template seg<0, 3>(), G = y.template seg<3, 3>();
    return T(0.5) * dot(P, omega(y)) + mass * gravity * dot(com, G);
  }
  /// Casimirs |Γ| and Π·Γ (the latter is the vertical angular momentum).
  LB_HD T gamma_norm(const point& y) const { return norm(y.template seg<3, 3>()); }
  LB_HD T vertical_momentum(const point& y) const { return dot(y.template seg<0, 3>(), y.template seg<3, 3>()); }
};

}  // namespace lb
