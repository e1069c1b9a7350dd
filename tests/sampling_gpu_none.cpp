// Stand-in for sampling_gpu.cu in a build without CUDA: the check reports why it cannot run.
#include "sampling_gpu.hpp"

namespace lbtest {

std::string gpu_sampling_check() { return "built without CUDA"; }

}  // namespace lbtest
