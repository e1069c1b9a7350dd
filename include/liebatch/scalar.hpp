// Scalar math for every supported type: float and double (host and device), long double and
// boost::multiprecision::float128 (host reference solutions). Functions are found by ADL first, so
// multiprecision types supply their own.
#pragma once
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>
#include <utility>

#include "config.hpp"

namespace lb {

/// Packs of lanes (pack.hpp) and the scalar type of one lane; a plain scalar is its own lane.
template <class T> inline constexpr bool is_pack_v = false;
template <class T> struct lane_of {
  using type = T;
};
template <class T> using lane_t = typename lane_of<T>::type;

/// What a comparison of two T gives: bool, or a pack's mask of lanes.
template <class T> using mask_t = decltype(std::declval<const T&>() < std::declval<const T&>());

/// An integer or enum quantity I (a count, a sample index, a status) held per lane of T: I
/// itself beside a scalar, pack.hpp's Lanes beside a pack.
template <class T, class I> struct lanes_of {
  using type = I;
};
template <class T, class I> using lanes_t = typename lanes_of<T, I>::type;

/// True for the scalar types that run on the device (float, double).
template <class T>
inline constexpr bool is_device_scalar_v = std::is_same_v<T, float> || std::is_same_v<T, double>;

// Each calls the function for T found by argument-dependent lookup where it is instantiated: std's
// for float and double, Boost's for its multiprecision types, pack.hpp's for a Pack (which may be
// included after this header).
template <class T> LB_HD T sqrt(T x) { using std::sqrt; return sqrt(x); }
template <class T> LB_HD T sin(T x) { using std::sin; return sin(x); }
template <class T> LB_HD T cos(T x) { using std::cos; return cos(x); }
template <class T> LB_HD T tan(T x) { using std::tan; return tan(x); }
template <class T> LB_HD T atan2(T y, T x) { using std::atan2; return atan2(y, x); }
template <class T> LB_HD T pow(T x, T y) { using std::pow; return pow(x, y); }
template <class T> LB_HD T abs(T x) { using std::abs; return abs(x); }
template <class T> LB_HD T floor(T x) { using std::floor; return floor(x); }
/// a·b + c rounded once (the instruction where the machine has one).
template <class T> LB_HD T fma(T a, T b, T c) { using std::fma; return fma(a, b, c); }
/// a·b rounded on its own, never contracted into an FMA with a neighbouring sum: the host build
/// compiles with -ffp-contract=off, and on the device, where nvcc contracts by default, the product
/// is __dmul_rn / __fmul_rn, which it never contracts. For numbers the host and device must agree on
/// bitwise (a strobe's time) and for error-free transformations (double_word.hpp).
template <class T> LB_HD T mul_rn(T a, T b) {
#ifdef __CUDA_ARCH__
  if constexpr (std::is_same_v<T, float>) return __fmul_rn(a, b);
  else return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
/// Whether x is finite (per lane for a pack: a mask).
template <class T> LB_HD auto isfinite(T x) { using std::isfinite; return isfinite(x); }

// Branches that the lanes of a pack (pack.hpp) may take differently are written with these; on a
// scalar (c a bool) they are the plain operations, so the scalar path compiles to the same code.
// A pack's mask brings lanes_any, lanes_all and lanes_select, found by argument-dependent lookup.
template <class M> LB_HD constexpr bool any(const M& c) {
  if constexpr (std::is_same_v<M, bool>) return c; else return lanes_any(c);
}
template <class M> LB_HD constexpr bool all(const M& c) {
  if constexpr (std::is_same_v<M, bool>) return c; else return lanes_all(c);
}
template <class M> LB_HD constexpr bool none(const M& c) { return !lb::any(c); }
/// a where c holds, b elsewhere.
template <class M, class T> LB_HD T select(const M& c, const T& a, const T& b) {
  if constexpr (std::is_same_v<M, bool>) return c ? a : b; else return lanes_select(c, a, b);
}
/// x += v in the lanes where c holds (lanes_t quantities).
template <class M, class X, class V> LB_HD void add_where(const M& c, X& x, const V& v) {
  if constexpr (std::is_same_v<M, bool>) { if (c) x += v; } else lanes_add_where(c, x, v);
}
/// x = v in the lanes where c holds.
template <class M, class X, class V> LB_HD void set_where(const M& c, X& x, const V& v) {
  if constexpr (std::is_same_v<M, bool>) { if (c) x = v; } else lanes_set_where(c, x, v);
}
/// f(l) for every lane l where c holds (l = 0 for a scalar): per-lane work a pack leaves to scalar
/// code (output records, root finding).
template <class M, class F> LB_HD void for_lanes(const M& c, F&& f) {
  if constexpr (std::is_same_v<M, bool>) { if (c) f(0); } else lanes_for(c, f);
}
/// The integer quantity k (a lanes_t) as T, lane by lane.
template <class T, class K> LB_HD T as(const K& k) {
  if constexpr (std::is_arithmetic_v<K>) return T(k); else return lanes_as<T>(k);
}
/// The larger (smaller) of a and b; b when they do not compare (NaN), as `a > b ? a : b`.
template <class T> LB_HD T max(const T& a, const T& b) { return lb::select(a > b, a, b); }
template <class T> LB_HD T min(const T& a, const T& b) { return lb::select(a < b, a, b); }
/// The larger of a and b, and NaN where either is: a defect or an angle of a state gone NaN must
/// not pass for 0 (max drops a NaN).
template <class T> LB_HD T max_nan(const T& a, const T& b) { return lb::select(a != a, a, lb::max(a, b)); }

/// π in T to the type's precision (extended types compute it once per call: host only).
template <class T> LB_HD T pi() {
  if constexpr (is_device_scalar_v<lane_t<T>>) {
    return T(lane_t<T>(3.141592653589793238462643383279502884197));
  } else {
    using std::atan;
    return T(4) * atan(T(1));
  }
}

/// Machine epsilon of T (of its lanes, for a pack).
template <class T> LB_HD constexpr T epsilon() { return T(std::numeric_limits<lane_t<T>>::epsilon()); }

/// Parses a decimal literal into an extended-precision T (host only; used for coefficient tables).
template <class T> T from_decimal(const char* s) {
  if constexpr (std::is_constructible_v<T, const char*>) return T(s);
  else return T(std::strtold(s, nullptr));
}

}  // namespace lb
