// Pack<T> (pack.hpp) lane by lane against the scalar operations it stands for: the IEEE operations
// bitwise, sin and cos within 2 ulps of libm, pow/atan2/tan bitwise, comparisons, select, max/min
// (NaN included), masks, broadcasts, and the core's vector code run on packs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <liebatch/se3.hpp>
#include <liebatch/so3.hpp>
#include <liebatch/vec.hpp>

#include "problems.hpp"
// Last on purpose: the core finds the pack's functions where its templates are instantiated.
#include <liebatch/pack.hpp>

namespace {

template <class T> class PackTest : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(PackTest, Scalars);

// Packs of one register, and (test_pack_r2, the same checks) of two: LB_PACK_TEST_REGISTERS.
#ifndef LB_PACK_TEST_REGISTERS
#define LB_PACK_TEST_REGISTERS 1
#endif
template <class T> using P = lb::Pack<T, xsimd::default_arch, LB_PACK_TEST_REGISTERS>;

/// Bitwise equality (NaNs of the same payload included).
template <class T> bool same_bits(T a, T b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }

/// Distance in units in the last place of b.
template <class T> double ulps(T a, T b) {
  if (a == b) return 0;
  return std::fabs(double(a) - double(b)) / std::fabs(double(std::nextafter(b, T(INFINITY)) - b));
}

/// W-lane inputs: random values over several scales, with zeros, signed zeros and tiny values.
template <class T> std::vector<T> inputs(std::mt19937_64& rng, int n) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::uniform_int_distribution<int> e(-30, 6);
  std::vector<T> v(std::size_t(n) * P<T>::size);
  for (auto& x : v) x = T(u(rng) * std::ldexp(1.0, e(rng)));
  v[0] = T(0);
  v[1] = -T(0);
  v[2] = std::numeric_limits<T>::min();
  return v;
}

/// f(x, y, k) for the packs x, y of inputs k … k+W−1 of a and b.
template <class T, class F> void each_pack(const std::vector<T>& a, const std::vector<T>& b, F&& f) {
  for (std::size_t k = 0; k + P<T>::size <= a.size(); k += P<T>::size) f(P<T>::load(&a[k]), P<T>::load(&b[k]), k);
}

TYPED_TEST(PackTest, ArithmeticIsTheScalarOperationsBitwise) {
  using T = TypeParam;
  std::mt19937_64 rng(1);
  const auto a = inputs<T>(rng, 2000), b = inputs<T>(rng, 2000);
  each_pack(a, b, [&](const P<T>& x, const P<T>& y, std::size_t k) {
    const P<T> r[] = {x + y, x - y, x * y, x / y, -x, lb::sqrt(lb::abs(x)), lb::abs(x), lb::floor(x * T(1000)),
                      (x * T(0.5) + y) * (T(1) / T(3))};
    for (int i = 0; i < P<T>::size; ++i) {
      const T s = a[k + i], t = b[k + i];
      const T e[] = {s + t, s - t, s * t, s / t, -s, std::sqrt(std::abs(s)), std::abs(s), std::floor(s * T(1000)),
                     (s * T(0.5) + t) * (T(1) / T(3))};
      for (std::size_t q = 0; q < std::size(e); ++q) {
        ASSERT_TRUE(same_bits(r[q][i], e[q])) << "op " << q << " lane " << i << ": " << r[q][i] << " vs " << e[q];
      }
    }
  });
}

TYPED_TEST(PackTest, SinAndCosWithinTwoUlpsOfLibm) {
  using T = TypeParam;
  constexpr int W = P<T>::size;
  std::mt19937_64 rng(2);
  auto a = inputs<T>(rng, 4000);
  std::uniform_real_distribution<double> wide(-40, 40);
  for (std::size_t k = 0; k < a.size() / 2; ++k) a[k] = T(wide(rng));  // half of them large angles
  double worst = 0;
  for (std::size_t k = 0; k + W <= a.size(); k += W) {
    const P<T> x = P<T>::load(&a[k]);
    const P<T> s = lb::sin(x), c = lb::cos(x);
    for (int i = 0; i < W; ++i) {
      worst = std::max({worst, ulps(s[i], std::sin(a[k + i])), ulps(c[i], std::cos(a[k + i]))});
      ASSERT_TRUE(same_bits(lb::sin(P<T>(a[k + i]))[0], s[i]));  // a lane does not depend on the others
    }
  }
  EXPECT_LE(worst, 2.0);
}

