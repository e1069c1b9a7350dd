// Ensemble statistics on the GPU against the CPU's on the same data, held to the bound stated in
// ensemble/statistics.cuh. Skips, saying why, where no GPU (or no CUDA build) exists.
#include <gtest/gtest.h>

#include <liebatch/ensemble/device.hpp>
#include "statistics_gpu.hpp"

namespace {

TEST(StatisticsGpu, AgreesWithTheCpu) {
  if (const std::string why = lb::gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  const lbtest::StatisticsComparison r = lbtest::gpu_statistics_check();
  EXPECT_EQ(r.failure, "");
  EXPECT_LE(r.mean_ratio, 1.0);
  EXPECT_LE(r.var_ratio, 1.0);
  std::printf("  |gpu - cpu| / bound: mean %.1e, var %.1e on %s\n", r.mean_ratio, r.var_ratio, r.device.c_str());
}

}  // namespace
