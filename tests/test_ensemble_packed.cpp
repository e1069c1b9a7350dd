// The CPU engine on packs (members_packed.hpp, the lane-masked advance) against the same engine
// one member at a time (RunOptions::simd = false), over every model × method of the engine cases,
// fixed and adaptive, float and double, with samples and 1 % poisoned members; and the packed
// engine's own independence of threads, batches and chunks (bitwise), sections included.
//
// The bound: a lane computes the scalar operations of its member, except sin and cos, which are
// the vector polynomials (within 2 ulps, test_pack.cpp). Fixed steps: each of N steps perturbs
// the state by a few ulps per stage from those, so |y_packed − y_scalar| ≤ 8 · stages · N · ε ·
// max(1, |y|); models without sin or cos in their steps (Lorenz) are bitwise. Adaptive steps: the
// same step sequence unless a borderline step is accepted on one side only; statuses equal, results
// within 10 · tol.
#include <gtest/gtest.h>

#include <liebatch/models/heavy_top.hpp>
#include <liebatch/models/lorenz.hpp>

#include "ensemble_packed_cases.hpp"

namespace {

using lbtest::difference;
using lbtest::every_case_within_bound;
using lbtest::packed_vs_scalar;
using lbtest::PackedHost;

TEST(EnsemblePacked, EqualsTheScalarEngineWithinTheBoundDouble) { every_case_within_bound<double>(); }

// Steps long enough for the closed forms (sin and cos, 2 ulps from libm on packs): not bitwise,
// within the bound, with the same statuses and step counts.
TEST(EnsemblePacked, LongStepsThroughTheClosedFormsWithinTheBound) {
  for (const auto& r : {packed_vs_scalar<lb::methods::rkmk4, lbtest::RigidBodyProblem, double>(false, 2.0),
                        packed_vs_scalar<lb::methods::cf4, lbtest::HeavyTopProblem, double>(false, 1.0),
                        packed_vs_scalar<lb::methods::rkmk4, lbtest::DoublePendulumProblem, float>(false, 0.25)}) {
    EXPECT_LE(r.max_diff, r.bound);
    EXPECT_EQ(r.mismatched_status, 0);
    EXPECT_EQ(r.mismatched_steps, 0);
    std::printf("[ INFO ] %s, %.3g of the bound\n", r.first_difference.empty() ? "bitwise" : "not bitwise", r.max_diff / r.bound);
  }
}

// A model whose steps use no sin or cos: packed and scalar are the same operations, bitwise, with
// per-member models (ρ swept: the models gather into the lanes of one packed model). Lorenz runs
// on packs of two registers (its pack_registers), so these cases check those too.
static_assert(lb::engine::PackOf<lb::Lorenz<double>>::size == 2 * lb::Pack<double>::size);
static_assert(lb::engine::PackOf<lb::Lorenz<float>>::size == 2 * lb::Pack<float>::size);
TEST(EnsemblePacked, LorenzSweepIsBitwiseTheScalarEngine) {
  lb::Ensemble<lb::Lorenz<double>> e;
  e.size = 1003;  // a ragged last pack
  e.model.v.resize(e.size);
  e.y0.resize(3 * e.size);
  for (std::size_t i = 0; i < e.size; ++i) {
    e.model.v[i] = {10.0, 21.0 * double(i) / double(e.size), 8.0 / 3.0};
    for (int d = 0; d < 3; ++d) e.y0[d * e.size + i] = 1.0 + 0.001 * double(d);
  }
  e.t1.v = {1.0};
  e.samples = 4;
  lb::StepControl<double> c;
  c.h = 1e-3;
  e.control.v = {c};
  lb::RunOptions o;
  o.simd = false;
  const auto ref = lb::run_cpu<lb::methods::rkmk4>(e, o);
  o.simd = true;
  EXPECT_EQ(difference(ref, lb::run_cpu<lb::methods::rkmk4>(e, o)), "");
  o.adaptive = true;
  o.simd = false;
  const auto ref_a = lb::run_cpu<lb::methods::rkmk54>(e, o);
  o.simd = true;
  EXPECT_EQ(difference(ref_a, lb::run_cpu<lb::methods::rkmk54>(e, o)), "");
}

// On ℝⁿ a pack takes its runs of whole grid steps in grid_run.hpp's grid_run, with the
// iterations' bookkeeping left out: bitwise the scalar engine's steps wherever a run must end
// early or must not start. Members have their own h and t₀ (negative, and large enough that in
// float the rounding tolerance of docs/packs.md §4 exceeds the sliver), and end on, off or within a
// sliver of the grid (t₁ per member); some hit their attempt cap mid-run;
// some start so large that RK4 is unstable for them and overflows after a few to a few hundred
// steps (the state kept is the last finite one); the runs pause at samples or at chunk ends.
template <class Method, class T> void grid_runs_against_scalar(lb::Ensemble<lb::Lorenz<T>> e) {
  for (const int samples : {0, 6}) {
    e.samples = samples;
    lb::RunOptions o;
    o.samples_per_chunk = 1;
    o.chunks = 7;
    o.threads = 1;
    o.simd = false;
    const auto ref = lb::run_cpu<Method>(e, o);
    long overflowed = 0, capped = 0, done = 0;
    for (std::size_t i = 0; i < e.size; ++i) {
      overflowed += ref.status[i] == std::uint8_t(lb::Status::nonfinite) && ref.steps[i] > 1;
      capped += ref.status[i] == std::uint8_t(lb::Status::step_cap);
      done += ref.status[i] == std::uint8_t(lb::Status::ok);
    }
    EXPECT_GE(overflowed, 5);  // the cases the test is for do occur
    EXPECT_GE(capped, 5);
    EXPECT_GE(done, 150);
    o.simd = true;
    EXPECT_EQ(difference(ref, lb::run_cpu<Method>(e, o)), "") << samples << " samples";
    o.threads = 3;
    EXPECT_EQ(difference(ref, lb::run_cpu<Method>(e, o)), "") << samples << " samples, 3 threads";
    if constexpr (std::is_same_v<T, double> && std::is_same_v<Method, lb::methods::rkmk4>) {
      // The command line's section, chosen at run time (AnySection): of kind none, the packs take
      // their grid runs and the run is the one without a section; a level set searched on packs
      // takes none and finds the scalar engine's crossings.
      using Any = lb::AnySection<T, lb::Hyperplane<T>>;
      EXPECT_EQ(difference(ref, lb::run_cpu<Method>(e, o, Any{})), "") << samples << " samples, a section of kind none";
      Any level;
      level.kind = Any::Kind::level;
      level.level = {0, T(0.5)};
      auto searched = e;
      searched.max_hits = 4;
      o.simd = false;
      const auto hits = lb::run_cpu<Method>(searched, o, level);
      EXPECT_GT(hits.hit_t.size(), 100u);
      o.simd = true;
      EXPECT_EQ(difference(hits, lb::run_cpu<Method>(searched, o, level)), "") << samples << " samples, a level set searched";
    }
  }
}

template <class T> void lorenz_grid_runs_bitwise() {
  lb::Ensemble<lb::Lorenz<T>> e;
  e.size = 203;
  e.model.v.resize(e.size);
  e.t0.v.resize(e.size);
  e.t1.v.resize(e.size);
  e.control.v.resize(e.size);
  e.y0.resize(3 * e.size);
  // t₁ after the grid point t₀ + 1000 h in steps: on it, off it, within a sliver of it (the last
  // step stretched or shortened onto t₁).
  const double offset[] = {0, 0.377, 0.0004, -0.0004, 0.9};
  const double start[] = {0, 0.125, -0.375, 1000.25};
  for (std::size_t i = 0; i < e.size; ++i) {
    e.model.v[i] = {T(10), T(28 * double(i) / double(e.size)), T(8) / T(3)};
    e.t0.v[i] = T(start[i % 4]);
    e.control.v[i].h = T(1e-3 * (1 + 0.25 * double(i % 3)));
    e.t1.v[i] = e.t0.v[i] + T(1000 + offset[i % 5]) * e.control.v[i].h;
    if (i % 17 == 4) e.control.v[i].max_attempts = 300 + long(i);
    // |x| h > 2.8: RK4 unstable; the larger, the sooner the overflow.
    const double big = i % 23 == 5 ? 3e3 * double(1 + i % 7) : 1;
    for (int d = 0; d < 3; ++d) e.y0[std::size_t(d) * e.size + i] = T(big * (1 + 0.001 * d));
  }
  grid_runs_against_scalar<lb::methods::rkmk4>(e);
  grid_runs_against_scalar<lb::methods::cf4>(e);
}

TEST(EnsemblePacked, LorenzGridRunsAreTheScalarStepsBitwiseDouble) { lorenz_grid_runs_bitwise<double>(); }
TEST(EnsemblePacked, LorenzGridRunsAreTheScalarStepsBitwiseFloat) { lorenz_grid_runs_bitwise<float>(); }

/// Problem P's poisoned case ensemble on packs: run_cpu on every thread in one batch, on three
/// threads with one-sample chunks, and on one thread in batches of 37 (members share packs
/// differently in each). "" when the three are bitwise equal, else the first field that is not.
template <class Method, class P> std::string packed_independence(bool adaptive) {
  auto e = lbtest::case_ensemble<P>(adaptive);
  const std::size_t dim = e.y0.size() / e.size;
  for (std::size_t i = 7; i < e.size; i += 100) e.y0[(dim - 1) * e.size + i] = std::numeric_limits<double>::quiet_NaN();
  lb::RunOptions o;
  o.adaptive = adaptive;
  const auto whole = lb::run_cpu<Method>(e, o);
  o.threads = 3;
  o.samples_per_chunk = 1;
  const std::string threads = difference(whole, lb::run_cpu<Method>(e, o));
  o.batch = 37;
  const std::string batches = difference(whole, lb::run_batched<PackedHost, Method>(e, o));
  return threads.empty() && batches.empty() ? "" : "threads: " + threads + ", batches: " + batches;
}

#define LB_INDEPENDENCE_CASES(m, w, ...)                                                                    \
  v.push_back({std::string(P::name) + " / " #m, [] { return packed_independence<lb::methods::m, P>(false); }}); \
  if constexpr (lb::methods::m::order_hat > 0)                                                             \
    v.push_back({std::string(P::name) + " / " #m " adaptive", [] { return packed_independence<lb::methods::m, P>(true); }});
template <class P> void add_independence(std::vector<std::pair<std::string, std::function<std::string()>>>& v) {
  LB_METHODS(LB_INDEPENDENCE_CASES)
}
#undef LB_INDEPENDENCE_CASES

TEST(EnsemblePacked, IndependentOfThreadsBatchesAndChunksBitwise) {
  std::vector<std::pair<std::string, std::function<std::string()>>> cases;
  add_independence<lbtest::RigidBodyProblem>(cases);
  add_independence<lbtest::HeavyTopProblem>(cases);
  add_independence<lbtest::DoublePendulumProblem>(cases);
  add_independence<lbtest::QuadrotorLoadProblem>(cases);
  ASSERT_EQ(cases.size(), 4 * lbtest::cases_per_problem);
  for (const auto& [name, run] : cases) EXPECT_EQ(run(), "") << name;
  EXPECT_EQ(lbtest::structure_check<PackedHost>(), "");
}

// Crossings located lane by lane (the scalar root finder on each member's model) are the scalar
// engine's: a level set (q_x = 0 both ways, adaptive, with a 1 % poisoned ensemble) and a
// stroboscopic section (fixed steps), with samples; every field bitwise, hit records included.
TEST(EnsemblePacked, SectionCrossingsAreTheScalarEnginesBitwise) {
  auto e = lbtest::released_pendulums(501, 6.0);
  for (std::size_t i = 3; i < e.size; i += 100) e.y0[4 * e.size + i] = std::numeric_limits<double>::quiet_NaN();
  e.samples = 7;
  e.max_hits = 4;  // some members overflow their slots in a chunk: lost hits counted alike
  lb::RunOptions o;
  o.adaptive = true;
  o.samples_per_chunk = 3;
  const lb::Hyperplane<double> plane{0, 0.0, lb::Crossing::both};
  o.simd = false;
  const auto ref = lb::run_cpu<lb::methods::rkmk54>(e, o, plane);
  o.simd = true;
  const auto packed = lb::run_cpu<lb::methods::rkmk54>(e, o, plane);
  ASSERT_GT(ref.hit_t.size(), 1000u);
  EXPECT_EQ(difference(ref, packed), "");
  o.adaptive = false;
  e.control.v[0].h = 0.01;
  const lb::Stroboscopic<double> strobe{0.0, 0.37};
  o.simd = false;
  const auto ref_s = lb::run_cpu<lb::methods::cf4>(e, o, strobe);
  o.simd = true;
  const auto packed_s = lb::run_cpu<lb::methods::cf4>(e, o, strobe);
  ASSERT_GT(ref_s.hit_t.size(), 3000u);
  EXPECT_EQ(difference(ref_s, packed_s), "");
}

// The structural section check of the GPU path (batches of 128, four chunks) on packs.
TEST(EnsemblePacked, SectionCrossingsIndependentOfBatchesAndChunks) { EXPECT_EQ(lbtest::sections_check<PackedHost>(), ""); }

}  // namespace

namespace {

// Members that take very different numbers of steps (heavy tops with momenta ×0.2 … ×5, adaptive):
// a lane whose member is done takes the next member of its stream, so the lanes stay busy where
// packs of consecutive members would idle many of their lanes behind their slowest member; results
// the scalar engine's within the adaptive bound (the long steps of fast tops go through sin and
// cos), statuses equal. Fails if lanes are not refilled.
TEST(EnsemblePacked, LanesRefilledWhenMembersTakeDifferentStepCounts) {
  using T = double;
  const auto top = lb::HeavyTop<T>::bruls_cardona();
  const auto y0 = top.bruls_cardona_initial();
  lb::Ensemble<lb::HeavyTop<T>> e;
  e.size = 509;
  e.model.v = {top};
  e.t1.v = {0.2};
  lb::StepControl<T> c;
  c.atol = c.rtol = 1e-8;
  e.control.v = {c};
  e.y0.resize(6 * e.size);
  for (std::size_t i = 0; i < e.size; ++i) {
    const double k = std::pow(25.0, 0.5 * (1 + std::sin(double(13 * i)))) / 5;  // 0.2 … 5
    for (int d = 0; d < 6; ++d) e.y0[d * e.size + i] = y0[d] * (d < 3 ? k : 1.0);
  }
  lb::RunOptions o;
  o.adaptive = true;
  o.threads = 1;
  o.simd = false;
  const auto ref = lb::run_cpu<lb::methods::rkmk54>(e, o);
  o.simd = true;
  const auto packed = lb::run_cpu<lb::methods::rkmk54>(e, o);
  double worst = 0;
  for (std::size_t k = 0; k < ref.y.size(); ++k) worst = std::max(worst, std::abs(ref.y[k] - packed.y[k]) / std::max(1.0, std::abs(ref.y[k])));
  EXPECT_LE(worst, 10 * c.rtol);
  EXPECT_EQ(ref.status, packed.status);
  // Occupancy packs of consecutive members would have had: W × their slowest member's attempts.
  constexpr std::size_t W = lb::Pack<T>::size;
  double used = 0, ran = 0;
  for (std::size_t p = 0; p < e.size; p += W) {
    long most = 0;
    for (std::size_t i = p; i < std::min(e.size, p + W); ++i) {
      used += double(packed.steps[i] + packed.rejected[i]);
      most = std::max(most, packed.steps[i] + packed.rejected[i]);
    }
    ran += double(W) * double(most);
  }
  std::printf("[ INFO ] W = %zu: lanes busy %.1f %% (packs of consecutive members: %.1f %%)\n", W, 100 * packed.lane_occupancy,
              100 * used / ran);
  EXPECT_EQ(ref.lane_occupancy, 0.0);
  EXPECT_GE(packed.lane_occupancy, 0.9);
  EXPECT_GT(packed.lane_occupancy, used / ran + 0.2);
}

}  // namespace