TYPED_TEST(PackTest, PowAtan2AndTanAreLibmBitwise) {
  using T = TypeParam;
  std::mt19937_64 rng(3);
  const auto a = inputs<T>(rng, 1000), b = inputs<T>(rng, 1000);
  each_pack(a, b, [&](const P<T>& x, const P<T>& y, std::size_t k) {
    // The step-size controller's pow: e^(−1/(p̂+1)) with e > 0.
    const P<T> p = lb::pow(lb::abs(x) + T(1e-3), P<T>(T(-1) / T(5))), q = lb::atan2(y, x), r = lb::tan(x);
    for (int i = 0; i < P<T>::size; ++i) {
      ASSERT_TRUE(same_bits(p[i], std::pow(std::abs(a[k + i]) + T(1e-3), T(-1) / T(5))));
      ASSERT_TRUE(same_bits(q[i], std::atan2(b[k + i], a[k + i])));
      ASSERT_TRUE(same_bits(r[i], std::tan(a[k + i])));
    }
  });
}

TYPED_TEST(PackTest, ComparisonsSelectMaxMinAndMasksPerLane) {
  using T = TypeParam;
  constexpr int W = P<T>::size;
  const T nan = std::numeric_limits<T>::quiet_NaN(), inf = std::numeric_limits<T>::infinity();
  const T pool[] = {T(1), T(-2), T(0), -T(0), nan, inf, -inf, T(3.5)};
  T a[W], b[W];
  for (int s = 0; s < 64; ++s) {
    for (int i = 0; i < W; ++i) {
      a[i] = pool[(s + i) % 8];
      b[i] = pool[(3 * s + 5 * i + 1) % 8];
    }
    const P<T> x = P<T>::load(a), y = P<T>::load(b);
    const auto lt = x < y, ge = x >= y, fin = lb::isfinite(x), ne = x != y, eq = x == y, le = x <= y, gt = x > y;
    const P<T> mx = lb::max(x, y), mn = lb::min(x, y), sel = lb::select(lt, x, y);
    bool any_lt = false, all_lt = true;
    for (int i = 0; i < W; ++i) {
      ASSERT_EQ(lt[i], a[i] < b[i]);
      ASSERT_EQ(ge[i], a[i] >= b[i]);
      ASSERT_EQ(ne[i], a[i] != b[i]) << a[i] << " != " << b[i];  // true where a lane is NaN
      ASSERT_EQ(eq[i], a[i] == b[i]);
      ASSERT_EQ(le[i], a[i] <= b[i]);
      ASSERT_EQ(gt[i], a[i] > b[i]);
      ASSERT_EQ((lt || ge)[i], a[i] < b[i] || a[i] >= b[i]);  // false for NaN lanes
      ASSERT_EQ((!lt && fin)[i], !(a[i] < b[i]) && std::isfinite(a[i]));
      ASSERT_EQ(fin[i], bool(std::isfinite(a[i])));
      ASSERT_TRUE(same_bits(mx[i], lb::max(a[i], b[i])));
      ASSERT_TRUE(same_bits(mn[i], lb::min(a[i], b[i])));
      ASSERT_TRUE(same_bits(sel[i], a[i] < b[i] ? a[i] : b[i]));
      any_lt |= a[i] < b[i];
      all_lt &= a[i] < b[i];
    }
    EXPECT_EQ(lb::any(lt), any_lt);
    EXPECT_EQ(lb::all(lt), all_lt);
    EXPECT_EQ(lb::none(lt), !any_lt);
  }
  // The scalar forms are the plain operations: max(NaN, 1) = 1 and max(1, NaN) = NaN.
  EXPECT_EQ(lb::max(nan, T(1)), T(1));
  EXPECT_TRUE(std::isnan(lb::max(T(1), nan)));
}

