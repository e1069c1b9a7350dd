// Double-word numbers ([JMP17]): an unevaluated sum hi + lo of two T with |lo| ≤ ulp(hi)/2, about
// twice T's precision, built on the error-free transformations 2Sum, Fast2Sum and 2Prod (with an
// FMA). They are exact only if no product is contracted with a neighbouring sum into an FMA: the
// host build compiles with -ffp-contract=off (a user's build including this header must too), and
// on the device, where nvcc contracts by default, the products are mul_rn (scalar.hpp), which it
// never contracts. A scalar type for the core (Vec, Mat3, SO3, the series of series.hpp) like
// dual.hpp's: it compares by its value, its lane is T (lane_t<DoubleWord<T>> = T, so the series
// take T's terms and coefficients: truncated at T's precision) and it brings sqrt, sin, cos, abs
// and isfinite for argument-dependent lookup; sin and cos are T's corrected to first order in lo,
// as accurate as T's own. What it is for: a Newton root refined once with a residual evaluated in
// double words (newton.hpp's newton_refined), so that the rounding of T's residual does not bias a
// conserved quantity by the same amount step after step (docs/symplectic.md §4). Host and device,
// float and double; no allocation.
#pragma once

#include "scalar.hpp"
#include "vec.hpp"

namespace lb {

template <class T> struct DoubleWord {
  T hi;  ///< the value rounded to T
  T lo;  ///< the rest, |lo| ≤ ulp(hi)/2

  DoubleWord() = default;
  /// x exactly.
  LB_HD constexpr DoubleWord(T x) : hi(x), lo(0) {}  // NOLINT: implicit, so T and DoubleWord mix as scalars do
  LB_HD constexpr DoubleWord(T h, T l) : hi(h), lo(l) {}
  /// The value rounded to T.
  LB_HD explicit constexpr operator T() const { return hi + lo; }

  /// s + e = a + b exactly (2Sum).
  LB_HD static DoubleWord two_sum(T a, T b) {
    const T s = a + b, bb = s - a;
    return {s, (a - (s - bb)) + (b - bb)};
  }
  /// s + e = a + b exactly where |a| ≥ |b| or a = 0 (Fast2Sum).
  LB_HD static DoubleWord fast_two_sum(T a, T b) {
    const T s = a + b;
    return {s, b - (s - a)};
  }
  /// p + e = a·b exactly (2Prod: the FMA gives the product's rounding error).
  LB_HD static DoubleWord two_prod(T a, T b) {
    const T p = lb::mul_rn(a, b);
    return {p, lb::fma(a, b, -p)};
  }
  /// x·y for a T y ([JMP17 Alg. 7], DWTimesFP1): relative error ≤ 1.5u² + 4u³.
  LB_HD static DoubleWord times(const DoubleWord& x, T y) {
    const DoubleWord c = two_prod(x.hi, y);
    const DoubleWord t = fast_two_sum(c.hi, lb::mul_rn(x.lo, y));
    return fast_two_sum(t.hi, t.lo + c.lo);
  }

  LB_HD DoubleWord operator-() const { return {-hi, -lo}; }
  LB_HD DoubleWord operator+() const { return *this; }
  /// [JMP17 Alg. 6] (AccurateDWPlusDW): relative error ≤ 3u² + 13u³, u = ε/2.
  LB_HD friend DoubleWord operator+(const DoubleWord& x, const DoubleWord& y) {
    const DoubleWord s = two_sum(x.hi, y.hi), t = two_sum(x.lo, y.lo);
    const DoubleWord v = fast_two_sum(s.hi, s.lo + t.hi);
    return fast_two_sum(v.hi, t.lo + v.lo);
  }
  LB_HD friend DoubleWord operator-(const DoubleWord& x, const DoubleWord& y) { return x + (-y); }
  /// [JMP17 Alg. 12] (DWTimesDW3): relative error ≤ 5u² (JMP17's Theorem; 4u² observed there).
  LB_HD friend DoubleWord operator*(const DoubleWord& x, const DoubleWord& y) {
    const DoubleWord c = two_prod(x.hi, y.hi);
    return fast_two_sum(c.hi, c.lo + lb::fma(x.lo, y.hi, lb::fma(x.hi, y.lo, lb::mul_rn(x.lo, y.lo))));
  }
  /// [JMP17 Alg. 17] (DWDivDW2): relative error ≤ 15u² + 56u³.
  LB_HD friend DoubleWord operator/(const DoubleWord& x, const DoubleWord& y) {
    const T q = x.hi / y.hi;
    const DoubleWord r = times(y, q);
    return fast_two_sum(q, ((x.hi - r.hi) + (x.lo - r.lo)) / y.hi);
  }
  LB_HD DoubleWord& operator+=(const DoubleWord& b) { return *this = *this + b; }
  LB_HD DoubleWord& operator-=(const DoubleWord& b) { return *this = *this - b; }
  LB_HD DoubleWord& operator*=(const DoubleWord& b) { return *this = *this * b; }
  LB_HD DoubleWord& operator/=(const DoubleWord& b) { return *this = *this / b; }

  LB_HD friend bool operator<(const DoubleWord& a, const DoubleWord& b) {
    return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
  }
  LB_HD friend bool operator>(const DoubleWord& a, const DoubleWord& b) { return b < a; }
  LB_HD friend bool operator<=(const DoubleWord& a, const DoubleWord& b) {
    return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo);
  }
  LB_HD friend bool operator>=(const DoubleWord& a, const DoubleWord& b) { return b <= a; }
  LB_HD friend bool operator==(const DoubleWord& a, const DoubleWord& b) { return a.hi == b.hi && a.lo == b.lo; }
  LB_HD friend bool operator!=(const DoubleWord& a, const DoubleWord& b) { return !(a == b); }
};

