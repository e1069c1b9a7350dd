// The engine's CUDA backend: one trajectory per thread, its state in registers for a whole chunk of
// time, structure-of-arrays global memory (coalesced). The stepping is advance() of
// trajectory/trajectory.hpp, the bodies are members.hpp's and the batching and chunking
// engine.hpp's, as on the CPU; this file gives them CUDA: Thrust device vectors, the kernel
// launches, the scan and the reduction. Include from a .cu file.
#pragma once
#include <cuda_runtime.h>
#include <thrust/copy.h>
#include <thrust/device_allocator.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/transform_reduce.h>
#include <thrust/transform_scan.h>

#include <stdexcept>
#include <string>

#include "cuda_check.cuh"
#include "engine.hpp"

namespace lb::cuda {

/// Throws std::runtime_error naming the CUDA call that failed.
inline void require(cudaError_t e, const char* what) {
  const std::string m = check(e, what);
  if (!m.empty()) throw std::runtime_error(m);
}

/// Name of the current device, e.g. "NVIDIA H100 80GB HBM3 (sm_90)".
inline std::string device_name() {
  int dev = 0;
  require(cudaGetDevice(&dev), "cudaGetDevice");
  cudaDeviceProp p{};
  require(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
  return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ")";
}

/// Thrust's device allocator, except that it frees with cudaFree and ignores its error. After a
/// kernel fault every cudaFree fails; Thrust's own deallocate would then throw inside a noexcept
/// function and terminate the process while the fault's error is on its way to the caller.
template <class T> struct QuietDeviceAllocator : thrust::device_allocator<T> {
  template <class U> struct rebind {
    using other = QuietDeviceAllocator<U>;
  };
  QuietDeviceAllocator() = default;
  template <class U> QuietDeviceAllocator(const QuietDeviceAllocator<U>&) {}
  void deallocate(typename thrust::device_allocator<T>::pointer p, std::size_t) noexcept {
    (void)cudaFree(thrust::raw_pointer_cast(p));
  }
};

/// body(i) on thread i of a one-dimensional grid.
template <class Body> __global__ void for_each_member(std::size_t n, Body body) {
  const std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) body(i);
}

/// The engine's backend (backend.hpp) on the current CUDA device.
struct CudaBackend {
  CudaBackend() = default;
  explicit CudaBackend(const RunOptions&) {}
  template <class V> using vector = thrust::device_vector<V, QuietDeviceAllocator<V>>;
  template <class V> static V* raw(vector<V>& v) { return thrust::raw_pointer_cast(v.data()); }
  template <class In, class Out> static void copy(In first, In last, Out out) { thrust::copy(first, last, out); }
  template <class V> static void fill(vector<V>& v, V x) { thrust::fill(v.begin(), v.end(), x); }
  static void kept_offsets(const vector<long>& found, vector<long>& offset, long slots) {
    thrust::transform_exclusive_scan(found.begin(), found.end(), offset.begin(), engine::KeptHits{slots}, 0L, thrust::plus<long>());
  }
  static double sum(const vector<double>& v) { return thrust::reduce(thrust::device, v.begin(), v.end(), 0.0); }
  template <class F, class R, class Combine> static R transform_reduce(std::size_t n, F f, R init, Combine combine) {
    const thrust::counting_iterator<std::size_t> first(0);
    return thrust::transform_reduce(thrust::device, first, first + n, f, init, combine);
  }
  /// body(i) on thread i; no progress within a launch (tick is not called).
  template <class Body, class Tick = void (*)(std::size_t)>
  static void launch(std::size_t n, const Body& body, const char* what, Tick&& = nullptr) {
    if (n == 0) return;  // a grid of no blocks is a launch error
    const unsigned block = 128, grid = unsigned((n + block - 1) / block);
    for_each_member<Body><<<grid, block>>>(n, body);
    require(cudaGetLastError(), what);
  }
  static void synchronize(const char* what) { require(cudaDeviceSynchronize(), what); }
  static std::size_t free_memory() {
    std::size_t free_b = 0, total_b = 0;
    require(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
    return free_b;
  }
  static std::string name() { return "gpu, " + device_name(); }
};
static_assert(Backend<CudaBackend>);

/// Integrates every member of e with Method on the GPU; with a section, records its crossings
/// (at most e.max_hits per member and chunk, compacted into records each chunk). Throws
/// std::invalid_argument for bad input and std::runtime_error for CUDA failures, naming the call.
template <class Method, class Model, class Section = NoSection>
  requires MethodFor<Method, Model> && SectionFor<Section, Model>
EnsembleOutput<typename Ensemble<Model>::T> run_gpu(const Ensemble<Model>& e, const RunOptions& opt,
                                                    const Section& section = {}) {
  return lb::run_batched<CudaBackend, Method>(e, opt, section);
}

}  // namespace lb::cuda
