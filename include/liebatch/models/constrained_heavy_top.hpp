// The heavy top as a free rigid body in SE(3) held at a point by a constraint ([ArnHE] Fig. 1,
// the formulation of [BC10]; docs/constrained.md §4). q = (R, x): the attitude and the centre of
// mass x in the spatial frame, the fixed point at the origin; v = (Ω, U): the body angular
// velocity and the centre of mass's velocity in the body frame, so q̇ = q·ṽ reads Ṙ = RΩ̂, ẋ = RU.
//   J_c Ω̇ + Ω × J_cΩ = y × λ,   m(U̇ + Ω × U) = m Rᵀg⃗ − λ,   Φ(q) = y − χ = 0,   y = Rᵀx,
// J_c the inertia about the centre of mass, χ the centre of mass from the fixed point in the body
// frame, g⃗ = (0, 0, −g), and −λ the reaction at the fixed point in the body frame.
#pragma once
#include <string>
#include <vector>

#include "../constrained_model.hpp"
#include "../se3.hpp"
#include "heavy_top.hpp"
#include "names.hpp"

namespace lb {

template <class T> struct ConstrainedHeavyTop {
  using scalar = T;
  using group = SE3<T>;
  using vec = Vec6<T>;
  static constexpr int constraints = 3;
  Mat3<T> inertia_cm;      ///< J_c
  Mat3<T> inertia_cm_inv;  ///< J_c⁻¹
  Vec3<T> com;             ///< χ
  T mass;                  ///< m
  T gravity;               ///< g > 0

  /// The same physical top as `top` (HeavyTop: principal inertia 𝕀 about the fixed point, centre
  /// of mass X): J_c = 𝕀 − m(|X|²I − XXᵀ) by the parallel-axis theorem, with |X|²I − XXᵀ = −X̂².
  LB_HD static ConstrainedHeavyTop from_heavy_top(const HeavyTop<T>& top) {
    const Mat3<T> I_fixed{{top.inertia[0], T(0), T(0), T(0), top.inertia[1], T(0), T(0), T(0), top.inertia[2]}};
    const Mat3<T> Jc = I_fixed + top.mass * (hat(top.com) * hat(top.com));
    return {Jc, inverse(Jc), top.com, top.mass, top.gravity};
  }
  /// The Brüls–Cardona top [BC10], from HeavyTop's preset.
  LB_HD static ConstrainedHeavyTop bruls_cardona() { return from_heavy_top(HeavyTop<T>::bruls_cardona()); }

  /// The configuration with attitude R on the constraint manifold: x = Rχ.
  LB_HD group configuration(const Mat3<T>& R) const { return {R, R * com}; }
  /// The velocity with body angular velocity Ω satisfying B v = 0: U = Ω × χ.
  LB_HD vec velocity(const Vec3<T>& omega) const { return concat(omega, cross(omega, com)); }

  /// M⁻¹w with M = diag(J_c, m I₃).
  LB_HD vec inverse_mass(const group&, const vec& w) const {
    return concat(inertia_cm_inv * w.template seg<0, 3>(), (T(1) / mass) * w.template seg<3, 3>());
  }
  /// g(q, v) = (Ω × J_cΩ, m Ω × U − m Rᵀg⃗), Rᵀg⃗ = −g Rᵀe₃ (the third row of R).
  LB_HD vec forces(const group& q, const vec& v, T) const {
    const Vec3<T> W = v.template seg<0, 3>(), U = v.template seg<3, 3>();
    return concat(cross(W, inertia_cm * W), mass * cross(W, U) + (mass * gravity) * q.R.row(2));
  }
  LB_HD Vec3<T> constraint(const group& q) const { return q.R.transpose() * q.t - com; }
  /// B(q) = [ŷ, I₃], y = Rᵀx: d/dt(Rᵀx) = −Ω × y + U = B(q)v.
  LB_HD ConstraintGradient<T, 3, 6> gradient(const group& q) const {
    const Mat3<T> Y = hat(q.R.transpose() * q.t);
    ConstraintGradient<T, 3, 6> B;
    for (int k = 0; k < 3; ++k) {
      Vec3<T> e = Vec3<T>::zero();
      e[k] = T(1);
      B.row[k] = concat(Y.row(k), e);
    }
    return B;
  }
  /// (d/dt B)·v = ẏ × Ω = (B v) × Ω: zero wherever B v = 0.
  LB_HD Vec3<T> curvature(const group& q, const vec& v) const { return cross(gradient(q) * v, v.template seg<0, 3>()); }

  /// E = ½Ω·J_cΩ + ½m|U|² − m g⃗·x.
  LB_HD T energy(const group& q, const vec& v) const {
    const Vec3<T> W = v.template seg<0, 3>(), U = v.template seg<3, 3>();
    return T(0.5) * dot(W, inertia_cm * W) + T(0.5) * mass * norm2(U) + mass * gravity * q.t[2];
  }
  static std::vector<std::string> configuration_names() { return names::join({names::matrix("R"), names::xyz("x")}); }
  static std::vector<std::string> velocity_names() { return names::join({names::xyz("Omega"), names::xyz("U")}); }
  template <class U> LB_HD ConstrainedHeavyTop<U> cast() const {
    auto m3 = [](const Mat3<T>& A) { return Mat3<U>::from_flat(lb::cast<U>(A.flat())); };
    return {m3(inertia_cm), m3(inertia_cm_inv), lb::cast<U>(com), U(mass), U(gravity)};
  }

 private:
  /// A⁻¹ by cofactors: its rows are the cross products of A's columns over det A.
  LB_HD static Mat3<T> inverse(const Mat3<T>& A) {
    const Vec3<T> r0 = cross(A.col(1), A.col(2)), r1 = cross(A.col(2), A.col(0)), r2 = cross(A.col(0), A.col(1));
    const T s = T(1) / dot(A.col(0), r0);
    return Mat3<T>{{s * r0[0], s * r0[1], s * r0[2], s * r1[0], s * r1[1], s * r1[2], s * r2[0], s * r2[1], s * r2[2]}};
  }
};

}  // namespace lb
