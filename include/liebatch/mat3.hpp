// 3×3 matrices, row-major: rotation matrices and hat maps.
#pragma once
#include "vec.hpp"

namespace lb {

/// A 3×3 matrix stored row-major in nine registers.
template <class T> struct Mat3 {
  using scalar = T;
  T m[9];

  LB_HD static Mat3 identity() { return Mat3{{T(1), T(0), T(0), T(0), T(1), T(0), T(0), T(0), T(1)}}; }
  LB_HD T& operator()(int i, int j) { return m[3 * i + j]; }
  LB_HD const T& operator()(int i, int j) const { return m[3 * i + j]; }

  /// Row i and column j as vectors.
  LB_HD Vec3<T> row(int i) const { return Vec3<T>{{m[3 * i], m[3 * i + 1], m[3 * i + 2]}}; }
  LB_HD Vec3<T> col(int j) const { return Vec3<T>{{m[j], m[3 + j], m[6 + j]}}; }

  LB_HD Mat3 transpose() const {
    return Mat3{{m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]}};
  }
  LB_HD T trace() const { return m[0] + m[4] + m[8]; }

  /// The nine entries as a flat vector (the embedding of SO(3) in ℝ⁹).
  LB_HD Vec<T, 9> flat() const {
    Vec<T, 9> r;
    LB_UNROLL for (int i = 0; i < 9; ++i) r.v[i] = m[i];
    return r;
  }
  LB_HD static Mat3 from_flat(const Vec<T, 9>& x) {
    Mat3 r;
    LB_UNROLL for (int i = 0; i < 9; ++i) r.m[i] = x.v[i];
    return r;
  }
};

template <class T> LB_HD Vec3<T> operator*(const Mat3<T>& A, const Vec3<T>& x) {
  return Vec3<T>{{A.m[0] * x.v[0] + A.m[1] * x.v[1] + A.m[2] * x.v[2],
                  A.m[3] * x.v[0] + A.m[4] * x.v[1] + A.m[5] * x.v[2],
                  A.m[6] * x.v[0] + A.m[7] * x.v[1] + A.m[8] * x.v[2]}};
}

template <class T> LB_HD Mat3<T> operator*(const Mat3<T>& A, const Mat3<T>& B) {
  Mat3<T> C;
  LB_UNROLL for (int i = 0; i < 3; ++i) {
    LB_UNROLL for (int j = 0; j < 3; ++j) {
      C.m[3 * i + j] = A.m[3 * i] * B.m[j] + A.m[3 * i + 1] * B.m[3 + j] + A.m[3 * i + 2] * B.m[6 + j];
    }
  }
  return C;
}

template <class T> LB_HD Mat3<T> operator+(const Mat3<T>& A, const Mat3<T>& B) {
  Mat3<T> C;
  LB_UNROLL for (int i = 0; i < 9; ++i) C.m[i] = A.m[i] + B.m[i];
  return C;
}

template <class T> LB_HD Mat3<T> operator*(T s, const Mat3<T>& A) {
  Mat3<T> C;
  LB_UNROLL for (int i = 0; i < 9; ++i) C.m[i] = s * A.m[i];
  return C;
}

/// hat(w): the skew matrix with hat(w) v = w × v.
template <class T> LB_HD Mat3<T> hat(const Vec3<T>& w) {
  return Mat3<T>{{T(0), -w.v[2], w.v[1], w.v[2], T(0), -w.v[0], -w.v[1], w.v[0], T(0)}};
}

/// vee: the vector of the skew part of A, vee(hat(w)) = w.
template <class T> LB_HD Vec3<T> vee(const Mat3<T>& A) {
  const T h = T(0.5);
  return Vec3<T>{{h * (A.m[7] - A.m[5]), h * (A.m[2] - A.m[6]), h * (A.m[3] - A.m[1])}};
}

}  // namespace lb
