// Stand-in for core_device.cu in a build without CUDA: the device checks skip, saying why.
#include "core_device.hpp"

namespace lbtest {

std::string device_unavailable_reason() { return "liebatch was built without CUDA (LIEBATCH_CUDA=OFF or no nvcc)"; }

template <class T> std::string run_core_on_device(const std::vector<CoreIn<T>>&, std::vector<CoreOut<T>>&) {
  return device_unavailable_reason();
}
template std::string run_core_on_device<float>(const std::vector<CoreIn<float>>&, std::vector<CoreOut<float>>&);
template std::string run_core_on_device<double>(const std::vector<CoreIn<double>>&, std::vector<CoreOut<double>>&);

}  // namespace lbtest
