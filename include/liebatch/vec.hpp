// Fixed-size vectors: the storage of every point and every Lie algebra element. A plain aggregate
// of N scalars, so it lives in registers on the device (as CUTLASS's Array).
#pragma once
#include "scalar.hpp"

namespace lb {

/// A column vector of N scalars with value semantics.
template <class T, int N> struct Vec {
  static_assert(N > 0, "Vec needs at least one component");
  using scalar = T;
  static constexpr int size = N;
  T v[N];

  /// The zero vector.
  LB_HD static Vec zero() {
    Vec r;
    LB_UNROLL for (int i = 0; i < N; ++i) r.v[i] = T(0);
    return r;
  }
  LB_HD T& operator[](int i) { return v[i]; }
  LB_HD const T& operator[](int i) const { return v[i]; }

  /// Copy of the L components starting at compile-time offset O.
  template <int O, int L> LB_HD Vec<T, L> seg() const {
    static_assert(O >= 0 && O + L <= N, "segment out of range");
    Vec<T, L> r;
    LB_UNROLL for (int i = 0; i < L; ++i) r.v[i] = v[O + i];
    return r;
  }
  /// Copy of the L components starting at a run-time offset o.
  template <int L> LB_HD Vec<T, L> seg(int o) const {
    Vec<T, L> r;
    LB_UNROLL for (int i = 0; i < L; ++i) r.v[i] = v[o + i];
    return r;
  }
  /// Overwrites the components starting at offset o with x.
  template <int L> LB_HD void set_seg(int o, const Vec<T, L>& x) {
    LB_UNROLL for (int i = 0; i < L; ++i) v[o + i] = x.v[i];
  }

  LB_HD Vec& operator+=(const Vec& b) {
    LB_UNROLL for (int i = 0; i < N; ++i) v[i] += b.v[i];
    return *this;
  }
  LB_HD Vec& operator-=(const Vec& b) {
    LB_UNROLL for (int i = 0; i < N; ++i) v[i] -= b.v[i];
    return *this;
  }
  LB_HD Vec& operator*=(T s) {
    LB_UNROLL for (int i = 0; i < N; ++i) v[i] *= s;
    return *this;
  }
};

template <class T, int N> LB_HD Vec<T, N> operator+(Vec<T, N> a, const Vec<T, N>& b) { return a += b; }
template <class T, int N> LB_HD Vec<T, N> operator-(Vec<T, N> a, const Vec<T, N>& b) { return a -= b; }
template <class T, int N> LB_HD Vec<T, N> operator*(T s, Vec<T, N> a) { return a *= s; }
template <class T, int N> LB_HD Vec<T, N> operator*(Vec<T, N> a, T s) { return a *= s; }
template <class T, int N> LB_HD Vec<T, N> operator-(Vec<T, N> a) { return a *= T(-1); }

template <class T, int N> LB_HD T dot(const Vec<T, N>& a, const Vec<T, N>& b) {
  T s = T(0);
  LB_UNROLL for (int i = 0; i < N; ++i) s += a.v[i] * b.v[i];
  return s;
}
template <class T, int N> LB_HD T norm2(const Vec<T, N>& a) { return dot(a, a); }
template <class T, int N> LB_HD T norm(const Vec<T, N>& a) { return lb::sqrt(dot(a, a)); }
/// Largest absolute component.
template <class T, int N> LB_HD T norm_inf(const Vec<T, N>& a) {
  T m = T(0);
  LB_UNROLL for (int i = 0; i < N; ++i) m = lb::max(lb::abs(a.v[i]), m);
  return m;
}

template <class T> using Vec3 = Vec<T, 3>;
template <class T> using Vec6 = Vec<T, 6>;

template <class T> LB_HD Vec3<T> vec3(T x, T y, T z) { return Vec3<T>{{x, y, z}}; }

/// a × b; so(3)'s bracket and hat(a) b.
template <class T> LB_HD Vec3<T> cross(const Vec3<T>& a, const Vec3<T>& b) {
  return Vec3<T>{{a.v[1] * b.v[2] - a.v[2] * b.v[1], a.v[2] * b.v[0] - a.v[0] * b.v[2],
                  a.v[0] * b.v[1] - a.v[1] * b.v[0]}};
}

/// Concatenation (a, b).
template <class T, int N, int M> LB_HD Vec<T, N + M> concat(const Vec<T, N>& a, const Vec<T, M>& b) {
  Vec<T, N + M> r;
  r.set_seg(0, a);
  r.set_seg(N, b);
  return r;
}

/// Componentwise conversion to another scalar type.
/// a where c holds, b elsewhere, component by component (c a bool or a pack's mask).
template <class M, class T, int N> LB_HD Vec<T, N> select(const M& c, const Vec<T, N>& a, const Vec<T, N>& b) {
  Vec<T, N> r;
  LB_UNROLL for (int i = 0; i < N; ++i) r.v[i] = lb::select(c, a.v[i], b.v[i]);
  return r;
}

template <class U, class T, int N> LB_HD Vec<U, N> cast(const Vec<T, N>& a) {
  Vec<U, N> r;
  LB_UNROLL for (int i = 0; i < N; ++i) r.v[i] = U(a.v[i]);
  return r;
}

}  // namespace lb
