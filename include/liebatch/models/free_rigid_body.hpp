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
