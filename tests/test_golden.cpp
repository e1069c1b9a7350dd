// Bitwise regression of the ensemble engine: a fixed set of runs (every model, fixed and adaptive
// methods, samples, sections, float and long double) hashed field by field and compared with
// tests/golden/api.txt, recorded before the engine's reorganisation (issue 15). Any change to a
// result's bits fails here. A change meant to alter results is re-recorded with
//   LIEBATCH_GOLDEN_WRITE=1 ./build/tests/test_golden
// and the diff of api.txt is then part of the change.
#include <gtest/gtest.h>

#include <liebatch/models/heavy_top_quadratic.hpp>
#include <liebatch/models/lorenz.hpp>
#include <liebatch/models/rigid_body_attitude.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "ensembles.hpp"
#include "golden_hash.hpp"
#include "problems.hpp"
#include <liebatch/ensemble/cpu.hpp>

namespace {

using lbtest::Fnv;

/// The hash of every field of a run's output.
template <class T> std::string hash_of(const lb::EnsembleOutput<T>& o) {
  Fnv h;
  h.add(o.y); h.add(o.t); h.add(o.steps); h.add(o.rejected); h.add(o.status);
  h.add(o.sample_t); h.add(o.sample_y); h.add(o.sample_obs);
  h.add(o.hit_member); h.add(o.hit_index); h.add(o.hit_t); h.add(o.hit_y); h.add(o.hit_obs);
  h.add(o.hits); h.add(o.lost_hits); h.add(o.suspects);
  return h.hex();
}

struct LorenzProblem {
  static constexpr double t_end = 1.0;
  template <class T> static lb::Lorenz<T> model() { return {}; }
  template <class T> static lb::Vec3<T> y0() { return lb::vec3(T(1), T(1), T(1)); }
};

/// Three links of lengths 1, 0.7, 0.5 and masses 1, 2, 0.5 swinging about e₂.
struct ChainProblem {
  static constexpr double t_end = 1.0;
  template <class T> static lb::PendulumChain<T, 3> model() { return {{T(1), T(2), T(0.5)}, {T(1), T(0.7), T(0.5)}, T(9.81)}; }
  template <class T> static lb::Vec<T, 18> y0() {
    lb::Vec<T, 18> y;
    for (int i = 0; i < 3; ++i) {
      const T a = T(0.3) * T(i + 1);
      y.set_seg(6 * i, lb::vec3(std::sin(a), T(0), -std::cos(a)));
      y.set_seg(6 * i + 3, lb::vec3(T(0), T(1) - T(0.4) * T(i), T(0)));
    }
    return y;
  }
};

struct QuadraticTopProblem {
  static constexpr double t_end = 1.0;
  template <class T> static lb::HeavyTopQuadratic<T> model() { return {lbtest::HeavyTopProblem::model<T>()}; }
  template <class T> static auto y0() {
    return model<T>().from_body(lb::SO3<T>::exp(lb::vec3(T(0.1), T(0.2), T(0.3))).R, lb::vec3(T(0.5), T(1), T(2)));
  }
};

struct AttitudeProblem {
  static constexpr double t_end = 2.0;
  template <class T> static lb::RigidBodyAttitude<T> model() { return {lbtest::RigidBodyProblem::model<T>()}; }
  template <class T> static auto y0() {
    return lb::concat(lb::SO3<T>::exp(lb::vec3(T(0.3), T(-0.2), T(0.1))).R.flat(), lbtest::RigidBodyProblem::y0<T>());
  }
};

/// 64 members: P's initial state moved by the group action of a member-dependent algebra element
/// (stays on the manifold), t ∈ [0, t_end], 5 samples; fixed h = t_end/50 or adaptive from 1e-3
/// at tolerance 1e-7.
template <class P, class T = double> auto ensemble(bool adaptive) {
  using Model = decltype(P::template model<T>());
  using S = typename Model::space;
  lb::Ensemble<Model> e;
  e.size = 64;
  e.model.v = {P::template model<T>()};
  e.t1.v = {T(P::t_end)};
  e.samples = 5;
  lb::StepControl<T> c;
  c.h = adaptive ? T(1e-3) : T(P::t_end / 50);
  c.atol = c.rtol = T(1e-7);
  e.control.v = {c};
  const auto y0 = P::template y0<T>();
  e.y0.resize(S::dim * e.size);
  for (std::size_t i = 0; i < e.size; ++i) {
    typename S::algebra::vec u;
    for (int d = 0; d < S::algebra::dim; ++d) u[d] = T(0.02) * T(std::sin(double(i * 7 + d * 3)));
    const auto y = S::exp_act(u, y0);
    for (int d = 0; d < S::dim; ++d) e.y0[d * e.size + i] = y[d];
  }
  return e;
}

template <class Method, class E, class Section = lb::NoSection>
std::string run(const E& e, bool adaptive, const Section& sec = {}) {
  lb::RunOptions o;
  o.adaptive = adaptive;
  o.samples_per_chunk = 2;
  const auto out = lb::run_cpu<Method>(e, o, sec);
  for (auto st : out.status) EXPECT_EQ(st, std::uint8_t(lb::Status::ok));  // hashes of finished runs
  return hash_of(out);
}

/// name → hash of its run.
std::map<std::string, std::function<std::string()>> cases() {
  namespace m = lb::methods;
  std::map<std::string, std::function<std::string()>> v;
#define LB_GOLDEN_FIXED(P, M) v[#P " " #M] = [] { return run<m::M>(ensemble<P>(false), false); };
#define LB_GOLDEN_ADAPTIVE(P, M) v[#P " " #M " adaptive"] = [] { return run<m::M>(ensemble<P>(true), true); };
#define LB_GOLDEN_PROBLEM(P)                                                                                \
  LB_GOLDEN_FIXED(P, lie_euler) LB_GOLDEN_FIXED(P, rkmk4) LB_GOLDEN_FIXED(P, cf4) LB_GOLDEN_FIXED(P, cg3) \
  LB_GOLDEN_ADAPTIVE(P, rkmk54) LB_GOLDEN_ADAPTIVE(P, cf32a)
  using lbtest::DoublePendulumProblem, lbtest::HeavyTopProblem, lbtest::QuadrotorLoadProblem, lbtest::RigidBodyProblem,
      lbtest::SpatialHeavyTopProblem;
  LB_GOLDEN_PROBLEM(RigidBodyProblem)
  LB_GOLDEN_PROBLEM(AttitudeProblem)
  LB_GOLDEN_PROBLEM(HeavyTopProblem)
  LB_GOLDEN_PROBLEM(SpatialHeavyTopProblem)
  LB_GOLDEN_PROBLEM(QuadraticTopProblem)
  LB_GOLDEN_PROBLEM(DoublePendulumProblem)
  LB_GOLDEN_PROBLEM(ChainProblem)
  LB_GOLDEN_PROBLEM(QuadrotorLoadProblem)
  LB_GOLDEN_PROBLEM(LorenzProblem)
#undef LB_GOLDEN_PROBLEM
#undef LB_GOLDEN_ADAPTIVE
#undef LB_GOLDEN_FIXED
  // Sections: Γ_z = 0 upward with Π_z > 0 on the top (fixed and adaptive, 3 hits kept per chunk so
  // some are lost), and a stroboscopic section of the double pendulum; 10 time units each.
  auto top = [](bool adaptive) {
    auto e = ensemble<lbtest::HeavyTopProblem>(adaptive);
    e.t1.v = {10.0};
    e.max_hits = 3;
    return e;
  };
  struct PiZPositive {
    LB_HD bool operator()(double, const lb::Vec6<double>& y) const { return y[2] > 0; }
  };
  const lb::Conditioned<lb::Hyperplane<double>, PiZPositive> gamma_z{{5, 0.0, lb::Crossing::up}, {}};
  v["HeavyTopProblem rkmk4 hyperplane"] = [=] { return run<m::rkmk4>(top(false), false, gamma_z); };
  v["HeavyTopProblem rkmk54 adaptive hyperplane"] = [=] { return run<m::rkmk54>(top(true), true, gamma_z); };
  v["DoublePendulumProblem cf4 stroboscopic"] = [] {
    auto e = ensemble<lbtest::DoublePendulumProblem>(false);
    e.t1.v = {10.0};
    return run<m::cf4>(e, false, lb::Stroboscopic<double>{0.0, 0.7});
  };
  // Other scalars.
  v["HeavyTopProblem rkmk4 float"] = [] { return run<m::rkmk4>(ensemble<lbtest::HeavyTopProblem, float>(false), false); };
  v["HeavyTopProblem rkmk54 adaptive float"] = [] {
    return run<m::rkmk54>(ensemble<lbtest::HeavyTopProblem, float>(true), true);
  };
  v["DoublePendulumProblem rkmk4 long double"] = [] {
    return run<m::rkmk4>(ensemble<lbtest::DoublePendulumProblem, long double>(false), false);
  };
  return v;
}

TEST(Golden, EveryRunBitwiseAsRecorded) {
  const std::string path = LIEBATCH_GOLDEN_DIR "/api.txt";
  const auto all = cases();
  std::map<std::string, std::string> got;
  for (const auto& [name, f] : all) got[name] = f();
  if (std::getenv("LIEBATCH_GOLDEN_WRITE")) {
    std::ofstream out(path);
    for (const auto& [name, h] : got) out << h << "  " << name << "\n";
    GTEST_SKIP() << "recorded " << got.size() << " runs in " << path;
  }
  const auto recorded = lbtest::read_golden(path);
  ASSERT_FALSE(recorded.empty()) << path << " is missing or empty";
  EXPECT_EQ(recorded.size(), got.size()) << "runs recorded vs. runs made";
  for (const auto& [name, h] : got) {
    const auto it = recorded.find(name);
    if (it == recorded.end()) ADD_FAILURE() << "not recorded: " << name;
    else EXPECT_EQ(h, it->second) << name;
  }
}

// The comparison can fail: one ulp in one member's final state changes the hash.
TEST(Golden, OneUlpChangesTheHash) {
  auto o = lb::run_cpu<lb::methods::rkmk4>(ensemble<lbtest::HeavyTopProblem>(false), lb::RunOptions{});
  const std::string before = hash_of(o);
  o.y[17] = std::nextafter(o.y[17], 2.0);
  EXPECT_NE(hash_of(o), before);
}

}  // namespace
