// Half-explicit Runge–Kutta tableaux for index-2 constrained systems ([ArnHE] eqs (4a)–(4c);
// docs/constrained.md): stage rows 2 … s̄+1, the output row s+1, the multiplier weights d and an
// embedded b̂, all as exact rationals (tableau.hpp's Rational), and HEDOP5.
#pragma once
#include "tableau.hpp"

namespace lb {

/// A half-explicit method with s̄ stages. Row i of `a` (0-based, i = 0 … s̄) gives stage i+1's
/// coefficients on the stage derivatives 1 … i; rows 1 … s̄ are the stage rows of [ArnHE] (4a),
/// the constraint of stage i (4c) is imposed at stage i+1, so row s̄ exists only to fix Λ_s̄.
/// The step's output is row `s` (q_{m+1} = Q_{s+1}, v_{m+1} = V_{s+1}), the multiplier
/// λ_{m+1} = Σⱼ dⱼ Λⱼ, and b̂ weighs stages 1 … s̄ for the error estimate.
template <int SBar> struct HalfExplicitTableau {
  static constexpr int stages = SBar;  ///< s̄
  Rational a[SBar + 1][SBar + 1];
  Rational c[SBar + 1];
  int s;                ///< the output row: q_{m+1}, v_{m+1} from stage s+1
  Rational d[SBar];     ///< multiplier weights
  int order;            ///< order in q, v and λ
  Rational bhat[SBar];  ///< embedded weights on stages 1 … s̄
  int order_hat;        ///< order of b̂
};

namespace tableaux {
namespace detail {
/// HEDOP5 [ArnHE; Arnold, BIT 38 (1998)]: DOPRI5's seven rows (from `dopri5`, not retyped), with
/// row 7 = b and FSAL, the extra row at c₈ = 19/20 that fixes Λ₇, d = e₇, and DOPRI5's b̂. Row 8 is
/// taken from the configuration of the Fortran HEDOP5 of Arnold's group (docs/constrained.md §2
/// has its provenance); it makes the multiplier recursion's amplification factor exactly 0.
constexpr HalfExplicitTableau<7> make_hedop5() {
  HalfExplicitTableau<7> t{};
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) t.a[i][j] = (i < 7 && j < 7) ? dopri5.a[i][j] : O;
    t.c[i] = i < 7 ? dopri5.c[i] : Rational{19, 20};
  }
  const Rational row8[7] = {{-18611506045861, 19738176307200}, {59332529, 14479296},
                            {-2509441598627, 893904224850},    {2763523204159, 3289696051200},
                            {-41262869588913, 116235927142400}, {46310205821, 287848404480},
                            {-3280, 75413}};
  for (int j = 0; j < 7; ++j) {
    t.a[7][j] = row8[j];
    t.d[j] = Rational{j == 6 ? 1 : 0, 1};
    t.bhat[j] = dopri5.bhat[j];
  }
  t.s = 6;
  t.order = 5;
  t.order_hat = 4;
  return t;
}
}  // namespace detail

inline constexpr HalfExplicitTableau<7> hedop5 = detail::make_hedop5();
}  // namespace tableaux

}  // namespace lb
