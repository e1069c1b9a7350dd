// so(3) ≅ ℝ³ and the rotation group SO(3).
#pragma once
#include <limits>

#include "mat3.hpp"
#include "series.hpp"

namespace lb {

template <class T> struct SO3;

/// The Lie algebra so(3) ≅ ℝ³ (hat(w) v = w × v).
template <class T> struct so3 {
  using scalar = T;
  static constexpr int dim = 3;
  using vec = Vec3<T>;
  using group = SO3<T>;

  /// [u, v] = u × v.
  LB_HD static vec bracket(const vec& u, const vec& v) { return cross(u, v); }

  /// Squared rotation angle |u|² (dexp⁻¹ is singular at |u| = 2π).
  LB_HD static T angle2(const vec& u) { return norm2(u); }

  /// exp(û) by Rodrigues' formula.
  LB_HD static group exp(const vec& u) { return group::exp(u); }

  /// dexp_u(v) = v + g1 u×v + g2 u×(u×v), g1 = (1−cos α)/α², g2 = (α−sin α)/α³.
  LB_HD static vec dexp(const vec& u, const vec& v) {
    const DexpCoeffs<T> k = dexp_coeffs(norm2(u));
    const vec uv = cross(u, v);
    return v + k.g1 * uv + k.g2 * cross(u, uv);
  }

  /// dexp⁻¹_u(v) = v − ½ u×v + g2 u×(u×v), g2 = (1 − (α/2)cot(α/2))/α² ([CCLMO22 §2.2],
  /// after eq. (8); plus sign on the last term: docs/lie-groups.md §2.3). Singular at α = 2π.
  LB_HD static vec dexpinv(const vec& u, const vec& v) {
    const DexpinvCoeffs<T> k = dexpinv_coeffs(norm2(u));
    const vec uv = cross(u, v);
    return v - T(0.5) * uv + k.g2 * cross(u, uv);
  }
};

/// A rotation, stored as its matrix.
template <class T> struct SO3 {
  using scalar = T;
  using algebra = so3<T>;
  Mat3<T> R;

  LB_HD static SO3 identity() { return {Mat3<T>::identity()}; }

  /// exp(û) = I + s û + c û² = cos α I + s û + c u uᵀ.
  LB_HD static SO3 exp(const Vec3<T>& u) {
    const ExpCoeffs<T> k = exp_coeffs(norm2(u));
    const T ca = T(1) - k.c * norm2(u);  // cos α without cancellation issues: c α² ≤ 2
    SO3 g;
    LB_UNROLL for (int i = 0; i < 3; ++i) {
      LB_UNROLL for (int j = 0; j < 3; ++j) g.R(i, j) = k.c * u[i] * u[j] + (i == j ? ca : T(0));
    }
    g.R(0, 1) -= k.s * u[2];
    g.R(1, 0) += k.s * u[2];
    g.R(0, 2) += k.s * u[1];
    g.R(2, 0) -= k.s * u[1];
    g.R(1, 2) -= k.s * u[0];
    g.R(2, 1) += k.s * u[0];
    return g;
  }

  /// exp(û)·g. A rotation matrix rounded to storage is off SO(3) by ~ε, by the same amount at every
  /// step with the same angle (the symmetric rigid body), so multiplying by it drifts linearly in
  /// the step count (issue 14, item 13). Below α = 1 this is g + (c û² g + s u × g): no 1 is rounded
  /// against, the only O(ε) rounding is the final sum, which follows g's digits (a random walk at
  /// the floor of storing g), and c û² and hat(s u) stay exactly symmetric and skew, so their own
  /// rounding adds no repeated defect either. Above α = 1 the terms approach 2 and R g rounds less.
  LB_HD static SO3 exp_mul(const Vec3<T>& u, const SO3& g) {
    const T x = u[0] * u[0], y = u[1] * u[1], z = u[2] * u[2];
    const auto below = x + y + z < T(1);
    if (lb::none(below)) return exp(u) * g;
    const ExpCoeffs<T> k = exp_coeffs(x + y + z);
    const Vec3<T> w = k.s * u;
    const T cxy = k.c * u[0] * u[1], cxz = k.c * u[0] * u[2], cyz = k.c * u[1] * u[2];
    const Mat3<T> C{{-k.c * (y + z), cxy, cxz, cxy, -k.c * (x + z), cyz, cxz, cyz, -k.c * (x + y)}};  // c û²
    SO3 r;
    LB_UNROLL for (int j = 0; j < 3; ++j) {
      const Vec3<T> gj = g.R.col(j), d = C * gj + cross(w, gj);
      LB_UNROLL for (int i = 0; i < 3; ++i) r.R(i, j) = g.R(i, j) + d[i];
    }
    if (!lb::all(below)) {  // a pack (pack.hpp) whose lanes lie on both sides of α = 1
      const SO3 e = exp(u) * g;
      LB_UNROLL for (int i = 0; i < 9; ++i) r.R.m[i] = lb::select(below, r.R.m[i], e.R.m[i]);
    }
    return r;
  }

  /// log: the u with |u| ≤ π and exp(u) = R. Near α = π the axis comes from the symmetric part.
  /// NaN where an entry of R is not finite (atan2 made an angle of an ∞, and the axis may come from a
  /// column without it).
  LB_HD Vec3<T> log() const {
    bool finite = true;
    LB_UNROLL for (int k = 0; k < 9; ++k) finite = finite && lb::isfinite(R.m[k]);
    if (!finite) {
      Vec3<T> nan;
      LB_UNROLL for (int k = 0; k < 3; ++k) nan[k] = std::numeric_limits<T>::quiet_NaN();
      return nan;
    }
    const Vec3<T> w = vee(R);                 // sin α · n
    const T ca = (R.trace() - T(1)) / T(2);   // cos α
    const T sa = norm(w);
    const T a = lb::atan2(sa, ca);
    if (ca > T(-0.5)) {  // α < 2π/3: w/sinc(α) is well conditioned
      return (T(1) / exp_coeffs(a * a).s) * w;
    }
    // (R + Rᵀ)/2 − cos α I = (1 − cos α) n nᵀ: take the column with the largest diagonal.
    int i = 0;
    LB_UNROLL for (int j = 1; j < 3; ++j) if (R(j, j) > R(i, i)) i = j;
    Vec3<T> n;
    LB_UNROLL for (int j = 0; j < 3; ++j) n[j] = (R(j, i) + R(i, j)) / T(2) - (i == j ? ca : T(0));
    n *= T(1) / norm(n);
    return (dot(n, w) < T(0) ? -a : a) * n;
  }

  /// The embedding SO(3) ⊂ ℝ⁹ (row-major matrix) used to store SO(3)-valued states.
  static constexpr int embed_dim = 9;
  LB_HD Vec<T, 9> embed() const { return R.flat(); }
  LB_HD static SO3 from_embed(const Vec<T, 9>& x) { return {Mat3<T>::from_flat(x)}; }
  /// Distance of an embedded point from SO(3): max |RᵀR − I|, and at least 1 when det R < 0 (a
  /// reflection is not a rotation).
  LB_HD static T defect(const Vec<T, 9>& x) {
    const Mat3<T> R = Mat3<T>::from_flat(x), E = R.transpose() * R;
    T d = T(0);
    LB_UNROLL for (int k = 0; k < 9; ++k) {
      const T e = lb::abs(E.m[k] - (k % 4 == 0 ? T(1) : T(0)));
      d = lb::max_nan(e, d);  // (a NaN entry: NaN, not the others' largest)
    }
    const bool reflection = dot(R.row(0), cross(R.row(1), R.row(2))) < T(0);
    return reflection && d < T(1) ? T(1) : d;
  }
  /// A rotation near x: its rows orthonormalised in order (Gram–Schmidt), the third as the cross
  /// product of the first two. The identity on SO(3) up to round-off. A third row that is not finite
  /// makes it NaN: otherwise unread, it was dropped, and a NaN state passed for a rotation.
  LB_HD static Vec<T, 9> project(const Vec<T, 9>& x) {
    const Mat3<T> R = Mat3<T>::from_flat(x);
    const Vec3<T> a = (T(1) / norm(R.row(0))) * R.row(0), b0 = R.row(1) - dot(a, R.row(1)) * a;
    const Vec3<T> b = (T(1) / norm(b0)) * b0;
    const T r2 = R(2, 0) * T(0) + R(2, 1) * T(0) + R(2, 2) * T(0);  // 0, or NaN for a NaN or ±∞ entry
    Vec3<T> c = cross(a, b);
    LB_UNROLL for (int k = 0; k < 3; ++k) c[k] = lb::select(r2 != r2, r2, c[k]);
    return concat(concat(a, b), c);
  }
  /// d/dt exp(tξ)·R at t = 0, i.e. ξ̂ R, embedded.
  LB_HD Vec<T, 9> generator(const Vec3<T>& xi) const { return (hat(xi) * R).flat(); }

  LB_HD SO3 inverse() const { return {R.transpose()}; }
  LB_HD SO3 operator*(const SO3& h) const { return {R * h.R}; }
  /// The rotation of a vector, R v.
  LB_HD Vec3<T> act(const Vec3<T>& v) const { return R * v; }
  /// Ad_R(ξ) = R ξ, i.e. R ξ̂ Rᵀ.
  LB_HD Vec3<T> Ad(const Vec3<T>& xi) const { return R * xi; }
};

}  // namespace lb
