// Every strobe once on the device: the stroboscopic draws of strobe_draws.hpp through run_gpu.
#include <liebatch/ensemble/cuda.cuh>
#include "ensemble_gpu.hpp"
#include "strobe_draws.hpp"

namespace lbtest {

std::string gpu_strobes_check(bool adaptive, long& strobes) {
  using B = lb::cuda::CudaBackend;
  return adaptive ? strobes_against_cpu<B, lb::methods::rkmk54, true>(strobes) : strobes_against_cpu<B, lb::methods::rkmk4, false>(strobes);
}

}  // namespace lbtest