TYPED_TEST(PackTest, BroadcastsAndConstantsAreTheScalarsValues) {
  using T = TypeParam;
  const P<T> half = 0.5, third = T(1) / T(3), from_int = 7, from_long = 1000000000000LL;
  for (int i = 0; i < P<T>::size; ++i) {
    EXPECT_TRUE(same_bits(half[i], T(0.5)));
    EXPECT_TRUE(same_bits(third[i], T(1) / T(3)));
    EXPECT_EQ(from_int[i], T(7));
    EXPECT_TRUE(same_bits(from_long[i], T(1000000000000LL)));
    EXPECT_TRUE(same_bits(lb::pi<P<T>>()[i], lb::pi<T>()));
    EXPECT_EQ(lb::epsilon<P<T>>()[i], lb::epsilon<T>());
  }
}

TYPED_TEST(PackTest, TheCoresVectorCodeRunsOnPacksLaneByLane) {
  using T = TypeParam;
  constexpr int W = P<T>::size;
  std::mt19937_64 rng(4);
  const auto a = inputs<T>(rng, 6), b = inputs<T>(rng, 6);
  lb::Vec3<P<T>> u, v;
  for (int d = 0; d < 3; ++d) {
    u[d] = P<T>::load(&a[std::size_t(d) * W]);
    v[d] = P<T>::load(&b[std::size_t(d) * W]);
  }
  const auto c = lb::cross(u, v) + P<T>(T(2)) * u;
  const P<T> n = lb::norm(c), m = lb::norm_inf(u - v), d = lb::dot(u, v);
  for (int i = 0; i < W; ++i) {
    lb::Vec3<T> us, vs;
    for (int k = 0; k < 3; ++k) {
      us[k] = a[std::size_t(k) * W + std::size_t(i)];
      vs[k] = b[std::size_t(k) * W + std::size_t(i)];
    }
    const auto cs = lb::cross(us, vs) + T(2) * us;
    for (int k = 0; k < 3; ++k) ASSERT_TRUE(same_bits(c[k][i], cs[k])) << c[k][i] << " vs " << cs[k] << " lane " << i << " k " << k;
    ASSERT_TRUE(same_bits(n[i], lb::norm(cs)));
    ASSERT_TRUE(same_bits(m[i], lb::norm_inf(us - vs)));
    ASSERT_TRUE(same_bits(d[i], lb::dot(us, vs)));
  }
}

/// W scalar vectors as one vector of packs, and lane i back.
template <class T, int N> lb::Vec<P<T>, N> gather(const std::vector<lb::Vec<T, N>>& v, std::size_t k) {
  lb::Vec<P<T>, N> r;
  T lanes[P<T>::size];
  for (int d = 0; d < N; ++d) {
    for (int i = 0; i < P<T>::size; ++i) lanes[i] = v[k + std::size_t(i)][d];
    r[d] = P<T>::load(lanes);
  }
  return r;
}

