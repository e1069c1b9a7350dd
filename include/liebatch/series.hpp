// Coefficient functions of exp, dexp and dexp⁻¹ on so(3) and se(3), accurate to round-off at every
// angle. Closed forms cancel catastrophically for small α (docs/lie-groups.md §4), so
// below α = 1.5 every function is a Taylor series in α², summed in Horner form with just enough
// terms for the scalar type; above it the closed forms lose at most a factor ~100 of ε, but for
// dexp⁻¹'s g̃₂ just above 1.5: its numerator, α⁴/360 there, is a difference of terms near 1, and it
// loses up to ~250 ulp (measured against 60 digits), up to α ≈ 2.1. It is α⁴ smaller than the terms
// beside it in se(3)'s dexp⁻¹, which so stays within a few ε.
#pragma once
#include <limits>
#include <type_traits>
#include <utility>

#include "detail/series_tables.hpp"
#include "scalar.hpp"

namespace lb {
namespace series {

/// Series are used for α² below this (α < 1.5) ...
template <class T> LB_HD constexpr T threshold2() { return T(2.25); }
/// ... with fewer terms below this (α < 0.25, the typical size of an RKMK stage argument) ...
template <class T> LB_HD constexpr T small2() { return T(0.0625); }
/// ... and fewer still below this (α < 1/32: the stages of small fixed steps).
template <class T> LB_HD constexpr T tiny2() { return T(0.0009765625); }

/// A parsed coefficient table of an extended-precision type (host only).
template <class T, int N> struct Parsed {
  T v[N];
  const T& operator[](int i) const { return v[i]; }
};
template <class T, int N> Parsed<T, N> parse_all(const char* const (&s)[N]) {
  Parsed<T, N> r;
  for (int i = 0; i < N; ++i) r.v[i] = from_decimal<T>(s[i]);
  return r;
}

/// Which table a coefficient comes from.
enum class Table { bern_g2, inv_fact };

#define LB_AS_NUMBER(x) x,
#define LB_AS_STRING(x) #x,
/// Table entry k as a compile-time constant of a device type (no table is ever materialized).
template <Table tab, class T, int k> LB_HD constexpr T coef_constant() {
  constexpr double c_bern[] = {LB_TABLE_BERN_G2(LB_AS_NUMBER)};
  constexpr double c_fact[] = {LB_TABLE_INV_FACT(LB_AS_NUMBER)};
  return T(tab == Table::bern_g2 ? c_bern[k] : c_fact[k]);
}

/// A whole table in an extended type, its 40-digit literals parsed once per type (host only).
template <Table tab, class T> const auto& parsed() {
  if constexpr (tab == Table::bern_g2) {
    static const char* const s[] = {LB_TABLE_BERN_G2(LB_AS_STRING)};
    static const auto c = parse_all<T>(s);
    return c;
  } else {
    static const char* const s[] = {LB_TABLE_INV_FACT(LB_AS_STRING)};
    static const auto c = parse_all<T>(s);
    return c;
  }
}

/// Table entry k in T: a constant for device types; extended types read parsed<tab, T>().
template <Table tab, class T, int k> LB_HD T coef() {
  if constexpr (is_device_scalar_v<T>) {
    constexpr T v = coef_constant<tab, T, k>();
    return v;
  } else {
    return parsed<tab, T>()[k];
  }
}
#undef LB_AS_NUMBER
#undef LB_AS_STRING

/// The end of tier 0, 1 or 2: α² below tiny2, small2 or threshold2.
template <int tier> constexpr double tier_end2() {
  return tier == 0 ? tiny2<double>() : (tier == 1 ? small2<double>() : threshold2<double>());
}

/// Number of series terms for T in a tier, up to its end x2: the first omitted term is below
/// ε/1000 of the sum. bern: terms ~ 2k·(x2/4π²)^k relative to the leading 1/12; fact: x2^k/(2k+1)!.
template <class T, Table tab, int tier> constexpr int terms() {
  static_assert(std::numeric_limits<T>::is_specialized, "terms<T>: T must be a scalar type (a pack's lane_t)");
  const double x2 = tier_end2<tier>();
  double eps = 1.0;
  for (int i = 1; i < std::numeric_limits<T>::digits; ++i) eps *= 0.5;
  double t = 1.0;
  int k = 0;
  if constexpr (tab == Table::bern_g2) {
    while (24.0 * 2 * (k + 1) * t > eps * 1e-3) { t *= x2 / 39.47841760435743; ++k; }
  } else {
    while ((2.0 * k + 2) * t > eps * 1e-3) { ++k; t *= x2 / ((2.0 * k) * (2.0 * k + 1)); }
  }
  return k;
}

}  // namespace series

/// exp on so(3)/se(3): exp(Â) = I + s Â + c Â², and V = I + c Â + d Â² (docs/lie-groups.md §2.2, §3.1).
template <class T> struct ExpCoeffs {
  T s;  ///< sin α / α
  T c;  ///< (1 − cos α) / α²
  T d;  ///< (α − sin α) / α³
};

/// dexp on se(3) through the φ(ad) construction ([CCLMO22 §2.3]) with φ(z) = (eᶻ − 1)/z.
template <class T> struct DexpCoeffs {
  T g1;   ///< (1 − cos α)/α²
  T g2;   ///< (α − sin α)/α³
  T g1t;  ///< g1′(α)/α = (s − 2 g1)/α²
  T g2t;  ///< g2′(α)/α = (g1 − 3 g2)/α²
};

/// dexp⁻¹ on so(3)/se(3), φ(z) = z/(eᶻ − 1): g1 = −½ and g̃1 = 0 are constants.
template <class T> struct DexpinvCoeffs {
  T g2;   ///< (1 − (α/2)cot(α/2))/α², → 1/12 (note the plus sign in dexp⁻¹)
  T g2t;  ///< g2′(α)/α, → 1/360
};

namespace series {
template <class F, int... I> LB_HD void for_each_index(F& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}

/// Σ_{k<K} (±1)^k x^k coef(off + step·k)·w(k) in Horner form, w(k) = 2(k+1) for derivative
/// series; every coefficient (sign and weight included) is a compile-time constant.
template <class T, Table tab, int K, int off, int step, bool alternating, bool deriv>
LB_HD T horner(T x) {
  T r = T(0);
  auto term = [&](auto i) {
    constexpr int k = K - 1 - decltype(i)::value;
    constexpr int w = ((alternating && (k & 1)) ? -1 : 1) * (deriv ? 2 * (k + 1) : 1);
    if constexpr (is_device_scalar_v<lane_t<T>>) {  // folded: one multiply-add per term
      constexpr lane_t<T> c = lane_t<T>(w) * coef_constant<tab, lane_t<T>, off + step * k>();
      r = r * x + T(c);
    } else {
      r = r * x + T(w) * coef<tab, T, off + step * k>();
    }
  };
  for_each_index(term, std::make_integer_sequence<int, K>{});
  return r;
}
}  // namespace series

namespace series {
template <class T, int tier> LB_HD ExpCoeffs<T> exp_series(T a2) {
  constexpr int K = terms<lane_t<T>, Table::inv_fact, tier>();
  return {horner<T, Table::inv_fact, K, 1, 2, true, false>(a2), horner<T, Table::inv_fact, K, 2, 2, true, false>(a2),
          horner<T, Table::inv_fact, K, 3, 2, true, false>(a2)};
}
/// g̃1 = Σ_{k≥0} 2(k+1)(−1)^{k+1} α^{2k}/(2k+4)!, g̃2 likewise with (2k+5)!.
template <class T, int tier> LB_HD DexpCoeffs<T> dexp_series(T a2) {
  constexpr int K = terms<lane_t<T>, Table::inv_fact, tier>();
  return {horner<T, Table::inv_fact, K, 2, 2, true, false>(a2), horner<T, Table::inv_fact, K, 3, 2, true, false>(a2),
          -horner<T, Table::inv_fact, K, 4, 2, true, true>(a2), -horner<T, Table::inv_fact, K, 5, 2, true, true>(a2)};
}
template <class T, int tier> LB_HD DexpinvCoeffs<T> dexpinv_series(T a2) {
  constexpr int K = terms<lane_t<T>, Table::bern_g2, tier>();
  static_assert(K + 1 <= 34, "Bernoulli table too short for this precision");
  return {horner<T, Table::bern_g2, K, 0, 1, false, false>(a2), horner<T, Table::bern_g2, K, 1, 1, false, true>(a2)};
}
}  // namespace series

namespace series {
/// Coefficients member by member: a where c holds, b elsewhere (the lanes of a pack).
template <class M, class T> LB_HD ExpCoeffs<T> select(const M& c, const ExpCoeffs<T>& a, const ExpCoeffs<T>& b) {
  return {lb::select(c, a.s, b.s), lb::select(c, a.c, b.c), lb::select(c, a.d, b.d)};
}
template <class M, class T> LB_HD DexpCoeffs<T> select(const M& c, const DexpCoeffs<T>& a, const DexpCoeffs<T>& b) {
  return {lb::select(c, a.g1, b.g1), lb::select(c, a.g2, b.g2), lb::select(c, a.g1t, b.g1t), lb::select(c, a.g2t, b.g2t)};
}
template <class M, class T> LB_HD DexpinvCoeffs<T> select(const M& c, const DexpinvCoeffs<T>& a, const DexpinvCoeffs<T>& b) {
  return {lb::select(c, a.g2, b.g2), lb::select(c, a.g2t, b.g2t)};
}

/// The coefficients of α²'s tier: series(integral_constant<tier>) below tiny2, small2 and
/// threshold2, closed() above. A scalar evaluates its one tier; a pack (pack.hpp) every tier one
/// of its lanes is in, each lane taking its own, so a lane gets the scalar's value.
template <class T, class Series, class Closed> LB_HD auto by_tier(T a2, Series&& series, Closed&& closed) {
  using std::integral_constant;
  if constexpr (!is_pack_v<T>) {
    if (a2 < tiny2<T>()) return series(integral_constant<int, 0>{});
    if (a2 < small2<T>()) return series(integral_constant<int, 1>{});
    if (a2 < threshold2<T>()) return series(integral_constant<int, 2>{});
    return closed();
  } else {
    using L = lane_t<T>;
    const auto m0 = a2 < T(tiny2<L>()), m1 = a2 < T(small2<L>()), m2 = a2 < T(threshold2<L>());
    decltype(closed()) r{};
    if (!lb::all(m2)) r = closed();
    if (lb::any(m2 && !m1)) r = select(m2, series(integral_constant<int, 2>{}), r);
    if (lb::any(m1 && !m0)) r = select(m1, series(integral_constant<int, 1>{}), r);
    if (lb::any(m0)) r = select(m0, series(integral_constant<int, 0>{}), r);
    return r;
  }
}
}  // namespace series

namespace series {
/// s, c, d in closed form, accurate for α ≥ 1.5.
template <class T> LB_HD ExpCoeffs<T> exp_closed(T a2) {
  const T a = lb::sqrt(a2), sa = lb::sin(a), sh = lb::sin(a / T(2));
  return {sa / a, T(2) * sh * sh / a2, (a - sa) / (a2 * a)};
}
}  // namespace series

/// s, c, d of α² = |A|².
template <class T> LB_HD ExpCoeffs<T> exp_coeffs(T a2) {
  return series::by_tier(a2, [&](auto tier) { return series::exp_series<T, decltype(tier)::value>(a2); },
                         [&] { return series::exp_closed(a2); });
}

/// Coefficients of dexp on se(3) (and so(3), which uses g1 and g2 only).
template <class T> LB_HD DexpCoeffs<T> dexp_coeffs(T a2) {
  return series::by_tier(a2, [&](auto tier) { return series::dexp_series<T, decltype(tier)::value>(a2); }, [&] {
    const ExpCoeffs<T> e = series::exp_closed(a2);  // not exp_coeffs: a pack's other tiers are done here
    return DexpCoeffs<T>{e.c, e.d, (e.s - T(2) * e.c) / a2, (e.c - T(3) * e.d) / a2};
  });
}

/// Coefficients of dexp⁻¹ on so(3)/se(3). Singular at α = 2π (returns non-finite values there).
/// The closed g̃₂ cancels just above α = 1.5 (see the top of this file).
template <class T> LB_HD DexpinvCoeffs<T> dexpinv_coeffs(T a2) {
  return series::by_tier(a2, [&](auto tier) { return series::dexpinv_series<T, decltype(tier)::value>(a2); }, [&] {
    const T a = lb::sqrt(a2), x = a / T(2), sx = lb::sin(x), h = x * lb::cos(x) / sx;
    return DexpinvCoeffs<T>{(T(1) - h) / a2, (h - T(2) + (x * x) / (sx * sx)) / (a2 * a2)};
  });
}

}  // namespace lb
