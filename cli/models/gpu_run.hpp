// The command line's GPU path: a RunSpec integrated by lb::cuda::run_gpu. Each model × method ×
// section is its own kernel, so a build compiles them (models_*_gpu.cu, with LIEBATCH_CLI_GPU
// defined) for the methods of LIEBATCH_CLI_GPU_METHODS and the chains of LIEBATCH_CLI_GPU_CHAINS
// only; other builds get the stand-in below, which says so.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/config/spec.hpp"

#ifdef LIEBATCH_CLI_GPU
#include "gpu_kernels.hpp"  // generated: LB_CLI_GPU_METHODS(X), LB_CLI_GPU_CHAINS(X)
#endif

namespace lb::cli {

/// Methods the GPU path holds kernels for (empty in a build without them).
inline std::vector<std::string> gpu_methods() {
  std::vector<std::string> v;
#ifdef LIEBATCH_CLI_GPU
#define LB_CLI_GPU_NAME(m) v.push_back(#m);
  LB_CLI_GPU_METHODS(LB_CLI_GPU_NAME)
#undef LB_CLI_GPU_NAME
#endif
  return v;
}

/// Chain lengths N of the pendulum the GPU path holds kernels for.
inline std::vector<int> gpu_chains() {
  std::vector<int> v;
#ifdef LIEBATCH_CLI_GPU
#define LB_CLI_GPU_N(n) v.push_back(n);
  LB_CLI_GPU_CHAINS(LB_CLI_GPU_N)
#undef LB_CLI_GPU_N
#endif
  return v;
}

/// Whether run_on_gpu is instantiated for the chain of N links.
template <int N> constexpr bool gpu_chain() {
#ifdef LIEBATCH_CLI_GPU
#define LB_CLI_GPU_IS(n) \
  if (N == n) return true;
  LB_CLI_GPU_CHAINS(LB_CLI_GPU_IS)
#undef LB_CLI_GPU_IS
#endif
  return false;
}

/// "" when `method` runs on the GPU in this build, otherwise why not.
inline std::string gpu_method_missing(const std::string& method) {
  const auto m = gpu_methods();
  if (m.empty())
    return "this liebatch was built without the command line's GPU kernels (configure with nvcc and a non-empty LIEBATCH_CLI_GPU_METHODS)";
  std::string all;
  for (const auto& x : m) {
    if (x == method) return "";
    all += (all.empty() ? "" : ", ") + x;
  }
  return "method '" + method + "' has no GPU kernels in this build (compiled: " + all +
         "; add it to the CMake list LIEBATCH_CLI_GPU_METHODS, or use 'all')";
}

#ifdef LIEBATCH_CLI_GPU
/// Integrates e (built from s) with s's method and section on the GPU; explicitly instantiated
/// per model in models_*_gpu.cu.
template <class Model>
EnsembleOutput<typename Ensemble<Model>::T> run_on_gpu(const Ensemble<Model>& e, const RunOptions& o, const RunSpec& s);
#else
template <class Model> EnsembleOutput<typename Ensemble<Model>::T> run_on_gpu(const Ensemble<Model>&, const RunOptions&, const RunSpec& s) {
  throw std::runtime_error("device 'gpu': " + gpu_method_missing(s.method));
}
#endif

}  // namespace lb::cli