/// so(3) and se(3): exp (SO(3)'s exp_mul, SE(3)'s matrix and translation), dexp and dexp⁻¹ with
/// every pack's lanes spread over the series tiers (α < 1/32, 0.25, 1.5) and the closed forms,
/// against the scalar functions lane by lane: bitwise where a lane's tier is a series (the same
/// operations), within 8 ulps of the result's size where the closed forms call sin and cos.
TYPED_TEST(PackTest, LieAlgebraFunctionsPerLaneMatchTheScalarsAcrossSeriesTiers) {
  using T = TypeParam;
  constexpr int W = P<T>::size;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> g;
  const double angles[] = {1e-9, 0.01, 0.2, 0.9, 1.2, 2.0, 3.0, 5.0};  // tiers 0, 0, 1, 2, 2, closed …
  std::vector<lb::Vec<T, 6>> u, v;
  std::vector<lb::Vec3<T>> r0;
  for (int k = 0; k < 64 * W; ++k) {
    lb::Vec<T, 6> a, b;
    lb::Vec3<T> c;
    for (int d = 0; d < 6; ++d) { a[d] = T(g(rng)); b[d] = T(g(rng)); }
    for (int d = 0; d < 3; ++d) c[d] = T(g(rng));
    const double alpha = angles[std::uniform_int_distribution<int>(0, 7)(rng)] * (1 + 0.1 * g(rng) * g(rng) / 10);
    const T s = T(alpha / double(lb::norm(a.template seg<0, 3>())));
    for (int d = 0; d < 3; ++d) a[d] *= s;
    u.push_back(a);
    v.push_back(b);
    r0.push_back(c);
  }
  const T eps = std::numeric_limits<T>::epsilon();
  int series_lanes = 0, closed_lanes = 0, mixed_packs = 0;
  for (std::size_t k = 0; k < u.size(); k += W) {
    const auto U = gather(u, k), V = gather(v, k);
    const auto G0 = lb::SO3<P<T>>::exp(gather(r0, k));
    const auto U3 = U.template seg<0, 3>(), V3 = V.template seg<0, 3>();
    const auto dx = lb::so3<P<T>>::dexp(U3, V3), di = lb::so3<P<T>>::dexpinv(U3, V3);
    const auto Dx = lb::se3<P<T>>::dexp(U, V), Di = lb::se3<P<T>>::dexpinv(U, V);
    const auto E = lb::SO3<P<T>>::exp_mul(U3, G0);
    const auto H = lb::SE3<P<T>>::exp(U);
    bool has_series = false, has_closed = false;
    for (int i = 0; i < W; ++i) {
      const auto& a = u[k + std::size_t(i)];
      const auto& b = v[k + std::size_t(i)];
      const auto a3 = a.template seg<0, 3>(), b3 = b.template seg<0, 3>();
      const bool series = lb::norm2(a3) < lb::series::threshold2<T>();
      (series ? ++series_lanes : ++closed_lanes);
      has_series |= series;
      has_closed |= !series;
      auto check = [&](const auto& packed, const auto& scalar, const char* what) {
        const T scale = std::max(T(1), lb::norm_inf(scalar));
        for (int d = 0; d < scalar.size; ++d) {
          if (series) ASSERT_TRUE(same_bits(packed[d][i], scalar[d])) << what << " lane " << i << " component " << d;
          else ASSERT_LE(std::abs(packed[d][i] - scalar[d]), T(8) * eps * scale) << what << " lane " << i << " component " << d;
        }
      };
      check(dx, lb::so3<T>::dexp(a3, b3), "so3 dexp");
      check(di, lb::so3<T>::dexpinv(a3, b3), "so3 dexpinv");
      check(Dx, lb::se3<T>::dexp(a, b), "se3 dexp");
      check(Di, lb::se3<T>::dexpinv(a, b), "se3 dexpinv");
      lb::Vec3<T> c;
      for (int d = 0; d < 3; ++d) c[d] = r0[k + std::size_t(i)][d];
      const auto g0 = lb::SO3<T>::exp(c);
      // exp_mul switches to exp(u)·g at α = 1, not at the series' 1.5: both sides are checked.
      const auto e = lb::SO3<T>::exp_mul(a3, g0);
      const auto h = lb::SE3<T>::exp(a);
      for (int d = 0; d < 9; ++d) {
        ASSERT_LE(std::abs(E.R.m[d][i] - e.R.m[d]), T(8) * eps) << "exp_mul lane " << i;
        ASSERT_LE(std::abs(H.R.m[d][i] - h.R.m[d]), T(8) * eps) << "SE3 exp lane " << i;
      }
      for (int d = 0; d < 3; ++d) ASSERT_LE(std::abs(H.t[d][i] - h.t[d]), T(8) * eps * std::max(T(1), lb::norm_inf(h.t)));
    }
    mixed_packs += has_series && has_closed;
  }
  EXPECT_GT(series_lanes, 0);
  EXPECT_GT(closed_lanes, 0);
  EXPECT_GT(mixed_packs, 0);  // packs whose lanes take different branches
}

