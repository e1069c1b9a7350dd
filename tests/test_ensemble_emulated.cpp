// The engine as the GPU drives it (ensemble/engine.hpp: batches sized by memory, chunks,
// structure-of-arrays buffers, hit compaction, copies back; ensemble/statistics_batched.hpp: the
// device statistics), on the CPU backend with one thread and small memories (host_backend.hpp):
// every result must be bitwise run_cpu's with all threads and one batch. This runs in every build;
// the device itself is checked by test_ensemble_gpu.
#include <gtest/gtest.h>

#include <liebatch/models/lorenz.hpp>

#include <chrono>

#include "ensemble_cases.hpp"
#include "ensemble_checks.hpp"
#include "ensemble_gpu.hpp"
#include "host_backend.hpp"
#include "statistics_checks.hpp"

namespace lbtest {
std::vector<GpuCase> emulated_cases();
std::vector<GpuCase> emulated_symplectic_cases();
std::vector<GpuCase> emulated_constrained_cases();
}

namespace {

using lbtest::difference;
using lbtest::HostBackend;

/// Restores the emulated device's memory after a test that shrinks it.
struct DeviceMemory {
  std::size_t saved = HostBackend::memory;
  explicit DeviceMemory(std::size_t bytes) { HostBackend::memory = bytes; }
  ~DeviceMemory() { HostBackend::memory = saved; }
};

TEST(EnsembleEmulatedGpu, EqualsTheCpuBitwiseForEveryModelAndMethod) {
  const auto cases = lbtest::emulated_cases();
  ASSERT_EQ(cases.size(), 4 * lbtest::cases_per_problem) << "every model × method: 4 problems";
  for (const auto& c : cases) {
    const lbtest::Comparison r = c.run();
    EXPECT_EQ(r.first_difference, "") << c.name;
    EXPECT_EQ(r.max_diff, 0.0) << c.name;
  }
}

// The symplectic methods (issue 17): Newton per member, its iteration counts compared too.
TEST(EnsembleEmulatedGpu, SymplecticMethodsEqualTheCpuBitwise) {
  const auto cases = lbtest::emulated_symplectic_cases();
  ASSERT_EQ(cases.size(), 7u) << "slgi0, slgi_half, slgi1, hp_sv_exp, hp_sv_cay, hp_ve_exp, hp_ve_cay";
  for (const auto& c : cases) {
    const lbtest::Comparison r = c.run();
    EXPECT_EQ(r.first_difference, "") << c.name;
    EXPECT_EQ(r.max_diff, 0.0) << c.name;
    EXPECT_EQ(r.mismatched_steps, 0) << c.name;
    EXPECT_EQ(r.newton_differences, 0) << c.name;
  }
}

// HEDOP5 on constrained systems (issue 18), fixed and adaptive: state (q, v, λ), no Newton counts.
TEST(EnsembleEmulatedGpu, Hedop5EqualsTheCpuBitwise) {
  const auto cases = lbtest::emulated_constrained_cases();
  ASSERT_EQ(cases.size(), 3u);
  for (const auto& c : cases) {
    const lbtest::Comparison r = c.run();
    EXPECT_EQ(r.first_difference, "") << c.name;
    EXPECT_EQ(r.max_diff, 0.0) << c.name;
    EXPECT_EQ(r.mismatched_status, 0) << c.name;
  }
}

TEST(EnsembleEmulatedGpu, BatchesChunksAndPoisonedMembers) { EXPECT_EQ(lbtest::structure_check<HostBackend>(), ""); }

TEST(EnsembleEmulatedGpu, SectionCrossingsMatchTheCpu) { EXPECT_EQ(lbtest::sections_check<HostBackend>(), ""); }

// The device statistics (ensemble/statistics_batched.hpp: two-pass moments by reduction, the binning
// body) against lb::statistics: exact fields equal, moments within their stated bound.
TEST(EnsembleEmulatedGpu, StatisticsAgreeWithTheCpu) {
  const lbtest::StatisticsComparison r = lbtest::statistics_check<HostBackend>();
  EXPECT_EQ(r.failure, "");
  EXPECT_LE(r.mean_ratio, 1.0);
  EXPECT_LE(r.var_ratio, 1.0);
}

// The one batch planner (ensemble/batch_plan.hpp) that the engine and the command line share: what
// fits in the budget, never more than asked or than there are members, never none; the buffers
// grow with the state, every sample slot and hit slot, and a Newton method's counters.
TEST(BatchPlan, BatchesFitTheBudgetAndTheRequest) {
  EXPECT_EQ(lb::batch_members(1000, 100, 7000.0), 70u);
  EXPECT_EQ(lb::batch_members(1000, 100, 7000.0, 16), 16u) << "a request below the fit";
  EXPECT_EQ(lb::batch_members(1000, 100, 7000.0, 500), 70u) << "a request is a cap, never past the memory";
  EXPECT_EQ(lb::batch_members(1000, 100, 50.0), 1u) << "one member more than the budget still runs";
  EXPECT_EQ(lb::batch_members(1000, 100, 1e12), 1000u);
  EXPECT_EQ(lb::batch_members(5, 100, 1e12, 9), 5u);
  const lb::RunShape s{8, 6, 2, 11, 12, 0, 0, false, 0};
  auto with = [&](auto change) {
    lb::RunShape t = s;
    change(t);
    return lb::buffer_bytes(t) - lb::buffer_bytes(s);
  };
  EXPECT_EQ(with([](lb::RunShape& t) { t.dim = 7; }), 8u * (2 + 12)) << "y, y0 and one per sample slot";
  EXPECT_EQ(with([](lb::RunShape& t) { t.sample_slots = 13; }), 8u * (1 + 6 + 2));
  EXPECT_EQ(with([](lb::RunShape& t) { t.hit_slots = 1; }), 8u * 2 * (1 + 6 + 2) + sizeof(long));
  EXPECT_EQ(with([](lb::RunShape& t) { t.implicit = true; }), sizeof(long) + sizeof(int));
  EXPECT_EQ(lb::result_bytes(lb::RunShape{8, 6, 2, 12, 12, 0, 0, false, 0}) - lb::result_bytes(s), 8u * (1 + 6 + 2)) << "one sample more";
}

// Batches sized by the device's free memory (here 64 KiB: 150-odd members of a 1000-member run),
// samples with observables and one-sample chunks: bitwise run_cpu.
TEST(EnsembleEmulatedGpu, MemorySizedBatchesEqualTheCpuBitwise) {
  using M = lb::methods::rkmk4;
  auto e = lbtest::heavy_top_ensemble(1000);
  e.samples = 7;
  e.control.v[0].h = 0.01;
  lb::RunOptions o;
  o.samples_per_chunk = 1;
  const DeviceMemory small(1 << 16);
  HostBackend::batches = 0;
  const auto started = std::chrono::steady_clock::now();
  const auto gpu = lb::run_batched<HostBackend, M>(e, o);
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto cpu = lb::run_cpu<M>(e, o);
  EXPECT_EQ(difference(cpu, gpu), "");
  // The integration time excludes setup and copies but is part of the whole run.
  EXPECT_GT(gpu.integrate_seconds, 0.0);
  EXPECT_LT(gpu.integrate_seconds, total);
  EXPECT_GT(cpu.integrate_seconds, 0.0);
  EXPECT_GE(HostBackend::batches, 5);  // ≥ 300 bytes a member, 70 % of 64 KiB a batch
  ASSERT_GT(e.nobs, 0);
  for (std::size_t k = 0; k < gpu.sample_obs.size(); ++k) ASSERT_TRUE(std::isfinite(gpu.sample_obs[k]));
}

// Float, as the command line and the Lorenz benchmark run it: bitwise run_cpu.
TEST(EnsembleEmulatedGpu, FloatEqualsTheCpuBitwise) {
  lb::Ensemble<lb::Lorenz<float>> e;
  e.size = 300;
  e.model.v.resize(e.size);
  for (std::size_t i = 0; i < e.size; ++i) e.model.v[i] = {10.0f, float(21.0 * double(i) / double(e.size)), 8.0f / 3.0f};
  e.y0.assign(3 * e.size, 1.0f);
  e.control.v[0].h = 0.001f;
  e.samples = 5;
  lb::RunOptions o;
  o.batch = 128;
  o.samples_per_chunk = 2;
  EXPECT_EQ(difference(lb::run_cpu<lb::methods::rkmk4>(e, o), lb::run_batched<HostBackend, lb::methods::rkmk4>(e, o)), "");
  auto top = lbtest::heavy_top_ensemble(300);
  lb::Ensemble<lb::HeavyTop<float>> f;
  f.size = top.size;
  f.model.v = {lbtest::HeavyTopProblem::model<float>()};
  f.y0.assign(top.y0.begin(), top.y0.end());
  f.control.v[0].atol = f.control.v[0].rtol = 1e-5f;
  f.samples = 3;
  o.adaptive = true;
  EXPECT_EQ(difference(lb::run_cpu<lb::methods::rkmk54>(f, o), lb::run_batched<HostBackend, lb::methods::rkmk54>(f, o)), "");
}

// More crossings per chunk than slots: the same records as run_cpu, the same lost counts, none
// of them zero, and progress reported once per chunk up to 1.
TEST(EnsembleEmulatedGpu, HitOverflowIsCountedLikeTheCpu) {
  auto e = lbtest::released_pendulums(50, 10.0);  // period ≈ 2 s: 4 or 5 crossings of q_x = 0 per chunk
  e.max_hits = 3;
  e.control.v[0].h = 0.01;
  lb::RunOptions o;
  o.chunks = 2;
  std::vector<double> progress;
  o.progress = [&](double done) { progress.push_back(done); };
  o.batch = 16;  // four batches, the last one short
  const lb::Hyperplane<double> plane{0, 0.0, lb::Crossing::both};
  const auto gpu = lb::run_batched<HostBackend, lb::methods::rkmk4>(e, o, plane);
  const std::vector<double> reported = progress;
  const auto cpu = lb::run_cpu<lb::methods::rkmk4>(e, o, plane);
  EXPECT_EQ(difference(cpu, gpu), "");
  for (std::size_t i = 0; i < e.size; ++i) {
    EXPECT_GT(gpu.lost_hits[i], 0) << "member " << i;
    EXPECT_EQ(gpu.hits[i] - gpu.lost_hits[i], 2 * 3) << "member " << i << ": three kept per chunk";
  }
  ASSERT_EQ(reported.size(), 4u * 2u);  // each batch, each chunk
  for (std::size_t k = 1; k < reported.size(); ++k) EXPECT_GT(reported[k], reported[k - 1]);
  EXPECT_DOUBLE_EQ(reported.back(), 1.0);
}

}  // namespace
