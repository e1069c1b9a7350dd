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

/// True for the scalar types that run on the device (float, double).
template <class T>
inline constexpr bool is_device_scalar_v = std::is_same_v<T, float> || std::is_same_v<T, double>;

template <class T> LB_HD T sqrt(T x) { using std::sqrt; return sqrt(x); }
template <class T> LB_HD T sin(T x) { using std::sin; return sin(x); }
template <class T> LB_HD T cos(T x) { using std::cos; return cos(x); }
template <class T> LB_HD T tan(T x) { using std::tan; return tan(x); }
template <class T> LB_HD T atan2(T y, T x) { using std::atan2; return atan2(y, x); }
template <class T> LB_HD T pow(T x, T y) { using std::pow; return pow(x, y); }
template <class T> LB_HD T abs(T x) { using std::abs; return abs(x); }
template <class T> LB_HD T floor(T x) { using std::floor; return floor(x); }
template <class T> LB_HD bool isfinite(T x) { using std::isfinite; return isfinite(x); }

// Branches that the lanes of a pack (pack.hpp) may take differently are written with these; on a
// scalar they are the plain operations, so the scalar path compiles to the same code.
LB_HD constexpr bool any(bool c) { return c; }
LB_HD constexpr bool all(bool c) { return c; }
LB_HD constexpr bool none(bool c) { return !c; }
/// a if c, else b.
template <class T> LB_HD T select(bool c, const T& a, const T& b) { return c ? a : b; }
/// The larger (smaller) of a and b; b when they do not compare (NaN), as `a > b ? a : b`.
template <class T> LB_HD T max(const T& a, const T& b) { return select(a > b, a, b); }
template <class T> LB_HD T min(const T& a, const T& b) { return select(a < b, a, b); }

/// π in T to the type's precision (extended types compute it once per call: host only).
template <class T> LB_HD T pi() {
  if constexpr (is_device_scalar_v<T>) {
    return T(3.141592653589793238462643383279502884197);
  } else {
    using std::atan;
    return T(4) * atan(T(1));
  }
}

/// Machine epsilon of T.
template <class T> LB_HD constexpr T epsilon() { return std::numeric_limits<T>::epsilon(); }

/// Parses a decimal literal into an extended-precision T (host only; used for coefficient tables).
template <class T> T from_decimal(const char* s) {
  if constexpr (std::is_constructible_v<T, const char*>) return T(s);
  else return T(std::strtold(s, nullptr));
}

}  // namespace lb
