// The heavy top on T*SO(3) ≅ SO(3) × so*(3) in the spatial momentum π = QΠ ([CCLMO22 §3.4.1,
// eqs (21)–(22)]): π̇ = M g e₃ × QX, Q̇ = ω̂ Q with ω = Q𝕀⁻¹Qᵀπ. State (Q, π) ∈ SO(3) × ℝ³ under
// SO(3) × ℝ³ (left multiplication, translation); the body variables of the se*(3) form are
// Π = Qᵀπ, Γ = Qᵀe₃. The vertical momentum π·e₃ is conserved.
#pragma once
#include "../group_space.hpp"
#include "../product.hpp"
#include "../so3.hpp"
#include "free_rigid_body.hpp"
#include "heavy_top.hpp"

namespace lb {

template <class T> struct HeavyTopSpatial {
  using space = Product<GroupSpace<SO3<T>>, Euclidean<T, 3>>;
  static constexpr bool packs = true;  ///< runs on packs of members (docs/packs.md)
  using point = typename space::point;
  HeavyTop<T> top;  ///< the same physical parameters

  LB_HD static Mat3<T> Q(const point& y) { return Mat3<T>::from_flat(y.template seg<0, 9>()); }
  LB_HD static Vec3<T> pi(const point& y) { return y.template seg<9, 3>(); }
  /// The state as a point of T*SO(3) for the symplectic methods (methods/slgi.hpp): Q and the spatial
  /// momentum μ = π, and back.
  LB_HD static Vec3<T> mu(const point& y) { return pi(y); }
  LB_HD static point from_cotangent(const Mat3<T>& Q, const Vec3<T>& mu) { return concat(Q.flat(), mu); }
  /// For the variational integrators (methods/hamilton_pontryagin.hpp): the inertia about the fixed
  /// point and the body and spatial torques at attitude Q, the top's.
  LB_HD Vec3<T> body_inertia() const { return top.body_inertia(); }
  LB_HD Vec3<T> body_torque(const Mat3<T>& Q) const { return top.body_torque(Q); }
  LB_HD Vec3<T> spatial_torque(const Mat3<T>& Q) const { return top.spatial_torque(Q); }
  /// The body variables (Π, Γ) = (Qᵀπ, Qᵀe₃) of the se*(3) formulation.
  LB_HD static Vec6<T> body(const point& y) {
    const Mat3<T> Qt = Q(y).transpose();
    return concat(Qt * pi(y), Qt.col(2));
  }
  /// The state with attitude Q and body momenta Π.
  LB_HD static point from_body(const Mat3<T>& Q, const Vec3<T>& Pi) { return concat(Q.flat(), Q * Pi); }

  /// f(Q, π) = (ω, M g e₃ × QX), ω = Q𝕀⁻¹Qᵀπ the spatial angular velocity.
  LB_HD Vec6<T> f(T /*t*/, const point& y) const {
    const Mat3<T> q = Q(y);
    const Vec3<T> w = q * top.omega(concat(q.transpose() * pi(y), Vec3<T>::zero()));
    return concat(w, top.spatial_torque(q));
  }
  /// f(Q, π) = (∂H/∂π, −right-trivialised ∂H/∂Q) = (ω, π × ω + M g e₃ × QX) on T*SO(3), for the
  /// symplectic methods (methods/slgi.hpp, [CCLMO22 §3.2, eq. (14)]): the free body's part plus the
  /// torque of V(Q) = M g X·Qᵀe₃. Then π̇ = f₂ − ad*_{f₁}π = f₂ − π × ω is (22). Any scalar S.
  template <class S> LB_HD Vec6<S> cotangent_f(const Mat3<S>& q, const Vec3<S>& p) const {
    const Vec6<S> k = FreeRigidBody<T>{top.inertia}.cotangent_f(q, p);
    return concat(k.template seg<0, 3>(), k.template seg<3, 3>() + top.spatial_torque(q));
  }
  LB_HD T energy(const point& y) const { return top.energy(body(y)); }
  /// Recorded at output samples: (energy, π·e₃, ‖QᵀQ − I‖_max).
  LB_HD Vec<T, 3> observables(const point& y) const {
    const Mat3<T> q = Q(y), e = q.transpose() * q;
    T d = T(0);
    for (int i = 0; i < 9; ++i) {
      const T x = lb::abs(e.m[i] - (i % 4 == 0 ? T(1) : T(0)));
      d = x > d ? x : d;
    }
    return {{energy(y), pi(y)[2], d}};
  }
  static std::vector<std::string> observable_names() { return {"energy", "pi_z", "|QtQ - I|"}; }
  static std::vector<std::string> state_names() { return names::join({names::matrix("Q"), names::xyz("pi")}); }
  template <class U> LB_HD HeavyTopSpatial<U> cast() const { return {top.template cast<U>()}; }
};

}  // namespace lb
