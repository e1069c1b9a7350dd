// GPU statistics (ensemble/statistics.cuh) against the CPU's (ensemble/statistics.hpp) on the same data,
// implemented in statistics_gpu.cu when liebatch is built with CUDA (statistics_gpu_none.cpp
// otherwise).
#pragma once
#include <string>

namespace lbtest {

/// Outcome of the comparison.
struct StatisticsComparison {
  std::string failure;    ///< "" when everything held, else what differed
  double mean_ratio = 0;  ///< largest |mean_gpu − mean_cpu| / its bound over all columns
  double var_ratio = 0;   ///< largest |var_gpu − var_cpu| / its bound over all columns
  std::string device;     ///< the GPU it ran on
};

/// Random outputs (float and double; offsets 0 and 1e8; NaN, ±inf, failed members, section
/// records; data and fixed ranges) reduced on GPU and CPU: counts, extremes, ranges and histograms
/// equal, means and variances within the bound stated in ensemble/statistics_batched.hpp.
StatisticsComparison gpu_statistics_check();

}  // namespace lbtest
