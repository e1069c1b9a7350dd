// The free rigid body with its attitude, on SO(3) × so*(3) (the T*SO(3) form, [CCLMO22 §3]):
// Q̇ = Q Ω̂ = (QΩ)^ Q, Π̇ = Π × Ω, Ω = 𝕀⁻¹Π. The spatial momentum QΠ is conserved.
#pragma once
#include "../coadjoint.hpp"
#include "../double_word.hpp"
#include "../group_space.hpp"
#include "../product.hpp"
#include "free_rigid_body.hpp"

namespace lb {

template <class T> struct RigidBodyAttitude {
  using space = Product<GroupSpace<SO3<T>>, CoadjointSO3<T>>;
  static constexpr bool packs = true;  ///< runs on packs of members (docs/packs.md)
  using point = typename space::point;
  FreeRigidBody<T> body;  ///< inertia

  LB_HD static Mat3<T> Q(const point& y) { return Mat3<T>::from_flat(y.template seg<0, 9>()); }
  LB_HD static Vec3<T> Pi(const point& y) { return y.template seg<9, 3>(); }
  /// The state as a point of T*SO(3) for the symplectic methods (methods/slgi.hpp): Q and the spatial
  /// momentum μ = QΠ, and back, Π = Q⁻¹μ. Both ways nearly correctly rounded (Dot2 [ORO05], and Π
  /// refined once against the residual μ − QΠ): converting with Qᵀ, Q's orthogonality defect
  /// (~1e-14, the same from step to step) turned μ the same way every step, and plain rounding
  /// left a few ulps a step; the conserved QΠ drifted linearly (1e-11 over 10⁴ steps). What
  /// remains is half an ulp each way, a random walk (docs/symplectic.md §9).
  LB_HD static Vec3<T> mu(const point& y) {
    const Mat3<T> q = Q(y);
    const Vec3<T> p = Pi(y);
    return {{dot2(q.row(0), p), dot2(q.row(1), p), dot2(q.row(2), p)}};
  }
  LB_HD static point from_cotangent(const Mat3<T>& Q, const Vec3<T>& mu) {
    const Vec3<T> c0 = Q.col(0), c1 = Q.col(1), c2 = Q.col(2);
    const Vec3<T> r0 = cross(c1, c2), r1 = cross(c2, c0), r2 = cross(c0, c1);  // the rows of det(Q) Q⁻¹
    const T det = dot(c0, r0);
    auto solve = [&](const Vec3<T>& b) { return Vec3<T>{{dot(r0, b) / det, dot(r1, b) / det, dot(r2, b) / det}}; };
    const Vec3<T> p = solve(mu);
    const Vec3<T> residual{{dot2(-Q.row(0), p, mu[0]), dot2(-Q.row(1), p, mu[1]), dot2(-Q.row(2), p, mu[2])}};
    return concat(Q.flat(), p + solve(residual));
  }
  /// f(Q, Π) = (QΩ, −Ω): left multiplication by exp of the spatial angular velocity, and the
  /// coadjoint flow of so*(3).
  LB_HD Vec6<T> f(T t, const point& y) const {
    const Vec3<T> W = -body.f(t, Pi(y));  // Ω = 𝕀⁻¹Π
    return concat(Q(y) * W, -W);
  }
  /// f on T*SO(3) in the spatial momentum μ = QΠ (methods/slgi.hpp): FreeRigidBody::cotangent_f.
  template <class S> LB_HD Vec6<S> cotangent_f(const Mat3<S>& Q, const Vec3<S>& mu) const {
    return body.cotangent_f(Q, mu);
  }
  /// For the variational integrators (methods/hamilton_pontryagin.hpp): the inertia, and no torque.
  LB_HD Vec3<T> body_inertia() const { return body.inertia; }
  LB_HD Vec3<T> body_torque(const Mat3<T>&) const { return Vec3<T>::zero(); }
  /// The spatial angular momentum QΠ (conserved).
  LB_HD Vec3<T> spatial_momentum(const point& y) const { return mu(y); }
  /// Recorded at output samples: (energy, |Π|).
  LB_HD Vec<T, 2> observables(const point& y) const { return {{body.energy(Pi(y)), norm(Pi(y))}}; }
  static std::vector<std::string> observable_names() { return {"energy", "|Pi|"}; }
  static std::vector<std::string> state_names() { return names::join({names::matrix("Q"), names::xyz("Pi")}); }
  template <class U> LB_HD RigidBodyAttitude<U> cast() const { return {body.template cast<U>()}; }
};

}  // namespace lb
