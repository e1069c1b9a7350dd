// Device selection: auto falls back to the CPU with the reason, cpu is always honoured, a forced
// GPU that cannot run is an error that says why.
#include <gtest/gtest.h>

#include <liebatch/ensemble/device.hpp>

TEST(Device, ChoiceIsReportedAndAForcedGpuFailsClearly) {
  const std::string why = lb::gpu_unavailable_reason();
  const lb::DeviceChoice cpu = lb::choose_device(lb::Device::cpu);
  EXPECT_FALSE(cpu.gpu);
  EXPECT_EQ(cpu.reason, "cpu (requested)");
  const lb::DeviceChoice a = lb::choose_device(lb::Device::automatic);
  EXPECT_EQ(a.gpu, why.empty());
  if (why.empty()) {
    EXPECT_TRUE(lb::choose_device(lb::Device::gpu).gpu);
  } else {
    EXPECT_NE(a.reason.find(why), std::string::npos) << a.reason;
    try {
      (void)lb::choose_device(lb::Device::gpu);
      ADD_FAILURE() << "forced GPU without one did not fail";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
}
