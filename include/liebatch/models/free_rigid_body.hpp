// The free rigid body on so*(3) under the coadjoint action ([CCLMO22 §3]): μ̇ = μ × 𝕀⁻¹μ.
#pragma once
#include "../coadjoint.hpp"
#include "names.hpp"

namespace lb {

/// Body angular momentum μ ∈ so*(3), principal moments of inertia I₁, I₂, I₃.
template <class T> struct FreeRigidBody {
  using space = CoadjointSO3<T>;
  static constexpr bool packs = true;  ///< runs on packs of members (docs/packs.md)
  using point = typename space::point;
  Vec3<T> inertia;  ///< principal moments of inertia

  /// f(μ) = −𝕀⁻¹μ, so that ψ_*(f(μ))|_μ = −𝕀⁻¹μ × μ = μ × 𝕀⁻¹μ (the paper's +𝕀⁻¹μ has the wrong sign).
  LB_HD Vec3<T> f(T /*t*/, const point& mu) const {
    return vec3(-mu[0] / inertia[0], -mu[1] / inertia[1], -mu[2] / inertia[2]);
  }
  /// The body with attitude Q on T*SO(3) in the spatial momentum μ = QΠ, for the symplectic methods
  /// (methods/slgi.hpp): f(Q, μ) = (∂H/∂μ, −right-trivialised ∂H/∂Q) = (ω, μ × ω), ω = Q𝕀⁻¹Qᵀμ,
  /// H = ½ μ·Q𝕀⁻¹Qᵀμ ([CCLMO22 §3.2, eq. (14)]; the R-derivative of H at fixed μ is ω × μ). Any
  /// scalar S, so Dual numbers give its exact Jacobian.
  template <class S> LB_HD Vec6<S> cotangent_f(const Mat3<S>& Q, const Vec3<S>& mu) const {
    const Vec3<S> P = Q.transpose() * mu;
    const Vec3<S> w = Q * vec3(P[0] / S(inertia[0]), P[1] / S(inertia[1]), P[2] / S(inertia[2]));
    return concat(w, cross(mu, w));
  }
  /// Kinetic energy ½ μ·𝕀⁻¹μ.
  LB_HD T energy(const point& mu) const {
    return T(0.5) * (mu[0] * mu[0] / inertia[0] + mu[1] * mu[1] / inertia[1] + mu[2] * mu[2] / inertia[2]);
  }
  /// μ scaled by λ (energy × λ²).
  LB_HD point scale_velocity(const point& mu, T lambda) const { return lambda * mu; }
  /// The Casimir |μ| (kept to round-off by every Lie group method).
  LB_HD T casimir(const point& mu) const { return norm(mu); }
  /// Recorded at output samples: (energy, |μ|).
  LB_HD Vec<T, 2> observables(const point& mu) const { return {{energy(mu), casimir(mu)}}; }
  static std::vector<std::string> observable_names() { return {"energy", "casimir |mu|"}; }
  static std::vector<std::string> state_names() { return names::xyz("mu"); }
  template <class U> LB_HD FreeRigidBody<U> cast() const { return {lb::cast<U>(inertia)}; }
};

}  // namespace lb
