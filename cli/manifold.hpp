// Distances from the constraint sets the models live on, and projections onto them, for checking
// and (when the config asks) normalising initial states.
#pragma once
#include <algorithm>
#include <cmath>

#include <liebatch/mat3.hpp>

namespace lb::cli {

/// | |q| − 1 |.
inline double unit_defect(const Vec3<double>& q) { return std::abs(norm(q) - 1); }
/// |q·ω| relative to 1 + |ω| (q unit).
inline double tangent_defect(const Vec3<double>& q, const Vec3<double>& w) { return std::abs(dot(q, w)) / (1 + norm(w)); }
/// max |RᵀR − I|, and 1 when det R < 0 (a reflection is not a rotation).
inline double rotation_defect(const Mat3<double>& R) {
  const Mat3<double> E = R.transpose() * R;
  double d = 0;
  for (int k = 0; k < 9; ++k) d = std::max(d, std::abs(E.m[k] - (k % 4 == 0 ? 1.0 : 0.0)));
  const double det = dot(R.row(0), cross(R.row(1), R.row(2)));
  return det < 0 ? std::max(d, 1.0) : d;
}
/// The nearest rotation's Gram–Schmidt stand-in: rows orthonormalised in order.
inline Mat3<double> orthonormalize(const Mat3<double>& R) {
  Vec3<double> a = R.row(0), b = R.row(1);
  a = (1 / norm(a)) * a;
  b = b - dot(a, b) * a;
  b = (1 / norm(b)) * b;
  const Vec3<double> c = cross(a, b);
  Mat3<double> Q;
  for (int j = 0; j < 3; ++j) { Q(0, j) = a[j]; Q(1, j) = b[j]; Q(2, j) = c[j]; }
  return Q;
}

/// A state whose first 9 numbers are a row-major rotation (Q of SO(3) × ℝ³-type states): its
/// defect and its projection, with the rest of the state kept.
template <class P> double leading_rotation_defect(const P& y) { return rotation_defect(Mat3<double>::from_flat(y.template seg<0, 9>())); }
template <class P> P project_leading_rotation(P y) {
  y.set_seg(0, orthonormalize(Mat3<double>::from_flat(y.template seg<0, 9>())).flat());
  return y;
}

}  // namespace lb::cli
