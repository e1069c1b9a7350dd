// A double that counts its floating-point operations, for FLOP counts per step of any model ×
// method: the core is templated on the scalar, so the very code that runs is what is counted.
// Convention: +, −, × and ÷ count one each (an FMA on the device is two); sqrt, sin, cos, atan2
// and pow are counted apart as special functions (a few tens of instructions each on a GPU).
// Operations the compiler folds away (a product with a coefficient that is exactly 1) are
// counted too, so the counts are upper bounds by a few per stage.
#pragma once
#include <cmath>
#include <limits>

namespace lb::bench {

struct Counted {
  double v;
  static inline long add = 0, mul = 0, div = 0, special = 0;
  static void reset() { add = mul = div = special = 0; }
  static long flops() { return add + mul + div; }

  Counted() = default;
  constexpr Counted(double x) : v(x) {}
  explicit constexpr operator double() const { return v; }
  Counted& operator+=(Counted b) { ++add; v += b.v; return *this; }
  Counted& operator-=(Counted b) { ++add; v -= b.v; return *this; }
  Counted& operator*=(Counted b) { ++mul; v *= b.v; return *this; }
  Counted& operator/=(Counted b) { ++div; v /= b.v; return *this; }
};
inline Counted operator+(Counted a, Counted b) { return a += b; }
inline Counted operator-(Counted a, Counted b) { return a -= b; }
inline Counted operator*(Counted a, Counted b) { return a *= b; }
inline Counted operator/(Counted a, Counted b) { return a /= b; }
inline Counted operator-(Counted a) { return Counted(-a.v); }  // a sign flip, not counted
inline bool operator<(Counted a, Counted b) { return a.v < b.v; }
inline bool operator>(Counted a, Counted b) { return a.v > b.v; }
inline bool operator<=(Counted a, Counted b) { return a.v <= b.v; }
inline bool operator>=(Counted a, Counted b) { return a.v >= b.v; }
inline bool operator==(Counted a, Counted b) { return a.v == b.v; }
inline bool operator!=(Counted a, Counted b) { return a.v != b.v; }
inline Counted sqrt(Counted a) { ++Counted::special; return Counted(std::sqrt(a.v)); }
inline Counted sin(Counted a) { ++Counted::special; return Counted(std::sin(a.v)); }
inline Counted cos(Counted a) { ++Counted::special; return Counted(std::cos(a.v)); }
inline Counted tan(Counted a) { ++Counted::special; return Counted(std::tan(a.v)); }
inline Counted atan(Counted a) { ++Counted::special; return Counted(std::atan(a.v)); }
inline Counted atan2(Counted a, Counted b) { ++Counted::special; return Counted(std::atan2(a.v, b.v)); }
inline Counted pow(Counted a, Counted b) { ++Counted::special; return Counted(std::pow(a.v, b.v)); }
inline Counted abs(Counted a) { return Counted(std::abs(a.v)); }
inline Counted floor(Counted a) { return Counted(std::floor(a.v)); }
inline bool isfinite(Counted a) { return std::isfinite(a.v); }

/// FLOPs of one step of size h at y0 of Method on model m (any scalar), counted on the step code.
template <class Method, class Model, class Y> double flops_per_step(const Model& m, const Y& y0, double h) {
  const auto mc = m.template cast<Counted>();
  typename decltype(mc)::space::point yc;
  for (int d = 0; d < Y::size; ++d) yc[d] = Counted(double(y0[d]));
  Counted::reset();
  (void)Method::step(mc, Counted(0.0), yc, Counted(h));
  return double(Counted::flops());
}

}  // namespace lb::bench

template <> struct std::numeric_limits<lb::bench::Counted> : std::numeric_limits<double> {
  static constexpr lb::bench::Counted epsilon() { return {std::numeric_limits<double>::epsilon()}; }
  static constexpr lb::bench::Counted max() { return {std::numeric_limits<double>::max()}; }
  static constexpr lb::bench::Counted min() { return {std::numeric_limits<double>::min()}; }
  static constexpr lb::bench::Counted lowest() { return {std::numeric_limits<double>::lowest()}; }
  static constexpr lb::bench::Counted infinity() { return {std::numeric_limits<double>::infinity()}; }
  static constexpr lb::bench::Counted quiet_NaN() { return {std::numeric_limits<double>::quiet_NaN()}; }
};
