// SO(3) and SE(3) as value types: log∘exp = id up to α = π − 1e-6, inverse, Ad, exp of large
// angles against the matrix exponential.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "reference.hpp"
#include <liebatch/liebatch.hpp>

namespace {

using ref::Q;

template <class T> double tol() { return std::is_same_v<T, float> ? 2e-6 : std::is_same_v<T, double> ? 4e-15 : 1e-17; }

template <class T> lb::Vec3<T> direction(std::mt19937_64& rng, double alpha) {
  std::normal_distribution<double> n01;
  double d[3] = {n01(rng), n01(rng), n01(rng)};
  const double s = alpha / std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  return lb::vec3(T(d[0] * s), T(d[1] * s), T(d[2] * s));
}

std::vector<double> angles_to_pi() {
  std::vector<double> a;
  for (int i = 0; i <= 40; ++i) a.push_back(std::pow(10.0, -12.0 + i * 12.0 / 40) * 3.0);
  for (double d : {1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6}) a.push_back(M_PI - d);
  return a;
}

template <class T> class GroupTest : public ::testing::Test {};
using Scalars = ::testing::Types<float, double, long double>;
TYPED_TEST_SUITE(GroupTest, Scalars);

TYPED_TEST(GroupTest, LogInvertsExpUpToPi) {
  using T = TypeParam;
  std::mt19937_64 rng(7);
  double worst = 0;
  for (double a : angles_to_pi()) {
    if (std::is_same_v<T, float> && a > M_PI - 1e-5) continue;  // π − 1e-6 is not a float angle
    for (int rep = 0; rep < 8; ++rep) {
      const lb::Vec3<T> u = direction<T>(rng, a);
      const lb::Vec3<T> w = lb::SO3<T>::exp(u).log();
      worst = std::max(worst, double(lb::norm(w - u) / lb::norm(u)));
      const lb::Vec6<T> x = lb::concat(u, direction<T>(rng, 1.0));
      const lb::Vec6<T> y = lb::SE3<T>::exp(x).log();
      worst = std::max(worst, double(lb::norm(y - x) / lb::norm(x)));
    }
  }
  EXPECT_LE(worst, 20 * tol<T>()) << "worst relative error of log(exp(u))";
}

/// log of a matrix with a NaN or an ∞ anywhere is NaN: an ∞ made atan2's angle 0 or π/2, and the
/// axis came from a column without it, so that a finite log was returned.
TYPED_TEST(GroupTest, LogOfANonFiniteMatrixIsNaN) {
  using T = TypeParam;
  for (const double angle : {0.1, 3.0}) {
    const lb::SO3<T> g = lb::SO3<T>::exp(T(angle / std::sqrt(0.14)) * lb::vec3(T(0.1), T(-0.2), T(0.3)));
    for (const T bad : {std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(), std::numeric_limits<T>::quiet_NaN()}) {
      for (int k = 0; k < 9; ++k) {
        lb::SO3<T> r = g;
        r.R.m[k] = bad;
        const lb::Vec3<T> w = r.log();
        const lb::Vec6<T> x = lb::SE3<T>{r.R, lb::vec3(T(1), T(2), T(3))}.log();
        for (int i = 0; i < 3; ++i) EXPECT_TRUE(std::isnan(double(w[i]))) << "angle " << angle << ", entry " << k << " " << double(bad);
        for (int i = 0; i < 6; ++i) EXPECT_FALSE(std::isfinite(double(x[i]))) << "SE(3), angle " << angle << ", entry " << k;
      }
    }
  }
}

TYPED_TEST(GroupTest, ExpOfLargeAnglesMatchesMatrixExponential) {
  using T = TypeParam;
  std::mt19937_64 rng(8);
  for (double a : {3.5, 5.0, 2 * M_PI, 10.0, 31.0}) {
    const lb::Vec3<T> u = direction<T>(rng, a);
    const lb::Mat3<T> R = lb::SO3<T>::exp(u).R;
    const ref::Mat<3> E = ref::expm(ref::hat({Q(u[0]), Q(u[1]), Q(u[2])}));
    for (int i = 0; i < 9; ++i) EXPECT_NEAR(double(R.m[i]), double(E.a[i]), 4 * a * tol<T>()) << "α = " << a;
  }
}

TYPED_TEST(GroupTest, InverseAdjointAndComposition) {
  using T = TypeParam;
  std::mt19937_64 rng(9);
  for (int rep = 0; rep < 50; ++rep) {
    const auto g = lb::SE3<T>::exp(lb::concat(direction<T>(rng, 2.0), direction<T>(rng, 1.5)));
    const lb::Vec6<T> xi = lb::concat(direction<T>(rng, 0.7), direction<T>(rng, 0.4));
    // g exp(ξ) g⁻¹ = exp(Ad_g ξ)
    const auto lhs = (g * lb::SE3<T>::exp(xi) * g.inverse()).embed();
    const auto rhs = lb::SE3<T>::exp(g.Ad(xi)).embed();
    EXPECT_LE(double(lb::norm_inf(lhs - rhs)), 20 * tol<T>());
    const auto e = (g * g.inverse()).embed() - lb::SE3<T>::identity().embed();
    EXPECT_LE(double(lb::norm_inf(e)), 20 * tol<T>());
    const auto r = lb::SO3<T>{g.R};
    const auto lhs3 = (r * lb::SO3<T>::exp(xi.template seg<0, 3>()) * r.inverse()).embed();
    EXPECT_LE(double(lb::norm_inf(lhs3 - lb::SO3<T>::exp(r.Ad(xi.template seg<0, 3>())).embed())), 20 * tol<T>());
  }
}

// Truncating dexp⁻¹ after q commutators leaves an error O(α^(q+1)) (next nonzero Bernoulli term).
TEST(DexpinvSeries, TruncationErrorFallsAtTheRightRate) {
  std::mt19937_64 rng(10);
  const lb::Vec6<double> v = lb::concat(direction<double>(rng, 1.0), direction<double>(rng, 1.0));
  const lb::Vec6<double> dir = lb::concat(direction<double>(rng, 1.0), direction<double>(rng, 1.0));
  auto err = [&](auto q, double a) {
    const lb::Vec6<double> u = a * dir;
    const auto s = lb::dexpinv_series<lb::se3<double>, decltype(q)::value>(u, v);
    return double(lb::norm(s - lb::se3<double>::dexpinv(u, v)));
  };
  // Observed order log2(e(α)/e(α/2)) ≈ next kept power: q=1 → α², q=2 → α⁴ (B₃ = 0), q=4 → α⁶.
  const double o1 = std::log2(err(std::integral_constant<int, 1>{}, 0.1) / err(std::integral_constant<int, 1>{}, 0.05));
  const double o2 = std::log2(err(std::integral_constant<int, 2>{}, 0.1) / err(std::integral_constant<int, 2>{}, 0.05));
  const double o4 = std::log2(err(std::integral_constant<int, 4>{}, 0.2) / err(std::integral_constant<int, 4>{}, 0.1));
  EXPECT_NEAR(o1, 2.0, 0.1);
  EXPECT_NEAR(o2, 4.0, 0.1);
  EXPECT_NEAR(o4, 6.0, 0.1);
  EXPECT_LE(err(std::integral_constant<int, 30>{}, 1.0), 1e-14);  // converges to the closed form
}

}  // namespace
