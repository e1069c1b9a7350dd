// Stand-in for core_device.cu in a build without CUDA: the device checks skip, saying why.
#include <liebatch/ensemble/device.hpp>
#include "core_device.hpp"

namespace lbtest {

template <class T> std::string run_core_on_device(const std::vector<CoreIn<T>>&, std::vector<CoreOut<T>>&) {
  return lb::gpu_unavailable_reason();
}
template std::string run_core_on_device<float>(const std::vector<CoreIn<float>>&, std::vector<CoreOut<float>>&);
template std::string run_core_on_device<double>(const std::vector<CoreIn<double>>&, std::vector<CoreOut<double>>&);

}  // namespace lbtest
