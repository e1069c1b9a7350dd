// Coadjoint orbits: so*(3) under SO(3) and se*(3) under SE(3), the phase spaces of the free rigid
// body and the heavy top ([CCLMO22 §3]).
#pragma once
#include "se3.hpp"
#include "sphere.hpp"

namespace lb {

/// so*(3) ≅ ℝ³ under the coadjoint action g·μ = R μ, ψ_*(ξ)|_μ = ξ × μ: ℝ³ under rotation, whose
/// orbits are the spheres |μ| = const (the Casimir): S²'s action on all of ℝ³, where every μ lies
/// on its orbit.
template <class T> struct CoadjointSO3 : S2<T> {
  LB_HD static T defect(const Vec3<T>&) { return T(0); }
  LB_HD static Vec3<T> project(const Vec3<T>& mu) { return mu; }
};

/// se*(3) ≅ ℝ⁶ ∋ (Π, Γ) with (R, u)·(Π, Γ) = (R Π + u × R Γ, R Γ) and
/// ψ_*(ξ, η)|_(Π,Γ) = (ξ × Π + η × Γ, ξ × Γ). Casimirs: |Γ| and Π·Γ.
template <class T> struct CoadjointSE3 {
  using scalar = T;
  using algebra = se3<T>;
  using group = SE3<T>;
  static constexpr int dim = 6;
  using point = Vec6<T>;

  LB_HD static point act(const group& g, const point& y) {
    const Vec3<T> RG = g.R * y.template seg<3, 3>();
    return concat(g.R * y.template seg<0, 3>() + cross(g.t, RG), RG);
  }
  LB_HD static point exp_act(const Vec6<T>& u, const point& y) { return act(group::exp(u), y); }
  LB_HD static point generator(const Vec6<T>& u, const point& y) {
    const Vec3<T> xi = u.template seg<0, 3>(), eta = u.template seg<3, 3>();
    const Vec3<T> P = y.template seg<0, 3>(), G = y.template seg<3, 3>();
    return concat(cross(xi, P) + cross(eta, G), cross(xi, G));
  }
  /// Every (Π, Γ) lies on its orbit (a model may narrow it: the heavy top's |Γ| = 1).
  LB_HD static T defect(const point&) { return T(0); }
  LB_HD static point project(const point& y) { return y; }
};

}  // namespace lb
