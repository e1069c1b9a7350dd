// Ensemble statistics on a CUDA device: statistics_batched.hpp with the CUDA backend (Thrust
// reductions, an atomic histogram kernel). Include from a .cu file.
#pragma once
#include "cuda.cuh"
#include "statistics_batched.hpp"

namespace lb::cuda {

/// Statistics of a run whose output is on the device (see statistics_batched.hpp). Throws
/// std::invalid_argument for a bad binning, std::runtime_error naming a failed CUDA call.
template <class T>
EnsembleStatistics statistics_gpu(const DeviceOutput<T>& d, const std::vector<Binning>& binning = {Binning{}}) {
  return engine::statistics_on<CudaBackend>(d, binning);
}

/// The same for a run's output on the host: copied to the device, then reduced there.
template <class T>
EnsembleStatistics statistics_gpu(const EnsembleOutput<T>& out, const std::vector<Binning>& binning = {Binning{}}) {
  return engine::statistics_on<CudaBackend>(out, binning);
}

}  // namespace lb::cuda
