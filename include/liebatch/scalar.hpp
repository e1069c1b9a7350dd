// Scalar math for every supported type: float and double (host and device), long double and
// boost::multiprecision::float128 (host reference solutions). Functions are found by ADL first, so
// multiprecision types supply their own.
#pragma once
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "config.hpp"

namespace lb {

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
