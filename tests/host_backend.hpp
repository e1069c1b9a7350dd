// The GPU path without a GPU: run_batched's backend (cuda/ensemble_run.hpp) on host memory, each
// "launch" a loop over the member indices. The batching, chunking, structure-of-arrays indexing,
// hit compaction and copies back are then the GPU path's own code, checkable in CI; what it cannot
// show is the device itself (its compiler, registers, memory and math library). Nor can it catch a
// host pointer handed to a kernel body: here all memory is host memory.
#pragma once
#include <algorithm>
#include <cstddef>
#include <numeric>
#include <string>
#include <vector>

#include "../cuda/ensemble_run.hpp"

namespace lbtest {

/// Whether a kernel body starts a batch.
template <class Body> inline constexpr bool starts_batch = false;
template <class P> inline constexpr bool starts_batch<lb::cuda::StartMember<P>> = true;

struct HostBackend {
  /// What free_memory() reports: small values force the memory-sized batches of a large device.
  static inline std::size_t memory = std::size_t(1) << 30;
  /// Batches started so far (launches of the start kernel).
  static inline long batches = 0;

  template <class V> using vector = std::vector<V>;
  template <class V> static V* raw(vector<V>& v) { return v.data(); }
  template <class In, class Out> static void copy(In first, In last, Out out) { std::copy(first, last, out); }
  template <class V> static void fill(vector<V>& v, V x) { std::fill(v.begin(), v.end(), x); }
  static void kept_offsets(const vector<long>& found, vector<long>& offset, long slots) {
    std::transform_exclusive_scan(found.begin(), found.end(), offset.begin(), 0L, std::plus<long>(),
                                  lb::cuda::KeptHits{slots});
  }
  static double sum(const vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }
  template <class F, class R, class Combine> static R transform_reduce(std::size_t n, F f, R init, Combine combine) {
    for (std::size_t i = 0; i < n; ++i) init = combine(init, f(i));
    return init;
  }
  template <class Body> static void launch(std::size_t n, const Body& body, const char*) {
    batches += starts_batch<Body>;
    for (std::size_t i = 0; i < n; ++i) body(i);
  }
  static void synchronize(const char*) {}
  static std::size_t free_memory() { return memory; }
  static std::string name() { return "host emulation of the gpu path"; }
};

}  // namespace lbtest
