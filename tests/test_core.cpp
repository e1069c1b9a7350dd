// exp, dexp and dexp⁻¹ on so(3) and se(3) against the quad-precision matrix exponential and
// ad-series, for α log-spaced from 1e-12 to 3 and approaching 2π, in every host precision.
#include <gtest/gtest.h>

#include "core_reference.hpp"
#include "liebatch/series_refined.hpp"

namespace {

using lbtest::Q;

template <class T> class CoreTest : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, long double, Q>;
TYPED_TEST_SUITE(CoreTest, Scalars);

TYPED_TEST(CoreTest, ExpDexpDexpinvMatchReferenceAtEveryAngle) {
  using T = TypeParam;
  const auto in = lbtest::core_inputs<T>();
  std::vector<lbtest::CoreOut<T>> out;
  for (const auto& c : in) out.push_back(lbtest::eval_core(c));
  const lbtest::CoreErrors e = lbtest::score_core(in, out);
  const double tol = lbtest::core_tolerance<T>();
  EXPECT_GT(e.alpha_max, 6.0);  // the sweep really approaches 2π
  lbtest::expect_within(e, tol);
}

// The acceptance test must be able to fail: the φ construction with the printed minus sign on
// g2 (the PyLie misprint [Jak21], docs/lie-groups.md §6) is caught far above the bound.
TEST(CoreTest, DetectsTheMisprintedDexpinvSign) {
  const auto in = lbtest::core_inputs<double>();
  double worst = 0;
  for (const auto& c : in) {
    lb::Vec3<double> A{{c.u[0], c.u[1], c.u[2]}}, B{{c.v[0], c.v[1], c.v[2]}};
    const auto k = lb::dexpinv_coeffs(lb::norm2(A));
    const auto wrong = B - 0.5 * lb::cross(A, B) - k.g2 * lb::cross(A, lb::cross(A, B));
    const std::array<Q, 3> qa = {c.u[0], c.u[1], c.u[2]}, qb = {c.v[0], c.v[1], c.v[2]};
    worst = std::max(worst, ref::rel_err(wrong, ref::dexpinv<3>(qa, qb)));
  }
  EXPECT_GT(worst, 1e-3);
}

// Each series tier at its end (α² just at tiny2, small2, threshold2, where truncation is worst):
// the series with the term count the tier uses for T, summed in quad precision so that only the
// truncation remains, against the closed forms in quad precision. The rule (series.hpp) keeps the
// first omitted term below ε_T/1000 of the sum and the later ones are smaller still, so the whole
// truncation must stay below ε_T/1000; with one term fewer it does not.
template <class T> void expect_tiers_truncate_below_epsilon() {
  using lb::series::horner;
  using lb::series::Table;
  using lb::series::terms;
  using boost::multiprecision::cos;
  using boost::multiprecision::sin;
  const double bound = std::numeric_limits<T>::epsilon() / 1000;
  auto check = [&](auto tier_) {
    constexpr int tier = decltype(tier_)::value;
    const Q x2 = lb::series::tier_end2<tier>(), a = sqrt(x2), sa = sin(a), ca = cos(a), h = (a / 2) * cos(a / 2) / sin(a / 2);
    constexpr int K = terms<T, Table::inv_fact, tier>(), Kb = terms<T, Table::bern_g2, tier>();
    const Q s = sa / a, c = (1 - ca) / x2, d = (a - sa) / (x2 * a);             // exp: s, c, d
    const Q g1t = (s - 2 * c) / x2, g2t = (c - 3 * d) / x2;                       // dexp: g̃1, g̃2
    const Q b2 = (1 - h) / x2, b2t = (h - 2 + (a / 2) * (a / 2) / (sin(a / 2) * sin(a / 2))) / (x2 * x2);  // dexp⁻¹
    auto rel = [](Q series, Q exact) { return double(abs(series - exact) / abs(exact)); };
    EXPECT_LE(rel(horner<Q, Table::inv_fact, K, 1, 2, true, false>(x2), s), bound) << "s, tier " << tier;
    EXPECT_LE(rel(horner<Q, Table::inv_fact, K, 2, 2, true, false>(x2), c), bound) << "c, tier " << tier;
    EXPECT_LE(rel(horner<Q, Table::inv_fact, K, 3, 2, true, false>(x2), d), bound) << "d, tier " << tier;
    EXPECT_LE(rel(-horner<Q, Table::inv_fact, K, 4, 2, true, true>(x2), g1t), bound) << "g1t, tier " << tier;
    EXPECT_LE(rel(-horner<Q, Table::inv_fact, K, 5, 2, true, true>(x2), g2t), bound) << "g2t, tier " << tier;
    EXPECT_LE(rel(horner<Q, Table::bern_g2, Kb, 0, 1, false, false>(x2), b2), bound) << "dexpinv g2, tier " << tier;
    EXPECT_LE(rel(horner<Q, Table::bern_g2, Kb, 1, 1, false, true>(x2), b2t), bound) << "dexpinv g2t, tier " << tier;
    if constexpr (tier == 0) {  // the check can fail: one term fewer
      EXPECT_GT(rel(horner<Q, Table::inv_fact, K - 1, 2, 2, true, false>(x2), c), bound);
      EXPECT_GT(rel(horner<Q, Table::bern_g2, Kb - 1, 0, 1, false, false>(x2), b2), bound);
    }
  };
  check(std::integral_constant<int, 0>{});
  check(std::integral_constant<int, 1>{});
  check(std::integral_constant<int, 2>{});
}

TEST(CoreTest, SeriesTiersTruncateBelowEpsilonAtTheirEnds) {
  expect_tiers_truncate_below_epsilon<float>();
  expect_tiers_truncate_below_epsilon<double>();
}

/// The largest error, in ulps of T, of T's s, c and g2 against quad precision, for α² from 10⁻⁸ to
/// (2π − 0.1)², the injectivity domain of dexp⁻¹ (g2 from tiny2: the refined range); `coeffs` gives
/// So3Coeffs<T>.
template <class T, class F> double worst_ulps(F&& coeffs) {
  double worst = 0;
  auto ulps = [](T v, Q exact) {
    int e;
    frexp(exact, &e);
    return double(abs(Q(v) - exact) / ldexp(Q(1), e - std::numeric_limits<T>::digits));
  };
  for (int i = 0; i <= 20000; ++i) {
    const T a2 = T(std::pow(10.0, -8 + (std::log10(38.19) + 8) * i / 20000.0));
    const Q A2 = Q(a2), A = sqrt(A2), sh = sin(A / 2);
    const lb::So3Coeffs<T> k = coeffs(a2);
    worst = std::max({worst, ulps(k.s, sin(A) / A), ulps(k.c, 2 * sh * sh / A2)});
    if (a2 >= lb::series::tiny2<T>()) worst = std::max(worst, ulps(k.g2, (1 - (A / 2) * cos(A / 2) / sh) / A2));
  }
  return worst;
}

// τ = exp's coefficients for the Hamilton–Pontryagin drift are correctly rounded (docs/symplectic.md
// §6): every error within half an ulp, where series.hpp's values, also used there before, are off
// by more: the bound discriminates.
TEST(CoreTest, RefinedCoefficientsAreCorrectlyRounded) {
  auto plain = [](auto a2) {
    using T = decltype(a2);
    return lb::So3Coeffs<T>{lb::exp_coeffs(a2).s, lb::exp_coeffs(a2).c, lb::dexpinv_coeffs(a2).g2};
  };
  auto refined = [](auto a2) { return lb::so3_coeffs_refined(a2); };
  const double d = worst_ulps<double>(refined), f = worst_ulps<float>(refined);
  const double dp = worst_ulps<double>(plain), fp = worst_ulps<float>(plain);
  std::printf("s, c, g2 worst error in ulps: refined double %.6f, float %.6f; series.hpp double %.2f, float %.2f\n", d, f,
              dp, fp);
  EXPECT_LE(d, 0.5 + 1e-6);
  EXPECT_LE(f, 0.5 + 1e-6);
  EXPECT_GT(dp, 0.6);
  EXPECT_GT(fp, 0.6);
}

}  // namespace
