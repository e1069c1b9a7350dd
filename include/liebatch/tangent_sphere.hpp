// The tangent bundle TS² = {(q, ω) : |q| = 1, q·ω = 0} under SE(3).
#pragma once
#include "se3.hpp"

namespace lb {

/// TS² ⊂ ℝ⁶ with ψ((R, r), (q, ω)) = (R q, R ω + r × R q) and
/// ψ_*(u, v)|_(q,ω) = (u × q, u × ω + v × q) ([CCLMO22 §5.1]; docs/spaces-and-models.md §3).
template <class T> struct TS2 {
  using scalar = T;
  using algebra = se3<T>;
  using group = SE3<T>;
  static constexpr int dim = 6;
  using point = Vec6<T>;

  LB_HD static point act(const group& g, const point& y) {
    const Vec3<T> Rq = g.R * y.template seg<0, 3>();
    return concat(Rq, g.R * y.template seg<3, 3>() + cross(g.t, Rq));
  }
  LB_HD static point exp_act(const Vec6<T>& u, const point& y) { return act(group::exp(u), y); }
  LB_HD static point generator(const Vec6<T>& u, const point& y) {
    const Vec3<T> a = u.template seg<0, 3>(), b = u.template seg<3, 3>();
    const Vec3<T> q = y.template seg<0, 3>(), w = y.template seg<3, 3>();
    return concat(cross(a, q), cross(a, w) + cross(b, q));
  }
  /// max(| |q| − 1 |, |q·ω| / (1 + |ω|)); and (q/|q|, ω without its component along q).
  LB_HD static T defect(const point& y) {
    const Vec3<T> q = y.template seg<0, 3>(), w = y.template seg<3, 3>();
    const T unit = lb::abs(norm(q) - T(1)), tangent = lb::abs(dot(q, w)) / (T(1) + norm(w));
    return lb::max_nan(unit, tangent);
  }
  LB_HD static point project(const point& y) {
    const Vec3<T> q = (T(1) / norm(y.template seg<0, 3>())) * y.template seg<0, 3>(), w = y.template seg<3, 3>();
    return concat(q, w - dot(q, w) * q);
  }
};

}  // namespace lb
