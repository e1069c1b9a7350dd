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
}

}  // namespace
