// The sphere S² = {q : |q| = 1} under SO(3).
#pragma once
#include "so3.hpp"

namespace lb {

/// S² ⊂ ℝ³ with g·q = R q; ψ_*(u)|_q = u × q. The action is defined on all of ℝ³ and keeps |q|,
/// so so*(3) under the coadjoint action (CoadjointSO3) is this space without the constraint.
template <class T> struct S2 {
  using scalar = T;
  using algebra = so3<T>;
  using group = SO3<T>;
  static constexpr int dim = 3;
  using point = Vec3<T>;

  LB_HD static point act(const group& g, const point& q) { return g.R * q; }
  /// exp(u)·q by Rodrigues without forming the matrix: q + s u×q + c u×(u×q).
  LB_HD static point exp_act(const Vec3<T>& u, const point& q) {
    const ExpCoeffs<T> k = exp_coeffs(norm2(u));
    const Vec3<T> uq = cross(u, q);
    return q + k.s * uq + k.c * cross(u, uq);
  }
  LB_HD static point generator(const Vec3<T>& u, const point& q) { return cross(u, q); }
  /// | |q| − 1 |, and q / |q|.
  LB_HD static T defect(const point& q) { return lb::abs(norm(q) - T(1)); }
  LB_HD static point project(const point& q) { return (T(1) / norm(q)) * q; }
};

}  // namespace lb
