// Every homogeneous space, products included: a left action (homomorphism and identity), exp_act
// consistent with act∘exp, the generator equal to d/dt exp(tξ)·y (central differences in quad),
// and the invariants kept to round-off over 10⁴ random actions.
#include <gtest/gtest.h>

#include <string>

#include "reference.hpp"
#include "sampling.hpp"

namespace {

using ref::Q;

struct FS2 { template <class T> using S = lb::S2<T>; };
struct FTS2 { template <class T> using S = lb::TS2<T>; };
static_assert(std::is_same_v<lb::CoadjointSO3<double>, lb::S2<double>>, "so*(3) is covered by the S² cases");
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
using Spaces = ::testing::Types<FS2, FTS2, FCoSE3, FR4, FSO3, FSE3, FTS2Pow3, FQuadrotors>;
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

}  // namespace
