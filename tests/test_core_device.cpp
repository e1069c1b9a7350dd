// The core checks of test_core.cpp, run on the GPU by the same eval_core source and held to the
// same bounds. Skips, saying why, where no device (or no CUDA build) exists.
#include <gtest/gtest.h>

#include <liebatch/ensemble/device.hpp>
#include "core_device.hpp"
#include "core_reference.hpp"

namespace {

template <class T> class CoreDeviceTest : public ::testing::Test {};
using DeviceScalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(CoreDeviceTest, DeviceScalars);

TYPED_TEST(CoreDeviceTest, ExpDexpDexpinvMatchReferenceOnTheDevice) {
  using T = TypeParam;
  if (const std::string why = lb::gpu_unavailable_reason(); !why.empty()) GTEST_SKIP() << why;
  const auto in = lbtest::core_inputs<T>();
  std::vector<lbtest::CoreOut<T>> out;
  const std::string err = lbtest::run_core_on_device(in, out);
  ASSERT_TRUE(err.empty()) << err;
  const lbtest::CoreErrors e = lbtest::score_core(in, out);
  const double tol = lbtest::core_tolerance<T>();
  lbtest::expect_within(e, tol);
  // exp's and dexp⁻¹'s coefficients rounded from double words (series_refined.hpp, the HP-exp
  // integrators' momentum rests on them): correctly rounded on both sides, so the device's equal the
  // host's bitwise at the same α² (the device's own: nvcc contracts |A|² into FMAs, so it may differ
  // from the host's by an ulp: compared at the host's α², 21 coefficients of the largest α differed
  // in the first run of this check on the H200). nvcc once refused the float tables: 1/n! is
  // subnormal in float from n = 34.
  for (std::size_t i = 0; i < in.size(); ++i) {
    const lb::So3Coeffs<T> host = lb::so3_coeffs_refined(out[i].so3_a2);
    const T want[3] = {host.s, host.c, host.g2};
    for (int k = 0; k < 3; ++k) EXPECT_EQ(out[i].so3_refined[k], want[k]) << "case " << i << ", coefficient " << k;
  }
}

}  // namespace
