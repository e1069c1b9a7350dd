// Monte Carlo initial conditions: Philox4x32-10 against Random123's known answers, Sobol' points
// against the published start of the sequence and their net structure, grids, reproducibility
// from the seed, and states put on an energy level set.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include <liebatch/models/heavy_top.hpp>
#include <liebatch/models/pendulum_chain.hpp>
#include <liebatch/sampling/energy_level.hpp>
#include <liebatch/sampling/unit_sampler.hpp>

#include "sampling.hpp"

namespace {

TEST(Philox, MatchesRandom123KnownAnswers) {
  struct Kat {
    lb::Philox4x32 c;
    std::uint32_t k0, k1;
    lb::Philox4x32 out;
  };
  const Kat kats[] = {
      {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}}, 0xffffffff, 0xffffffff, {{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}}, 0xa4093822, 0x299f31d0, {{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}}},
  };
  for (const auto& k : kats) {
    const auto r = lb::philox4x32_10(k.c, k.k0, k.k1);
    for (int j = 0; j < 4; ++j) EXPECT_EQ(r.v[j], k.out.v[j]) << "word " << j;
  }
}

TEST(Philox, UniformsAreUniformAndReproducible) {
  const lb::CounterRng a{42}, b{42}, c{43};
  const int n = 1 << 20;
  double sum = 0, sum2 = 0;
  std::vector<int> bins(16, 0);
  for (int i = 0; i < n; ++i) {
    const double u = a.uniform(std::uint64_t(i) * 977, std::uint32_t(i % 5));
    ASSERT_TRUE(u >= 0 && u < 1);
    sum += u;
    sum2 += u * u;
    ++bins[int(u * 16)];
  }
  // Mean 1/2 and variance 1/12 to 6 standard errors; χ² over 16 bins below its 1e-6 quantile (~51).
  EXPECT_NEAR(sum / n, 0.5, 6 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(sum2 / n - (sum / n) * (sum / n), 1.0 / 12, 6 * 0.0745 / std::sqrt(double(n)));
  double chi2 = 0;
  for (int count : bins) chi2 += std::pow(count - n / 16.0, 2) / (n / 16.0);
  EXPECT_LT(chi2, 51.0);
  for (std::uint64_t i = 0; i < 100; ++i) {
    EXPECT_EQ(a.uniform(i, 3), b.uniform(i, 3));  // the same seed, the same numbers, in any order
    EXPECT_NE(a.uniform(i, 3), c.uniform(i, 3));
    EXPECT_NE(a.uniform(i, 3), a.uniform(i + 1, 3));
  }
}

TEST(Sobol, StartsAsPublished) {
  // Dimensions 1 and 2 of Joe–Kuo Sobol' (Gray-code order), e.g. Joe & Kuo's sobol.cc output.
  const double x[8][2] = {{0, 0}, {0.5, 0.5}, {0.75, 0.25}, {0.25, 0.75}, {0.375, 0.375}, {0.875, 0.875}, {0.625, 0.125}, {0.125, 0.625}};
  for (int n = 0; n < 8; ++n)
    for (int j = 0; j < 2; ++j) EXPECT_EQ(lb::sobol(std::uint64_t(n), j), x[n][j]) << n << ", " << j;
}

TEST(Sobol, EveryCoordinateIsStratifiedAndDimensionsOneTwoFormANet) {
  const int m = 10, N = 1 << m;
  for (std::uint32_t shift : {0u, 0x9e3779b9u}) {
    for (int j = 0; j < lb::sobol_max_dim; ++j) {
      // The first 2^m values of each coordinate hit every interval [i/2^m, (i+1)/2^m) exactly once.
      std::vector<int> hits(N, 0);
      for (int n = 0; n < N; ++n) ++hits[int(lb::sobol(std::uint64_t(n), j, shift) * N)];
      EXPECT_EQ(*std::min_element(hits.begin(), hits.end()), 1) << "dimension " << j + 1 << " shift " << shift;
    }
    // (0, m, 2)-net: every box of area 2^−m with sides 2^−a × 2^−(m−a) holds exactly one point.
    for (int a = 0; a <= m; ++a) {
      std::set<std::pair<int, int>> boxes;
      for (int n = 0; n < N; ++n)
        boxes.insert({int(lb::sobol(std::uint64_t(n), 0, shift) * (1 << a)), int(lb::sobol(std::uint64_t(n), 1, shift) * (1 << (m - a)))});
      EXPECT_EQ(int(boxes.size()), N) << "a = " << a;
    }
  }
  // The first point 0 is moved by a shift: the shift changes the set.
  EXPECT_NE(lb::sobol(0, 3, 0x12345678u), lb::sobol(0, 3));
}

TEST(UnitSampler, GridBoxAndSobolAreReproducibleFunctionsOfTheMember) {
  lb::UnitSampler grid;
  grid.kind = lb::SamplerKind::grid;
  grid.dim = 2;
  grid.per_axis[0] = 4;
  grid.per_axis[1] = 3;
  std::set<std::pair<double, double>> cells;
  for (std::uint64_t i = 0; i < 12; ++i) {
    const double u = grid(i, 0), v = grid(i, 1);
    EXPECT_DOUBLE_EQ(std::fmod(u * 4, 1.0), 0.5);  // cell centres
    EXPECT_DOUBLE_EQ(std::fmod(v * 3, 1.0), 0.5);
    cells.insert({u, v});
  }
  EXPECT_EQ(cells.size(), 12u);
  for (auto kind : {lb::SamplerKind::box, lb::SamplerKind::sobol}) {
    lb::UnitSampler s, t;
    s.kind = t.kind = kind;
    s.dim = t.dim = 3;
    s.seed = 7;
    t.seed = 8;
    for (std::uint64_t i = 0; i < 50; ++i)
      for (int j = 0; j < 3; ++j) {
        const double u = s(i, j);
        EXPECT_TRUE(u >= 0 && u < 1);
        EXPECT_EQ(u, s(i, j));
        EXPECT_NE(u, t(i, j)) << "the seed matters";
      }
  }
  lb::UnitSampler box;
  box.dim = 2;
  box.seed = 1;
  EXPECT_NE(box(5, 0, 0), box(5, 0, 1)) << "a rejected draw gets fresh numbers";
}

TEST(EnergyLevel, RescalesVelocitiesOntoTheLevelAndKeepsTheManifold) {
  std::mt19937_64 rng(9);
  const lb::PendulumChain<double, 2> chain{{1.0, 1.0}, {1.0, 1.0}, 9.81};
  const auto top = lb::HeavyTop<double>{lb::vec3(2.0, 1.5, 0.8), lb::vec3(0.1, 0.05, 0.5), 1.0, 9.81};
  int infeasible = 0;
  for (int k = 0; k < 200; ++k) {
    auto y = lbtest::Sampler<lb::PendulumChain<double, 2>::space>::point(rng);
    const auto before = y;
    const double E = 10.0 * (double(k % 7) - 2);  // some levels below the reachable range
    if (!lb::on_energy_level(chain, y, E)) {
      ++infeasible;
      EXPECT_EQ(lb::norm_inf(y - before), 0.0) << "left unchanged";
      EXPECT_GT(chain.energy(chain.scale_velocity(y, 0.0)), E) << "only when E is below the potential";
      continue;
    }
    EXPECT_NEAR(chain.energy(y), E, 1e-12 * (1 + std::abs(E)));
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(lb::norm_inf(chain.q(y, i) - chain.q(before, i)), 0.0) << "the configuration is kept";
      EXPECT_NEAR(lb::dot(chain.q(y, i), chain.w(y, i)), 0.0, 1e-13 * (1 + lb::norm(chain.w(y, i))));
    }
    auto x = lbtest::Sampler<lb::CoadjointSE3<double>>::point(rng);
    ASSERT_TRUE(lb::on_energy_level(top, x, 10.0));  // above max U = Mg|X| ≈ 5.0
    EXPECT_NEAR(top.energy(x), 10.0, 1e-13);
    EXPECT_NEAR(top.gamma_norm(x), 1.0, 1e-15);
  }
  EXPECT_GT(infeasible, 0);
  EXPECT_LT(infeasible, 200);
}

}  // namespace
