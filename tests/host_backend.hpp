// The CPU backend as the tests drive it: one thread, a device memory of the test's choosing (small
// values force the memory-sized batches of a large device) and a count of the batches started.
#pragma once
#include <cstddef>
#include <string>

#include <liebatch/ensemble/cpu.hpp>

namespace lbtest {

/// Whether a kernel body starts a batch.
template <class Body> inline constexpr bool starts_batch = false;
template <class P> inline constexpr bool starts_batch<lb::engine::StartMember<P>> = true;

struct HostBackend : lb::CpuBackend {
  /// What free_memory() reports.
  static inline std::size_t memory = std::size_t(1) << 30;
  /// Batches started so far (launches of the start body).
  static inline long batches = 0;
  /// As a device's memory: inputs copied in and outputs copied out, the path the GPU takes.
  static constexpr bool host_memory = false;

  HostBackend() = default;
  explicit HostBackend(const lb::RunOptions&) {}
  template <class Body, class Tick = void (*)(std::size_t)>
  void launch(std::size_t n, const Body& body, const char* what, Tick&& tick = [](std::size_t) {}) const {
    batches += starts_batch<Body>;
    lb::CpuBackend::launch(n, body, what, tick);
  }
  static std::size_t free_memory() { return memory; }
  static std::string name() { return "cpu backend, one thread, test memory"; }
};
static_assert(lb::Backend<HostBackend>);

}  // namespace lbtest
