// HEDOP5 and constrained mechanical systems (docs/constrained.md): the tableau in exact rational
// arithmetic, the constrained models and their consistent initial multiplier.
#include <gtest/gtest.h>

#include <boost/multiprecision/cpp_int.hpp>
#include <vector>

#include <liebatch/methods/half_explicit_tableau.hpp>

#include "rooted_trees.hpp"

namespace {

using Q = boost::multiprecision::cpp_rational;
using lb::tableaux::hedop5;
constexpr int SBar = lb::HalfExplicitTableau<7>::stages;

Q exact(lb::Rational r) { return Q(r.p, r.q); }

/// The s×s matrix of DOPRI5 inside HEDOP5 (rows 1 … s+1 = 7 on stages 1 … 7) and a weight row.
std::vector<std::vector<Q>> stage_matrix() {
  std::vector<std::vector<Q>> a(SBar, std::vector<Q>(SBar, Q(0)));
  for (int i = 0; i < SBar; ++i)
    for (int j = 0; j < SBar; ++j) a[i][j] = exact(hedop5.a[i][j]);
  return a;
}
std::vector<Q> weights(const lb::Rational* w) {
  std::vector<Q> b;
  for (int j = 0; j < SBar; ++j) b.push_back(exact(w[j]));
  return b;
}

/// The multiplier errors of one step in the linearised, frozen-coefficient analysis (h → 0,
/// constant M and B; docs/constrained.md §3). A perturbation δΛⱼ of the stage multipliers moves
/// B·V_{i+1} by −h Σ_{j≤i} a_{i+1,j} (B M⁻¹ Bᵀ) δΛⱼ + O(h²·δΛ); stage i's constraint (4c) holds
/// B·V_{i+1} at zero and B M⁻¹ Bᵀ is invertible, so to leading order Σ_{j≤i} a_{i+1,j} eⱼ = 0
/// for i = 2 … `rows`−1 with e₁ = 1 (the error of λ_m, since the first stage is explicit in λ_m).
/// Solved for eᵢ row by row: eᵢ = −Σ_{j<i} a_{i+1,j} eⱼ / a_{i+1,i}. Returned e₁ … e_{rows−1}.
std::vector<Q> multiplier_errors(int rows) {
  std::vector<Q> e{Q(1)};
  for (int i = 1; i + 1 < rows; ++i) {  // 0-based stage i solved from row i+1
    Q sum(0);
    for (int j = 0; j < i; ++j) sum += exact(hedop5.a[i + 1][j]) * e[j];
    e.push_back(-sum / exact(hedop5.a[i + 1][i]));
  }
  return e;
}

TEST(Hedop5Tableau, RowSumsAreTheNodes) {
  for (int i = 0; i <= SBar; ++i) {
    Q sum(0);
    for (int j = 0; j < i; ++j) sum += exact(hedop5.a[i][j]);
    EXPECT_EQ(sum, exact(hedop5.c[i])) << "row " << i + 1;
    for (int j = i; j <= SBar; ++j) EXPECT_EQ(exact(hedop5.a[i][j]), Q(0)) << "explicit: a" << i + 1 << j + 1;
  }
  EXPECT_EQ(exact(hedop5.c[SBar]), Q(19, 20));
}

TEST(Hedop5Tableau, WeightsHaveOrderFiveAndTheEmbeddedOrderFour) {
  const auto trees = lbtest::trees_up_to(5);
  const auto a = stage_matrix();
  const auto b = weights(hedop5.a[hedop5.s]);
  const auto bhat = weights(hedop5.bhat);
  int conditions = 0;
  for (int p = 1; p <= 5; ++p) {
    for (const Q& r : lbtest::order_residuals(a, b, trees, p)) {
      EXPECT_EQ(r, Q(0)) << "b, order " << p;
      ++conditions;
    }
    int violated = 0;
    for (const Q& r : lbtest::order_residuals(a, bhat, trees, p)) {
      if (p <= 4) {
        EXPECT_EQ(r, Q(0)) << "b̂, order " << p;
      }
      violated += r != 0;
    }
    if (p == 5) {
      EXPECT_GT(violated, 0) << "b̂ is of order 4 exactly";
    }
  }
  EXPECT_EQ(conditions, 17);  // 1 + 1 + 2 + 4 + 9 trees
  EXPECT_EQ(hedop5.a[hedop5.s][SBar - 1].p, 0) << "b₇ = 0: stage 7 (FSAL) only feeds the next step";
}

TEST(Hedop5Tableau, MultiplierRecursionAmplificationIsZero) {
  const auto e = multiplier_errors(SBar + 1);  // all eight rows: e₁ … e₇
  ASSERT_EQ(int(e.size()), SBar);
  const std::vector<Q> expected{Q(1), Q(-1, 3), Q(-5, 8), Q(7, 3), Q(12115, 2187), Q(115, 33), Q(0)};
  for (int i = 0; i < SBar; ++i) EXPECT_EQ(e[i], expected[i]) << "e" << i + 1;
  Q kappa(0);  // λ_{m+1}'s error per unit error of λ_m: Σⱼ dⱼ eⱼ
  for (int j = 0; j < SBar; ++j) kappa += exact(hedop5.d[j]) * e[j];
  EXPECT_EQ(kappa, Q(0));
  // Without the extra row (s̄ = 6, λ_{m+1} = Λ₆, the last multiplier rows 1 … 7 determine):
  // κ = e₆ = 115/33 > 1, and the multipliers are not zero-stable.
  const auto e6 = multiplier_errors(SBar);
  EXPECT_EQ(e6.back(), Q(115, 33));
}

}  // namespace
