// exp's and dexp⁻¹'s coefficient functions on so(3), s = sin α/α, c = (1 − cos α)/α² and
// g2 = (1 − (α/2)cot(α/2))/α², rounded once from double words: correctly rounded but for values
// within about 10⁻²⁰ (double) or 10⁻¹⁰ (float) relative of a midpoint between two floats, and for s
// within about 10⁻⁹ of its zero at α² = π², where the error bound is absolute; series.hpp's are
// within a few ulps. τ = exp of the Hamilton–Pontryagin integrators needs this (docs/symplectic.md
// §6): the conservation of their momentum map rests on identities between s, c and g2, and on a
// nearly steady trajectory the last-ulp errors of series.hpp's values are the same every step, so
// the momentum drifts linearly.
#pragma once
#include <limits>
#include <utility>

#include "detail/series_tables_dw.hpp"
#include "double_word.hpp"
#include "series.hpp"

namespace lb {

/// s = sin α/α, c = (1 − cos α)/α², g2 = (1 − (α/2)cot(α/2))/α² at one α.
template <class T> struct So3Coeffs {
  T s;
  T c;
  T g2;
};

namespace series_refined {
#define LB_DW_HI(h, l) h,
#define LB_DW_LO(h, l) l,
/// A double as T, with what lies below T's smallest normal number taken as 0: nvcc refuses a
/// constant that converts to a subnormal, and in float 1/n! is one from n = 34 on (its term
/// (α²)ᵏ/n! is below 10⁻¹⁴ of the sum for α² < 40, far below float's double words' need).
template <class T> LB_HD constexpr T normal_or_zero(double v) {
  constexpr double tiny = double(std::numeric_limits<T>::min());
  return v < tiny && v > -tiny ? T(0) : T(v);
}

/// ±1/n! as a double word of T. A float pair is split from the double pair: hi − float(hi) is
/// exact in double, so lo carries the rest to float's own precision.
template <class T, int n, int sign> LB_HD constexpr DoubleWord<T> inv_fact() {
  constexpr double hi[] = {LB_TABLE_INV_FACT_DW(LB_DW_HI)};
  constexpr double lo[] = {LB_TABLE_INV_FACT_DW(LB_DW_LO)};
  static_assert(n < int(sizeof(hi) / sizeof(hi[0])), "series_tables_dw.hpp too short");
  constexpr T h = normal_or_zero<T>(hi[n]);
  constexpr T l = normal_or_zero<T>((hi[n] - double(h)) + lo[n]);
  return DoubleWord<T>(T(sign) * h, T(sign) * l);
}
#undef LB_DW_HI
#undef LB_DW_LO

/// Σ_{k<K} (−x)^k/(off + 2k)! by the compensated Horner scheme ([GLL05]): Horner in T,
/// with the rounding error of every product and sum (2Prod, 2Sum) and the coefficients' own lo
/// parts summed by a second Horner recurrence; the result as hi + lo. Its error is that of Horner
/// in twice T's precision times the condition number Σ|aₖ|xᵏ/|p(x)| (up to 5·10⁴ here: c near
/// α = 2π − 0.1), about 10⁻²⁵ relative for double.
template <class T, int K, int off> LB_HD DoubleWord<T> comp_horner(T x) {
  using W = DoubleWord<T>;
  T r = T(0), e = T(0);
  auto level = [&](auto i) {
    constexpr int k = K - 1 - decltype(i)::value;
    constexpr W a = inv_fact<T, off + 2 * k, (k & 1) ? -1 : 1>();
    const W p = W::two_prod(r, x);
    const W s = W::two_sum(p.hi, a.hi);
    e = e * x + ((p.lo + s.lo) + a.lo);
    r = s.hi;
  };
  series::for_each_index(level, std::make_integer_sequence<int, K>{});
  return W::fast_two_sum(r, e);
}

/// s and c in double words with K terms, and g2 = (2c − s)/(2cα²) from them (cot(α/2) = s/(αc)):
/// 2c − s cancels to α²/12 for small α, which costs double words a factor 12/α² of their 2⁻¹⁰⁶,
/// harmless above series::tiny2; below it g2's share of dexp⁻¹ (α²g2 ≤ 10⁻⁴) is far below an ulp
/// and series.hpp's value serves.
template <class T, int K> LB_HD So3Coeffs<T> coeffs(T a2) {
  using W = DoubleWord<T>;
  const W s = comp_horner<T, K, 1>(a2), c = comp_horner<T, K, 2>(a2);
  const T g2 = a2 < series::tiny2<T>() ? dexpinv_coeffs(a2).g2 : T((W(T(2)) * c - s) / (W(T(2)) * W::times(c, a2)));
  return {T(s), T(c), g2};
}
}  // namespace series_refined

/// s, c and g2 of α² = a2 correctly rounded (with the exceptions above) for α² < 40, which holds
/// the whole injectivity domain of dexp⁻¹ (α < 2π − 0.1; c has its zero at α² = 4π² = 39.5, beyond
/// it); series.hpp's above. Terms per tier: the first one
/// left out is below 10⁻²⁰ of the sum, condition number included. Scalars T: float and double;
/// every other scalar gets series.hpp's values.
template <class T> LB_HD So3Coeffs<T> so3_coeffs_refined(T a2) {
  if constexpr (is_device_scalar_v<T>) {
    if (a2 < T(2.25)) return series_refined::coeffs<T, 13>(a2);
    if (a2 < T(9)) return series_refined::coeffs<T, 18>(a2);
    if (a2 < T(40)) return series_refined::coeffs<T, 26>(a2);
  }
  const ExpCoeffs<T> e = exp_coeffs(a2);
  return {e.s, e.c, dexpinv_coeffs(a2).g2};
}

}  // namespace lb
