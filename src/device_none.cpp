// gpu_unavailable_reason() for builds without CUDA.
#include <liebatch/ensemble/device.hpp>

namespace lb {

std::string gpu_unavailable_reason() { return "liebatch was built without CUDA (LIEBATCH_CUDA=OFF or no nvcc)"; }

}  // namespace lb
