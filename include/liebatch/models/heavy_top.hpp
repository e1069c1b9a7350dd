// The heavy top as a Lie–Poisson system on se*(3) ([CCLMO22 §3.4.2, eqs (23)–(24)]):
//   Π̇ = Π × 𝕀⁻¹Π + M g Γ × X,   Γ̇ = Γ × 𝕀⁻¹Π,
// Π the body angular momentum, Γ the upward vertical in the body frame, X the centre of mass
// (from the fixed point, body frame, length included). Conventions fixed here once: g > 0 is the
// magnitude of gravity and Γ is a unit vector pointing up, so the potential is M g X·Γ.
#pragma once
#include "../coadjoint.hpp"
#include "names.hpp"

namespace lb {

template <class T> struct HeavyTop {
  using space = CoadjointSE3<T>;
  static constexpr bool packs = true;  ///< runs on packs of members (docs/packs.md)
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
  /// y with Π scaled by λ (kinetic energy × λ², Γ kept).
  LB_HD point scale_velocity(point y, T lambda) const {
    y.set_seg(0, lambda * y.template seg<0, 3>());
    return y;
  }
  /// For the variational integrators (methods/hamilton_pontryagin.hpp), which step the body form
  /// R′ = R Ω̂, JΩ′ = (JΩ) × Ω + τ_b(R) with the attitude R: J = diag(inertia) about the fixed point.
  LB_HD Vec3<T> body_inertia() const { return inertia; }
  /// The body torque τ_b(R) = g ∂ℓ/∂g = M g Γ × X with Γ = Rᵀe₃ (minus the left-trivialised dV).
  LB_HD Vec3<T> body_torque(const Mat3<T>& R) const { return (mass * gravity) * cross(R.row(2), com); }
  /// The spatial torque R τ_b(R) = M g e₃ × RX (RΓ = e₃), in any scalar S: its e₃-component is 0 in
  /// floating point, which keeps e₃·μ to the bit in hp_step_spatial.
  template <class S> LB_HD Vec3<S> spatial_torque(const Mat3<S>& R) const {
    return S(mass * gravity) * cross(vec3(S(0), S(0), S(1)), R * lb::cast<S>(com));
  }
  /// Casimirs |Γ| and Π·Γ (the latter is the vertical angular momentum).
  LB_HD T gamma_norm(const point& y) const { return norm(y.template seg<3, 3>()); }
  LB_HD T vertical_momentum(const point& y) const { return dot(y.template seg<0, 3>(), y.template seg<3, 3>()); }
  /// The Brüls–Cardona heavy top ([CCLMO22 §3.4.4], from [BC10]): M = 15, X = (0, 1, 0),
  /// g = 9.81 and the inertia of a thin disk about its centre of mass, J = diag(0.234375, 0.46875,
  /// 0.234375), moved to the fixed point by the parallel-axis theorem (J + M(|X|²I − XXᵀ)), since
  /// the equations take the inertia about the fixed point.
  LB_HD static HeavyTop bruls_cardona() {
    const T m = T(15);
    return {vec3(T(0.234375) + m, T(0.46875), T(0.234375) + m), vec3(T(0), T(1), T(0)), m, T(981) / T(100)};
  }
  /// Its initial state with Q(0) = I: Π = 𝕀ω(0), ω(0) = (0, 150, −4.61538), Γ = e₃ (up).
  LB_HD point bruls_cardona_initial() const {
    const Vec3<T> w0 = vec3(T(0), T(150), T(-4.61538));
    return concat(vec3(inertia[0] * w0[0], inertia[1] * w0[1], inertia[2] * w0[2]), vec3(T(0), T(0), T(1)));
  }

  /// Recorded at output samples: (energy, |Γ|, Π·Γ).
  LB_HD Vec<T, 3> observables(const point& y) const { return {{energy(y), gamma_norm(y), vertical_momentum(y)}}; }
  static std::vector<std::string> observable_names() { return {"energy", "|Gamma|", "Pi.Gamma"}; }
  static std::vector<std::string> state_names() { return names::join({names::xyz("Pi"), names::xyz("Gamma")}); }
  /// The states: se*(3) with Γ a unit vector (a direction), | |Γ| − 1 |; and Γ normalised.
  LB_HD static T defect(const point& y) { return S2<T>::defect(y.template seg<3, 3>()); }
  LB_HD static point project(point y) {
    y.set_seg(3, S2<T>::project(y.template seg<3, 3>()));
    return y;
  }
  /// The same top in scalar U.
  template <class U> LB_HD HeavyTop<U> cast() const { return {lb::cast<U>(inertia), lb::cast<U>(com), U(mass), U(gravity)}; }
};

}  // namespace lb