template <class T> struct lane_of<DoubleWord<T>> {
  using type = T;
};

/// √a: T's root s corrected by one Newton step, (a − s²)/(2s), with s² exact by 2Prod (no bound
/// published for this form; test_symplectic measures it).
template <class T> LB_HD DoubleWord<T> sqrt(const DoubleWord<T>& a) {
  const T s = lb::sqrt(a.hi);
  if (!(s > T(0) && lb::isfinite(s))) return DoubleWord<T>(s);
  const DoubleWord<T> p = DoubleWord<T>::two_prod(s, s);
  return DoubleWord<T>::fast_two_sum(s, (((a.hi - p.hi) - p.lo) + a.lo) / (T(2) * s));
}
/// sin(hi + lo) = sin(hi) + cos(hi)·lo + O(lo²): as accurate as T's sin.
template <class T> LB_HD DoubleWord<T> sin(const DoubleWord<T>& a) {
  return DoubleWord<T>::two_sum(lb::sin(a.hi), lb::mul_rn(lb::cos(a.hi), a.lo));
}
/// cos(hi + lo) = cos(hi) − sin(hi)·lo + O(lo²): as accurate as T's cos.
template <class T> LB_HD DoubleWord<T> cos(const DoubleWord<T>& a) {
  return DoubleWord<T>::two_sum(lb::cos(a.hi), -lb::mul_rn(lb::sin(a.hi), a.lo));
}
template <class T> LB_HD DoubleWord<T> abs(const DoubleWord<T>& a) { return a.hi < T(0) ? -a : a; }
template <class T> LB_HD bool isfinite(const DoubleWord<T>& a) { return lb::isfinite(a.hi) && lb::isfinite(a.lo); }

/// c + Σᵢ aᵢbᵢ as if computed in twice T's precision and rounded once (Dot2 of [ORO05], Alg. 5.3:
/// 2Prod and 2Sum, their errors summed apart); what a conversion needs that must not bias a
/// conserved quantity by its rounding.
template <class T, int N> LB_HD T dot2(const Vec<T, N>& a, const Vec<T, N>& b, T c = T(0)) {
  using W = DoubleWord<T>;
  T s = c, e = T(0);
  for (int i = 0; i < N; ++i) {
    const W p = W::two_prod(a[i], b[i]), t = W::two_sum(s, p.hi);
    s = t.hi;
    e += p.lo + t.lo;
  }
  return s + e;
}

}  // namespace lb
