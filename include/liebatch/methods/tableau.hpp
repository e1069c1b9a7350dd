// Explicit Butcher tableaux with exact rational coefficients (as in Boost.odeint), converted to
// the scalar type at the point of use.
#pragma once
#include <type_traits>

#include "../config.hpp"
#include "../scalar.hpp"

namespace lb {

/// An exact rational p/q.
struct Rational {
  long long p, q;
  template <class T> LB_HD constexpr T as() const { return T(p) / T(q); }
};

/// r in T, a compile-time constant for the built-in types (so device code reads no table).
template <class T, Rational r> LB_HD T coefficient() {
  if constexpr (std::is_arithmetic_v<lane_t<T>>) {  // a pack (pack.hpp): the lane's constant in every lane
    constexpr lane_t<T> v = lane_t<T>(r.p) / lane_t<T>(r.q);
    return T(v);
  } else {
    return T(r.p) / T(r.q);
  }
}

/// b − b̂ of two rationals, exactly.
constexpr Rational difference(Rational a, Rational b) { return Rational{a.p * b.q - b.p * a.q, a.q * b.q}; }

/// Explicit s-stage tableau: a (strictly lower), b, c, and an optional embedded b̂.
template <int S> struct Tableau {
  static constexpr int stages = S;
  Rational a[S][S];
  Rational b[S];
  Rational c[S];
  int order;             ///< classical order of b
  Rational bhat[S];      ///< embedded weights (zero when none)
  int order_hat;         ///< order of b̂ (0 when none)
};

/// The embedded member of a pair as a method of its own: b̂ in place of b.
template <int S> constexpr Tableau<S> embedded_member(const Tableau<S>& t) {
  Tableau<S> r = t;
  for (int i = 0; i < S; ++i) { r.b[i] = t.bhat[i]; r.bhat[i] = Rational{0, 1}; }
  r.order = t.order_hat;
  r.order_hat = 0;
  return r;
}

namespace tableaux {
constexpr Rational O{0, 1};

/// Forward Euler (Lie–Euler under RKMK).
inline constexpr Tableau<1> euler{{{O}}, {{1, 1}}, {O}, 1, {O}, 0};
/// Heun's method (Lie–Euler–Heun).
inline constexpr Tableau<2> heun{{{O, O}, {{1, 1}, O}}, {{1, 2}, {1, 2}}, {O, {1, 1}}, 2, {O, O}, 0};
/// Kutta's third-order method [Kut01].
inline constexpr Tableau<3> kutta3{{{O, O, O}, {{1, 2}, O, O}, {{-1, 1}, {2, 1}, O}},
                                   {{1, 6}, {2, 3}, {1, 6}}, {O, {1, 2}, {1, 1}}, 3, {O, O, O}, 0};
/// Strong-stability-preserving third-order method (Shu–Osher [SO88]).
inline constexpr Tableau<3> ssp3{{{O, O, O}, {{1, 1}, O, O}, {{1, 4}, {1, 4}, O}},
                                 {{1, 6}, {1, 6}, {2, 3}}, {O, {1, 1}, {1, 2}}, 3, {O, O, O}, 0};
/// The classical fourth-order Runge–Kutta method.
inline constexpr Tableau<4> rk4{{{O, O, O, O}, {{1, 2}, O, O, O}, {O, {1, 2}, O, O}, {O, O, {1, 1}, O}},
                                {{1, 6}, {1, 3}, {1, 3}, {1, 6}}, {O, {1, 2}, {1, 2}, {1, 1}}, 4, {O, O, O, O}, 0};
/// Bogacki–Shampine 3(2) [BS89], FSAL stage 4; b̂ of order 2.
inline constexpr Tableau<4> bs32{{{O, O, O, O}, {{1, 2}, O, O, O}, {O, {3, 4}, O, O}, {{2, 9}, {1, 3}, {4, 9}, O}},
                                 {{2, 9}, {1, 3}, {4, 9}, O}, {O, {1, 2}, {3, 4}, {1, 1}}, 3,
                                 {{7, 24}, {1, 4}, {1, 3}, {1, 8}}, 2};
/// Dormand–Prince 5(4) [DP80]: b of order 5, b̂ of order 4; stage 7 is FSAL.
inline constexpr Tableau<7> dopri5{
    {{O, O, O, O, O, O, O},
     {{1, 5}, O, O, O, O, O, O},
     {{3, 40}, {9, 40}, O, O, O, O, O},
     {{44, 45}, {-56, 15}, {32, 9}, O, O, O, O},
     {{19372, 6561}, {-25360, 2187}, {64448, 6561}, {-212, 729}, O, O, O},
     {{9017, 3168}, {-355, 33}, {46732, 5247}, {49, 176}, {-5103, 18656}, O, O},
     {{35, 384}, O, {500, 1113}, {125, 192}, {-2187, 6784}, {11, 84}, O}},
    {{35, 384}, O, {500, 1113}, {125, 192}, {-2187, 6784}, {11, 84}, O},
    {O, {1, 5}, {3, 10}, {4, 5}, {8, 9}, {1, 1}, {1, 1}},
    5,
    {{5179, 57600}, O, {7571, 16695}, {393, 640}, {-92097, 339200}, {187, 2100}, {1, 40}},
    4};
inline constexpr Tableau<4> bs32_hat = embedded_member(bs32);
inline constexpr Tableau<7> dopri5_hat = embedded_member(dopri5);
}  // namespace tableaux

}  // namespace lb
