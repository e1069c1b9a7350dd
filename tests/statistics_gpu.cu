// GPU statistics against the CPU's: random outputs reduced by lb::cuda::statistics_gpu and by
// lb::statistics, compared column by column (statistics_checks.hpp).
#include <liebatch/ensemble/statistics.cuh>
#include "statistics_checks.hpp"

namespace lbtest {

StatisticsComparison gpu_statistics_check() {
  StatisticsComparison r = statistics_check<lb::cuda::CudaBackend>();
  r.device = lb::cuda::device_name();
  return r;
}

}  // namespace lbtest