/// One step of `Method` on W members packed, against the scalar step of each member: the state,
/// the error estimate and the singular flag per lane. The members are the problem's initial
/// state perturbed by 10 % (so lanes differ), stepped with h = 0.05 and 0.4 (stage angles in the
/// series tiers and in the closed forms). The bound, 64 ε of the state's size, allows for sin and
/// cos (2 ulps) carried through the stages.
template <class Problem, class Method, class T> void step_lanes_match(double h) {
  constexpr int W = P<T>::size;
  const auto m = Problem::template model<T>();
  const auto mp = m.template cast<P<T>>();
  using Y = decltype(Problem::template y0<T>());
  std::mt19937_64 rng(6);
  std::uniform_real_distribution<double> u(-0.1, 0.1);
  std::vector<Y> ys;
  lb::Vec<P<T>, Y::size> yp;
  for (int i = 0; i < W; ++i) {
    Y y = Problem::template y0<T>();
    for (int d = 0; d < Y::size; ++d) y[d] *= T(1 + u(rng));
    ys.push_back(y);
  }
  for (int d = 0; d < Y::size; ++d) {
    T lanes[W];
    for (int i = 0; i < W; ++i) lanes[i] = ys[std::size_t(i)][d];
    yp[d] = P<T>::load(lanes);
  }
  const auto rp = Method::step(mp, P<T>(T(0.1)), yp, P<T>(T(h)));
  const T eps = std::numeric_limits<T>::epsilon();
  for (int i = 0; i < W; ++i) {
    const auto r = Method::step(m, T(0.1), ys[std::size_t(i)], T(h));
    const T scale = std::max(T(1), lb::norm_inf(r.y));
    ASSERT_EQ(rp.singular[i], r.singular) << Problem::name << " lane " << i;
    for (int d = 0; d < Y::size; ++d) {
      ASSERT_LE(std::abs(rp.y[d][i] - r.y[d]), T(64) * eps * scale) << Problem::name << " h " << h << " lane " << i << " component " << d;
      ASSERT_LE(std::abs(rp.err[d][i] - r.err[d]), T(64) * eps * scale) << Problem::name << " h " << h << " lane " << i;
    }
  }
}

template <class T> void steps_of_every_problem() {
  for (double h : {0.05, 0.4}) {
    step_lanes_match<lbtest::RigidBodyProblem, lb::methods::rkmk4, T>(h);
    step_lanes_match<lbtest::HeavyTopProblem, lb::methods::rkmk4, T>(h);
    step_lanes_match<lbtest::HeavyTopProblem, lb::methods::cf4, T>(h);
    step_lanes_match<lbtest::HeavyTopProblem, lb::methods::rkmk54, T>(h);
    step_lanes_match<lbtest::SpatialHeavyTopProblem, lb::methods::rkmk4, T>(h);
    step_lanes_match<lbtest::DoublePendulumProblem, lb::methods::cf4, T>(h);
    step_lanes_match<lbtest::DoublePendulumProblem, lb::methods::rkmk54, T>(h);
  }
}

TYPED_TEST(PackTest, MethodStepsOnPackedMembersMatchTheScalarStepPerLane) { steps_of_every_problem<TypeParam>(); }

TYPED_TEST(PackTest, IntegerLanesCountCompareAndConvertPerLane) {
  using T = TypeParam;
  constexpr int W = P<T>::size;
  using L = lb::lanes_t<P<T>, long>;
  long a[W], b[W];
  T x[W];
  for (int i = 0; i < W; ++i) {
    a[i] = 1000 * i - 3;
    b[i] = (i % 3) * 1000;
    x[i] = T(i % 2);
  }
  L u = L::load(a);
  const L w = L::load(b);
  const auto odd = P<T>::load(x) > P<T>(T(0));  // lanes 1, 3, 5, …
  lb::add_where(odd, u, 7);
  lb::set_where(u >= w && !odd, u, -5);
  const P<T> f = lb::as<P<T>>(u + w);
  const auto lt = u < w, eq = u == w;
  for (int i = 0; i < W; ++i) {
    long e = a[i] + (i % 2 ? 7 : 0);
    if (e >= b[i] && i % 2 == 0) e = -5;
    ASSERT_EQ(u[i], e) << "lane " << i;
    ASSERT_EQ(u.array()[std::size_t(i)], e);
    ASSERT_EQ(f[i], T(e + b[i])) << "lane " << i;
    ASSERT_EQ(lt[i], e < b[i]);
    ASSERT_EQ(eq[i], e == b[i]);
  }
  lb::lanes_t<P<T>, lb::Status> s = lb::Status::running;
  lb::set_where(odd, s, lb::Status::nonfinite);
  for (int i = 0; i < W; ++i) ASSERT_EQ(s[i], i % 2 ? lb::Status::nonfinite : lb::Status::running);
}

TEST(Pack, ReportsItsInstructionSet) {
  // Which vector unit this build's packs use (LIEBATCH_SIMD), and their widths.
  std::printf("[ INFO ] packs: %s, %d doubles, %d floats\n", xsimd::default_arch::name(), lb::Pack<double>::size,
              lb::Pack<float>::size);
  EXPECT_EQ(lb::Pack<float>::size, 2 * lb::Pack<double>::size);
}

}  // namespace
