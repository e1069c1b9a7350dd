// The packed engine against the engine one member at a time over every model × method of the
// engine cases (test_ensemble_packed.cpp says the bound), in one unit per precision: the double
// cases in test_ensemble_packed.cpp, the float ones in ensemble_packed_float.cpp.
#pragma once
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "ensemble_cases.hpp"
#include "ensemble_checks.hpp"
#include "host_backend.hpp"

namespace lbtest {

/// The CPU backend on packs with one thread and the test's memory: B of the structural checks.
struct PackedHost : HostBackend {
  PackedHost() { simd = true; }
  explicit PackedHost(const lb::RunOptions&) : PackedHost() {}
};

/// Problem P's case ensemble in scalar T, 1 % of its members poisoned, run on packs and one member
/// at a time.
template <class Method, class P, class T> Comparison packed_vs_scalar(bool adaptive, double h = 0) {
  auto e = case_ensemble<P, T>(adaptive);
  if (h > 0) e.control.v[0].h = T(h);
  const std::size_t dim = e.y0.size() / e.size;
  for (std::size_t i = 7; i < e.size; i += 100) e.y0[(dim - 1) * e.size + i] = std::numeric_limits<T>::quiet_NaN();
  lb::RunOptions o;
  o.adaptive = adaptive;
  o.samples_per_chunk = 2;
  o.simd = false;
  const auto ref = lb::run_cpu<Method>(e, o);
  o.simd = true;
  const auto packed = lb::run_cpu<Method>(e, o);
  Comparison r;
  const double eps = std::numeric_limits<T>::epsilon();
  long max_steps = 0;
  for (long s : ref.steps) max_steps = std::max(max_steps, s);
  r.bound = adaptive ? 10 * double(e.control[0].rtol) : 8.0 * Method::stages * double(max_steps) * eps;
  auto upd = [&](double a, double b) {
    if (a == b || (std::isnan(a) && std::isnan(b))) return;
    const double d = std::abs(a - b) / std::max(1.0, std::abs(a));
    r.max_diff = std::isnan(d) ? std::numeric_limits<double>::infinity() : std::max(r.max_diff, d);
  };
  for (std::size_t k = 0; k < ref.y.size(); ++k) upd(ref.y[k], packed.y[k]);
  for (std::size_t k = 0; k < ref.sample_y.size(); ++k) upd(ref.sample_y[k], packed.sample_y[k]);
  for (std::size_t k = 0; k < ref.sample_obs.size(); ++k) upd(ref.sample_obs[k], packed.sample_obs[k]);
  for (std::size_t k = 0; k < ref.sample_t.size(); ++k) upd(ref.sample_t[k], packed.sample_t[k]);
  for (std::size_t i = 0; i < ref.status.size(); ++i) {
    r.mismatched_status += ref.status[i] != packed.status[i];
    r.mismatched_steps += ref.steps[i] != packed.steps[i] || ref.rejected[i] != packed.rejected[i];
  }
  r.first_difference = difference(ref, packed);
  return r;
}

struct Case {
  std::string name;
  std::function<Comparison()> run;
};

#define LB_PACKED_CASES(m, w, ...)                                                                              \
  v.push_back({std::string(P::name) + " / " #m, [] { return packed_vs_scalar<lb::methods::m, P, T>(false); }}); \
  if constexpr (lb::methods::m::order_hat > 0)                                                                  \
    v.push_back({std::string(P::name) + " / " #m " adaptive", [] { return packed_vs_scalar<lb::methods::m, P, T>(true); }});
template <class P, class T> void add_cases(std::vector<Case>& v) { LB_METHODS(LB_PACKED_CASES) }
#undef LB_PACKED_CASES

template <class T> void every_case_within_bound() {
  std::vector<Case> cases;
  add_cases<RigidBodyProblem, T>(cases);
  add_cases<HeavyTopProblem, T>(cases);
  add_cases<DoublePendulumProblem, T>(cases);
  add_cases<QuadrotorLoadProblem, T>(cases);
  ASSERT_EQ(cases.size(), 4 * cases_per_problem);
  long differing = 0, steps_differ = 0;
  double worst = 0;
  for (const auto& c : cases) {
    const Comparison r = c.run();
    EXPECT_LE(r.max_diff, r.bound) << c.name;
    EXPECT_EQ(r.mismatched_status, 0) << c.name;
    differing += !r.first_difference.empty();
    steps_differ += r.mismatched_steps;
    worst = std::max(worst, r.bound > 0 ? r.max_diff / r.bound : 0.0);
  }
  std::printf("[ INFO ] %zu cases: %ld not bitwise, %ld members with other step counts, worst %.3g of the bound\n", cases.size(), differing,
              steps_differ, worst);
}

}  // namespace lbtest
