// run_on_gpu's definition, for the models_*_gpu.cu files that instantiate it.
#pragma once
#include <liebatch/methods/half_explicit.hpp>
#include <liebatch/methods/methods.hpp>
#include <liebatch/methods/symplectic.hpp>

#include <liebatch/ensemble/cuda.cuh>
#include "cli/models/gpu_run.hpp"
#include "cli/config/spec_ensemble.hpp"

// The methods run_on_gpu holds kernels for: the build's list, or a user's model's own
// (cli/models/plugin_unit_gpu.cu defines it before including this).
#ifndef LB_CLI_GPU_RUN_METHODS
#define LB_CLI_GPU_RUN_METHODS LB_CLI_GPU_METHODS
#endif

namespace lb::cli {

template <class Model>
EnsembleOutput<typename Ensemble<Model>::T> run_on_gpu(const Ensemble<Model>& e, const RunOptions& o, const RunSpec& s) {
  using T = typename Ensemble<Model>::T;
  // A method's kernels exist for the models it serves only (the symplectic ones: T*SO(3); hedop5:
  // the constrained systems; the others: the rest); the study refused the other pairs before
  // this, naming both.
#define LB_CLI_GPU_RUN(m)                     \
  if constexpr (MethodFor<methods::m, Model>) \
    if (s.method == #m) return with_section<T>(s, [&](const auto& sec) { return cuda::run_gpu<methods::m>(e, o, sec); });
  LB_CLI_GPU_RUN_METHODS(LB_CLI_GPU_RUN)
#undef LB_CLI_GPU_RUN
  throw std::runtime_error("device 'gpu': " + gpu_method_missing(s.method));
}

}  // namespace lb::cli

/// Explicit instantiations of run_on_gpu for a model template in float and double.
#define LB_CLI_GPU_MODEL(...)                                                                                              \
  template lb::EnsembleOutput<float> lb::cli::run_on_gpu(const lb::Ensemble<__VA_ARGS__<float>>&, const lb::RunOptions&,   \
                                                         const lb::cli::RunSpec&);                                         \
  template lb::EnsembleOutput<double> lb::cli::run_on_gpu(const lb::Ensemble<__VA_ARGS__<double>>&, const lb::RunOptions&, \
                                                          const lb::cli::RunSpec&);
