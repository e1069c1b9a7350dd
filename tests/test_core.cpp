// exp, dexp and dexp⁻¹ on so(3) and se(3) against the quad-precision matrix exponential and
// ad-series, for α log-spaced from 1e-12 to 3 and approaching 2π, in every host precision.
#include <gtest/gtest.h>

#include "core_reference.hpp"

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
// g2 (the PyLie misprint in lie-formulas.md) is caught far above the bound.
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

}  // namespace
