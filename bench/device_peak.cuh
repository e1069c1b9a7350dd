// The GPU's name and its FP32/FP64 peaks, from the device properties: SMs × FMA units per SM ×
// 2 FLOPs × clock. Units per SM by compute capability (CUDA programming guide, arithmetic
// instruction throughput); non-tensor peaks, which is what the kernels use.
#pragma once
#include <cuda_runtime.h>

#include <string>

namespace lb::bench {

struct DevicePeak {
  std::string name;
  int sms = 0;
  double clock_ghz = 0;
  double fp32_gflops = 0, fp64_gflops = 0;  ///< 0 when the architecture is not in the table
};

inline DevicePeak device_peak(int device = 0) {
  cudaDeviceProp p{};
  DevicePeak r;
  if (cudaGetDeviceProperties(&p, device) != cudaSuccess) return r;
  int khz = 0;
  cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device);
  r.name = p.name;
  r.sms = p.multiProcessorCount;
  r.clock_ghz = khz * 1e-6;
  int fp32 = 0, fp64 = 0;  // FMA units per SM
  const int cc = 10 * p.major + p.minor;
  if (cc == 70 || cc == 80) { fp32 = 64; fp64 = 32; }
  else if (cc == 86 || cc == 87 || cc == 89) { fp32 = 128; fp64 = 2; }
  else if (cc == 90 || cc == 100) { fp32 = 128; fp64 = 64; }
  r.fp32_gflops = r.sms * fp32 * 2.0 * r.clock_ghz;
  r.fp64_gflops = r.sms * fp64 * 2.0 * r.clock_ghz;
  return r;
}

}  // namespace lb::bench
