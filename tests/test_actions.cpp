// Every homogeneous space, products included: a left action (homomorphism and identity), exp_act
// consistent with act∘exp, the generator equal to d/dt exp(tξ)·y (central differences in quad),
// the invariants kept to round-off over 10⁴ random actions, and the defect and projection onto the
// space.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "reference.hpp"
#include "sampling.hpp"

namespace {

using ref::Q;

struct FS2 { template <class T> using S = lb::S2<T>; };
struct FTS2 { template <class T> using S = lb::TS2<T>; };
struct FCoSO3 { template <class T> using S = lb::CoadjointSO3<T>; };
struct FCoSE3 { template <class T> using S = lb::CoadjointSE3<T>; };
struct FR4 { template <class T> using S = lb::Euclidean<T, 4>; };
struct FSO3 { template <class T> using S = lb::GroupSpace<lb::SO3<T>>; };
struct FSE3 { template <class T> using S = lb::GroupSpace<lb::SE3<T>>; };
struct FTS2Pow3 { template <class T> using S = lb::Power<lb::TS2<T>, 3>; };
/// ℝ⁶ × (SO(3) × so(3))² × (TS²)²: the two-quadrotor load system of [CCLMO22 §6].
struct FQuadrotors {
  template <class T>
  using S = lb::Product<lb::Euclidean<T, 6>, lb::Power<lb::Product<lb::GroupSpace<lb::SO3<T>>, lb::Euclidean<T, 3>>, 2>,
                        lb::Power<lb::TS2<T>, 2>>;
};

template <class F> class ActionTest : public ::testing::Test {};
using Spaces = ::testing::Types<FS2, FTS2, FCoSO3, FCoSE3, FR4, FSO3, FSE3, FTS2Pow3, FQuadrotors>;
TYPED_TEST_SUITE(ActionTest, Spaces);

template <class S> typename S::algebra::vec random_xi(std::mt19937_64& rng, double scale) {
  return lbtest::gaussian<typename S::scalar, S::algebra::dim>(rng, scale);
}

TYPED_TEST(ActionTest, IsALeftActionAndExpActAgrees) {
  using S = typename TypeParam::template S<double>;
  using G = typename S::group;
  std::mt19937_64 rng(1);
  for (int rep = 0; rep < 200; ++rep) {
    const auto y = lbtest::Sampler<S>::point(rng);
    const auto xi = random_xi<S>(rng, 1.2), eta = random_xi<S>(rng, 0.8);
    const G g = G::exp(xi), h = G::exp(eta);
    const auto lhs = S::act(g, S::act(h, y)), rhs = S::act(g * h, y);
    const double scale = 1 + lb::norm_inf(y);
    EXPECT_LE(lb::norm_inf(lhs - rhs), 1e-14 * scale * (1 + lb::norm_inf(xi) + lb::norm_inf(eta)));
    EXPECT_LE(lb::norm_inf(S::act(G::identity(), y) - y), 0.0);
    EXPECT_LE(lb::norm_inf(S::exp_act(xi, y) - S::act(g, y)), 1e-14 * scale);
    EXPECT_LE(lb::norm_inf(S::act(g.inverse(), S::act(g, y)) - y), 1e-14 * scale * (1 + lb::norm_inf(xi)));
  }
}

TYPED_TEST(ActionTest, GeneratorIsTheDerivativeOfTheAction) {
  using S = typename TypeParam::template S<Q>;
  std::mt19937_64 rng(2);
  const Q t = Q(1e-12);
  for (int rep = 0; rep < 20; ++rep) {
    const auto y = lbtest::Sampler<S>::point(rng);
    const auto xi = random_xi<S>(rng, 1.0);
    const auto fd = (Q(0.5) / t) * (S::exp_act(t * xi, y) - S::exp_act(-t * xi, y));  // error O(t²)
    const auto gen = S::generator(xi, y);
    EXPECT_LE(double(lb::norm_inf(fd - gen)), 1e-20 * (1 + double(lb::norm_inf(gen))));
  }
}

TYPED_TEST(ActionTest, InvariantsSurviveTenThousandActions) {
  using S = typename TypeParam::template S<double>;
  std::mt19937_64 rng(3);
  auto y = lbtest::Sampler<S>::point(rng);
  const auto inv0 = lbtest::Sampler<S>::invariants(y);
  for (int k = 0; k < 10000; ++k) y = S::exp_act(random_xi<S>(rng, 1.0), y);
  const auto inv = lbtest::Sampler<S>::invariants(y);
  ASSERT_EQ(inv.size(), inv0.size());
  for (std::size_t i = 0; i < inv.size(); ++i) {
    EXPECT_LE(std::abs(inv[i].value - inv0[i].value), 1e-13 * std::max(inv[i].scale, inv0[i].scale))
        << "invariant " << i << ": " << inv0[i].value << " became " << inv[i].value;
  }
}

/// On the space: defect at round-off and project the identity up to it. Off it by δ ~ 1e-3: the
/// defect of the same order, project lands on the space (defect at round-off) within O(δ) of the
/// point, and is idempotent. Spaces without a constraint (ℝⁿ, the coadjoint orbits) report 0 and
/// project nothing.
TYPED_TEST(ActionTest, DefectAndProjection) {
  using S = typename TypeParam::template S<double>;
  std::mt19937_64 rng(4);
  for (int rep = 0; rep < 200; ++rep) {
    const auto y = lbtest::Sampler<S>::point(rng);
    const double scale = 1 + lb::norm_inf(y);
    EXPECT_LE(S::defect(y), 1e-14 * scale);
    EXPECT_LE(lb::norm_inf(S::project(y) - y), 1e-14 * scale);
    const auto z = y + lbtest::gaussian<double, S::dim>(rng, 1e-3);
    const auto p = S::project(z);
    EXPECT_LE(S::defect(z), 1e-2);
    EXPECT_LE(S::defect(p), 1e-14 * scale);
    EXPECT_LE(lb::norm_inf(p - z), 1e-2 * scale);
    EXPECT_LE(lb::norm_inf(S::project(p) - p), 1e-14 * scale);
    if (S::defect(z) == 0) {
      EXPECT_EQ(lb::norm_inf(p - z), 0.0) << "a space without a constraint projects nothing";
    }
  }
}

/// A state with a NaN is not on a constrained space: its defect is NaN (a largest of the factors'
/// defects that dropped it read 0, "on the manifold"); spaces without a constraint (ℝⁿ, coadjoint
/// orbits in their coordinates) say 0 for any numbers. NaN in every component, and in the last
/// alone (a product's last factor: the other factors' defects are finite).
TYPED_TEST(ActionTest, ANanStateIsOffEveryConstrainedSpace) {
  using S = typename TypeParam::template S<double>;
  std::mt19937_64 rng(5);
  const auto y = lbtest::Sampler<S>::point(rng);
  const bool constrained = S::defect(y + lbtest::gaussian<double, S::dim>(rng, 1e-3)) > 0;
  auto all = y, last = y;
  for (int k = 0; k < S::dim; ++k) all[k] = std::numeric_limits<double>::quiet_NaN();
  last[S::dim - 1] = std::numeric_limits<double>::quiet_NaN();
  if (constrained) {
    EXPECT_TRUE(std::isnan(S::defect(all)));
    EXPECT_TRUE(std::isnan(S::defect(last)));
    // Nor does a projection make one a point of the space: SO(3)'s rebuilt its third row from the
    // first two, so a NaN there was dropped (and `"normalize": true` passed the state on).
    for (int k = 0; k < S::dim; ++k) {
      auto one = y;
      one[k] = std::numeric_limits<double>::quiet_NaN();
      const auto p = S::project(one);
      bool nan = false;
      for (int i = 0; i < S::dim; ++i) nan = nan || std::isnan(p[i]);
      EXPECT_TRUE(nan) << "a NaN in component " << k << " projected onto the space";
    }
  } else {
    EXPECT_EQ(S::defect(all), 0.0);
  }
}

/// The defects' values, computed by hand: |1.25 q| − 1 on S², the normal part |q·ω|/(1 + |ω|) on
/// TS², RᵀR − I = 3I for R = 2I and at least 1 for a reflection on SO(3) and SE(3).
TEST(Defect, ValuesByHand) {
  const lb::Vec3<double> q = lb::vec3(0.6, 0.0, 0.8), w = lb::vec3(0.0, 2.0, 0.0);
  EXPECT_DOUBLE_EQ(lb::S2<double>::defect(1.25 * q), 0.25);
  EXPECT_EQ(lb::CoadjointSO3<double>::defect(1.25 * q), 0.0);
  const auto off = lb::concat(q, w + 0.5 * q);
  EXPECT_DOUBLE_EQ(lb::TS2<double>::defect(off), 0.5 / (1 + lb::norm(w + 0.5 * q)));
  EXPECT_LE(lb::norm_inf(lb::TS2<double>::project(off) - lb::concat(q, w)), 1e-16);
  const auto R2 = (2.0 * lb::Mat3<double>::identity()).flat();
  EXPECT_DOUBLE_EQ(lb::SO3<double>::defect(R2), 3.0);
  EXPECT_LE(lb::norm_inf(lb::SO3<double>::project(R2) - lb::Mat3<double>::identity().flat()), 0.0);
  lb::Mat3<double> F = lb::Mat3<double>::identity();
  F(2, 2) = -1;  // orthogonal, det −1
  EXPECT_GE(lb::SO3<double>::defect(F.flat()), 1.0);
  EXPECT_GE(lb::SE3<double>::defect(lb::concat(F.flat(), w)), 1.0);
  EXPECT_DOUBLE_EQ(lb::GroupSpace<lb::SE3<double>>::defect(lb::concat(R2, w)), 3.0);
}

}  // namespace
