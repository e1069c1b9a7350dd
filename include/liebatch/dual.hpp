// Forward-mode dual numbers: a value and its N partial derivatives, carried through the same code
// that computes the value. Dual<T, N> is a scalar type for the core (Vec, Mat3, SO3, the series of
// series.hpp): it compares by its value, is its own lane (lane_t<Dual<T, N>> = T, so the series
// take T's number of terms and T's compile-time coefficients), and brings sqrt, sin, cos, tan,
// atan2, abs and isfinite for argument-dependent lookup. Used for exact Jacobians of the implicit
// methods' residuals (methods/newton.hpp): a Newton step needs ∂r/∂z to round-off, not to the
// √ε of a finite difference, to stay quadratic in float. No allocation; host and device.
#pragma once
#include "scalar.hpp"

namespace lb {

/// x + Σᵢ dᵢ εᵢ with εᵢεⱼ = 0: the value v and the partials d[i] = ∂v/∂zᵢ.
template <class T, int N> struct Dual {
  static_assert(N > 0, "Dual needs at least one partial");
  T v;
  T d[N];

  /// Uninitialised, as a plain T.
  Dual() = default;
  /// A constant: every partial zero.
  LB_HD constexpr Dual(T x) : v(x), d{} {}  // NOLINT: implicit, so T and Dual mix as scalars do
  /// The independent variable zᵢ with value x: ∂zᵢ/∂zᵢ = 1.
  LB_HD static constexpr Dual variable(T x, int i) {
    Dual r(x);
    r.d[i] = T(1);
    return r;
  }

  LB_HD constexpr Dual operator-() const {
    Dual r;
    r.v = -v;
    LB_UNROLL for (int i = 0; i < N; ++i) r.d[i] = -d[i];
    return r;
  }
  LB_HD constexpr Dual operator+() const { return *this; }
  LB_HD constexpr Dual& operator+=(const Dual& b) {
    v += b.v;
    LB_UNROLL for (int i = 0; i < N; ++i) d[i] += b.d[i];
    return *this;
  }
  LB_HD constexpr Dual& operator-=(const Dual& b) {
    v -= b.v;
    LB_UNROLL for (int i = 0; i < N; ++i) d[i] -= b.d[i];
    return *this;
  }
  /// (a b)′ = a′ b + a b′.
  LB_HD constexpr Dual& operator*=(const Dual& b) {
    LB_UNROLL for (int i = 0; i < N; ++i) d[i] = d[i] * b.v + v * b.d[i];
    v *= b.v;
    return *this;
  }
  /// (a / b)′ = (a′ − (a/b) b′) / b.
  LB_HD constexpr Dual& operator/=(const Dual& b) {
    const T q = v / b.v;
    LB_UNROLL for (int i = 0; i < N; ++i) d[i] = (d[i] - q * b.d[i]) / b.v;
    v = q;
    return *this;
  }

  // Hidden friends, so a T (or a literal that converts to T) mixes with a Dual on either side.
  LB_HD friend constexpr Dual operator+(Dual a, const Dual& b) { return a += b; }
  LB_HD friend constexpr Dual operator-(Dual a, const Dual& b) { return a -= b; }
  LB_HD friend constexpr Dual operator*(Dual a, const Dual& b) { return a *= b; }
  LB_HD friend constexpr Dual operator/(Dual a, const Dual& b) { return a /= b; }
  // Comparisons see the value only: the branches taken are those of the value's computation.
  LB_HD friend constexpr bool operator<(const Dual& a, const Dual& b) { return a.v < b.v; }
  LB_HD friend constexpr bool operator>(const Dual& a, const Dual& b) { return a.v > b.v; }
  LB_HD friend constexpr bool operator<=(const Dual& a, const Dual& b) { return a.v <= b.v; }
  LB_HD friend constexpr bool operator>=(const Dual& a, const Dual& b) { return a.v >= b.v; }
  LB_HD friend constexpr bool operator==(const Dual& a, const Dual& b) { return a.v == b.v; }
  LB_HD friend constexpr bool operator!=(const Dual& a, const Dual& b) { return a.v != b.v; }
};

template <class T, int N> struct lane_of<Dual<T, N>> {
  using type = T;
};

namespace dual_detail {
/// f(a) with f′(a.v) = df: the chain rule.
template <class T, int N> LB_HD Dual<T, N> chain(const Dual<T, N>& a, T f, T df) {
  Dual<T, N> r;
  r.v = f;
  LB_UNROLL for (int i = 0; i < N; ++i) r.d[i] = df * a.d[i];
  return r;
}
}  // namespace dual_detail

/// √a; its derivative 1/(2√a) is infinite at 0, where a Dual argument must not be (|u| of an
/// algebra element is taken through |u|², whose series need no square root).
template <class T, int N> LB_HD Dual<T, N> sqrt(const Dual<T, N>& a) {
  const T s = lb::sqrt(a.v);
  return dual_detail::chain(a, s, T(0.5) / s);
}
template <class T, int N> LB_HD Dual<T, N> sin(const Dual<T, N>& a) {
  return dual_detail::chain(a, lb::sin(a.v), lb::cos(a.v));
}
template <class T, int N> LB_HD Dual<T, N> cos(const Dual<T, N>& a) {
  return dual_detail::chain(a, lb::cos(a.v), -lb::sin(a.v));
}
template <class T, int N> LB_HD Dual<T, N> tan(const Dual<T, N>& a) {
  const T t = lb::tan(a.v);
  return dual_detail::chain(a, t, T(1) + t * t);
}
/// atan2(y, x)′ = (x y′ − y x′)/(x² + y²).
template <class T, int N> LB_HD Dual<T, N> atan2(const Dual<T, N>& y, const Dual<T, N>& x) {
  Dual<T, N> r;
  r.v = lb::atan2(y.v, x.v);
  const T q = T(1) / (x.v * x.v + y.v * y.v);
  LB_UNROLL for (int i = 0; i < N; ++i) r.d[i] = (x.v * y.d[i] - y.v * x.d[i]) * q;
  return r;
}
/// |a|, with the sign of a's value (the one-sided derivative of the branch taken; +1 at 0).
template <class T, int N> LB_HD Dual<T, N> abs(const Dual<T, N>& a) { return a.v < T(0) ? -a : a; }
/// Whether the value and every partial are finite.
template <class T, int N> LB_HD bool isfinite(const Dual<T, N>& a) {
  bool f = lb::isfinite(a.v);
  LB_UNROLL for (int i = 0; i < N; ++i) f = f && lb::isfinite(a.d[i]);
  return f;
}

}  // namespace lb
