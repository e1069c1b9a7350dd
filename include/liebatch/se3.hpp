// se(3) ≅ ℝ⁶ = (A, a), rotation part first, and the rigid motions SE(3).
#pragma once
#include "so3.hpp"

namespace lb {

template <class T> struct SE3;

/// The Lie algebra se(3), elements (A, a) ∈ ℝ³ × ℝ³ ↔ [[Â, a], [0, 0]].
template <class T> struct se3 {
  using scalar = T;
  static constexpr int dim = 6;
  using vec = Vec6<T>;
  using group = SE3<T>;

  /// [(A,a),(B,b)] = (A×B, A×b + a×B).
  LB_HD static vec bracket(const vec& u, const vec& v) {
    const Vec3<T> A = u.template seg<0, 3>(), a = u.template seg<3, 3>();
    const Vec3<T> B = v.template seg<0, 3>(), b = v.template seg<3, 3>();
    return concat(cross(A, B), cross(A, b) + cross(a, B));
  }

  LB_HD static group exp(const vec& u) { return group::exp(u); }
  /// Squared rotation angle |A|² (dexp⁻¹ is singular at |A| = 2π).
  LB_HD static T angle2(const vec& u) { return norm2(u.template seg<0, 3>()); }

  /// φ(ad_(A,a))(B,b) for φ analytic at 0, [CCLMO22 §2.3] (derived in docs/lie-groups.md §3.2):
  ///   C = φ0 B + g1 A×B + g2 A×(A×B)
  ///   c = φ0 b + g1 (a×B + A×b) + ρ g̃1 A×B + ρ g̃2 A×(A×B) + g2 (a×(A×B) + A×(a×B) + A×(A×b)),
  /// ρ = A·a, all g's evaluated at α = |A|.
  LB_HD static vec phi_ad(T phi0, T g1, T g2, T g1t, T g2t, const vec& u, const vec& v) {
    const Vec3<T> A = u.template seg<0, 3>(), a = u.template seg<3, 3>();
    const Vec3<T> B = v.template seg<0, 3>(), b = v.template seg<3, 3>();
    const T rho = dot(A, a);
    const Vec3<T> AB = cross(A, B), AAB = cross(A, AB);
    const Vec3<T> C = phi0 * B + g1 * AB + g2 * AAB;
    const Vec3<T> c = phi0 * b + g1 * (cross(a, B) + cross(A, b)) + (rho * g1t) * AB + (rho * g2t) * AAB +
                      g2 * (cross(a, AB) + cross(A, cross(a, B)) + cross(A, cross(A, b)));
    return concat(C, c);
  }

  /// dexp_u(v): φ(z) = (eᶻ − 1)/z.
  LB_HD static vec dexp(const vec& u, const vec& v) {
    const DexpCoeffs<T> k = dexp_coeffs(norm2(u.template seg<0, 3>()));
    return phi_ad(T(1), k.g1, k.g2, k.g1t, k.g2t, u, v);
  }

  /// dexp⁻¹_u(v): φ(z) = z/(eᶻ − 1), φ0 = 1, g1 = −½, g̃1 = 0. Singular at |A| = 2π.
  LB_HD static vec dexpinv(const vec& u, const vec& v) {
    const DexpinvCoeffs<T> k = dexpinv_coeffs(norm2(u.template seg<0, 3>()));
    return phi_ad(T(1), T(-0.5), k.g2, T(0), k.g2t, u, v);
  }
};

/// A rigid motion x ↦ R x + t.
template <class T> struct SE3 {
  using scalar = T;
  using algebra = se3<T>;
  Mat3<T> R;
  Vec3<T> t;

  LB_HD static SE3 identity() { return {Mat3<T>::identity(), Vec3<T>::zero()}; }

  /// exp(A, a) = (exp(Â), V a), V a = a + c A×a + d A×(A×a) = dexp_A(a) on so(3).
  LB_HD static SE3 exp(const Vec6<T>& u) {
    const Vec3<T> A = u.template seg<0, 3>(), a = u.template seg<3, 3>();
    const ExpCoeffs<T> k = exp_coeffs(norm2(A));
    const Vec3<T> Aa = cross(A, a);
    return {SO3<T>::exp(A).R, a + k.c * Aa + k.d * cross(A, Aa)};
  }

  /// log: (A, V⁻¹ t) with A = log R, V⁻¹ = so(3) dexp⁻¹_A (valid since |A| ≤ π).
  LB_HD Vec6<T> log() const {
    const Vec3<T> A = SO3<T>{R}.log();
    return concat(A, so3<T>::dexpinv(A, t));
  }

  /// The embedding SE(3) ⊂ ℝ¹² as (R row-major, t).
  static constexpr int embed_dim = 12;
  LB_HD Vec<T, 12> embed() const { return concat(R.flat(), t); }
  /// Distance from SE(3), and a nearby element: those of the rotation part (SO3::defect, project);
  /// NaN too where the translation is not finite (0·x is NaN for x = ±∞ or NaN).
  LB_HD static T defect(const Vec<T, 12>& x) {
    T d = SO3<T>::defect(x.template seg<0, 9>());
    LB_UNROLL for (int k = 9; k < 12; ++k) d = lb::max_nan(T(0) * x[k], d);  // (d, not −0, where both are 0)
    return d;
  }
  LB_HD static Vec<T, 12> project(Vec<T, 12> x) {
    x.set_seg(0, SO3<T>::project(x.template seg<0, 9>()));
    return x;
  }
  LB_HD static SE3 from_embed(const Vec<T, 12>& x) {
    return {Mat3<T>::from_flat(x.template seg<0, 9>()), x.template seg<9, 3>()};
  }
  /// d/dt exp(t(ξ,η))·(R,t) at t = 0: (ξ̂ R, ξ × t + η), embedded.
  LB_HD Vec<T, 12> generator(const Vec6<T>& u) const {
    const Vec3<T> xi = u.template seg<0, 3>();
    return concat((hat(xi) * R).flat(), cross(xi, t) + u.template seg<3, 3>());
  }

  LB_HD SE3 inverse() const {
    const Mat3<T> Rt = R.transpose();
    return {Rt, -(Rt * t)};
  }
  LB_HD SE3 operator*(const SE3& h) const { return {R * h.R, R * h.t + t}; }
  /// The motion of a point, R p + t.
  LB_HD Vec3<T> act(const Vec3<T>& p) const { return R * p + t; }
  /// Ad_(R,t)(ξ, η) = (R ξ, R η + t × R ξ).
  LB_HD Vec6<T> Ad(const Vec6<T>& u) const {
    const Vec3<T> Rxi = R * u.template seg<0, 3>();
    return concat(Rxi, R * u.template seg<3, 3>() + cross(t, Rxi));
  }
};

}  // namespace lb
