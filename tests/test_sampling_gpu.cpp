// The samplers give bitwise the same numbers on the device as on the host. Skips, saying why,
// where no GPU (or no CUDA build) exists.
#include <gtest/gtest.h>

#include <liebatch/ensemble/device.hpp>
#include "sampling_gpu.hpp"

namespace {

TEST(SamplingGpu, DrawsEqualTheHostsBitwise) {
  if (const std::string why = lb::gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  EXPECT_EQ(lbtest::gpu_sampling_check(), "");
}

}  // namespace
