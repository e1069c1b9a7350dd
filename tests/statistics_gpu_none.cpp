// Stand-in for statistics_gpu.cu in a build without CUDA: the check reports why it cannot run.
#include "statistics_gpu.hpp"

namespace lbtest {

StatisticsComparison gpu_statistics_check() { return {"built without CUDA", 0, 0, ""}; }

}  // namespace lbtest
