// The engine's CPU backend: buffers in host memory and each launch a loop over the members,
// split across threads in blocks claimed from a shared counter. run_cpu is the engine on it.
#pragma once
#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <unistd.h>

#include "engine.hpp"
#ifndef __CUDACC__
#include "members_packed.hpp"
#endif

namespace lb {
#ifdef __CUDACC__
// In a CUDA translation unit the CPU backend runs one member per thread: nvcc would compile the
// packed step code for the device as well. Its own inline namespace keeps these instantiations
// apart from the packed ones of C++ units linked into the same program.
inline namespace no_packs {
#endif

/// Host memory as the engine's device memory.
struct CpuBackend {
  int threads = 1;   ///< threads per launch
  bool simd = false;  ///< chunks on packs of members where the model allows
  const std::atomic<bool>* stop = nullptr;  ///< RunOptions::stop: no block starts once it is set
  /// Runs on packs: the members' attempts and the lane slots their packs ran (lane_occupancy()).
  std::shared_ptr<engine::LaneCounts> lanes = std::make_shared<engine::LaneCounts>();
  static constexpr bool own_chunk = true;  ///< chunk() below, not the engine's one-member launch
  static constexpr bool host_memory = true;  ///< the engine reads inputs in place, moves outputs

  CpuBackend() = default;
  explicit CpuBackend(const RunOptions& o) : threads(cpu_threads(o.threads)), simd(o.simd), stop(o.stop) {}

  template <class V> using vector = std::vector<V>;
  template <class V> static V* raw(vector<V>& v) { return v.data(); }
  template <class In, class Out> static void copy(In first, In last, Out out) { std::copy(first, last, out); }
  template <class V> static void fill(vector<V>& v, V x) { std::fill(v.begin(), v.end(), x); }
  static void kept_offsets(const vector<long>& found, vector<long>& offset, long slots) {
    std::transform_exclusive_scan(found.begin(), found.end(), offset.begin(), 0L, std::plus<long>(), engine::KeptHits{slots});
  }
  static double sum(const vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }
  template <class F, class R, class Combine> static R transform_reduce(std::size_t n, F f, R init, Combine combine) {
    for (std::size_t i = 0; i < n; ++i) init = combine(init, f(i));
    return init;
  }
  /// body(i) for i < n on `threads` threads in blocks of 64; the calling thread calls
  /// tick(members done so far) after each of its blocks.
  template <class Body, class Tick = void (*)(std::size_t)>
  void launch(std::size_t n, const Body& body, const char* /*what*/, Tick&& tick = [](std::size_t) {}) const {
    auto range = [](const void* f, std::size_t b, std::size_t e) {
      const Body& g = *static_cast<const Body*>(f);
      for (std::size_t i = b; i < e; ++i) g(i);
    };
    blocks(n, 64, range, &body, tick);
  }
  /// One chunk of every member with Method: W members per pack where the model runs on packs (and
  /// per-member models gather into one), otherwise one member at a time.
  template <class Method, bool adaptive, class Model, class Section>
  void chunk(const engine::ChunkInputs<Model, Section>& in, const std::function<void(std::size_t)>& tick) const {
    const std::size_t n = in.st.n;
#ifndef __CUDACC__
    if constexpr (engine::PackModel<Model> && method_packs<Method>()) {
      if (engine::runs_on_packs<Model>(simd, in.models.per)) {
        using Body = engine::PackedChunkMember<Method, adaptive, Model, Section>;
        const Body body{in, lanes.get()};
        auto range = [](const void* f, std::size_t b, std::size_t e) {
          for (std::size_t p = b; p < e; ++p) (*static_cast<const Body*>(f))(p);
        };
        // Streams of 16·W members (members_packed.hpp), claimed 4 at a time: 64 packs' worth.
        blocks(Body::streams(n), 4, range, &body, [&](std::size_t s) { tick(std::min(n, s * Body::stream)); });
        return;
      }
    }
#endif
    launch(n, engine::ChunkMember<Method, adaptive, Model, Section>{in}, "chunk kernel", tick);
  }
  /// The threads of launch(), for any body: range(body, b, e) runs items b … e−1, claimed `block`
  /// at a time (one instantiation of the pool, and a call per block rather than per item).
  void blocks(std::size_t n, std::size_t block, void (*range)(const void*, std::size_t, std::size_t), const void* body,
              const std::function<void(std::size_t)>& tick) const {
    std::atomic<std::size_t> next{0}, done{0};
    auto worker = [&](bool caller) {
      for (std::size_t b; (b = next.fetch_add(block)) < n;) {
        if (stop && stop->load(std::memory_order_relaxed)) return;  // the engine throws at the chunk end
        const std::size_t end = std::min(n, b + block);
        range(body, b, end);
        const std::size_t d = done.fetch_add(end - b) + (end - b);
        if (caller) tick(d);
      }
    };
    std::vector<std::thread> pool;
    try {
      for (int k = 1; k < threads; ++k) pool.emplace_back(worker, false);
    } catch (const std::system_error&) {
      // The system refused a thread: the ones running (and this one) claim every block, and results
      // do not depend on the thread count.
    }
    worker(true);
    for (auto& th : pool) th.join();
  }
  static void synchronize(const char*) {}
  /// Physical memory not in use: batches then stay out of swap.
  static std::size_t free_memory() {
    const long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? std::size_t(pages) * std::size_t(size) : std::size_t(1) << 30;
  }
  /// Of the lane slots that runs on packs stepped so far, the fraction that stepped a member (0
  /// when nothing ran on packs).
  double lane_occupancy() const {
    const long slots = lanes->slots;
    return slots > 0 ? double(lanes->used) / double(slots) : 0.0;
  }
  std::string name() const { return "cpu, " + std::to_string(threads) + (threads == 1 ? " thread" : " threads"); }
};
static_assert(Backend<CpuBackend>);

/// Integrates every member of e with Method on the CPU, all members in one batch where memory
/// allows; with a section, records its crossings (at most e.max_hits per member and chunk are
/// kept, the rest counted as lost). Throws std::invalid_argument for bad input.
template <class Method, class Model, class Section = NoSection>
  requires MethodFor<Method, Model> && SectionFor<Section, Model>
EnsembleOutput<typename Ensemble<Model>::T> run_cpu(const Ensemble<Model>& e, const RunOptions& opt,
                                                    const Section& section = {}) {
  auto out = run_batched<CpuBackend, Method>(e, opt, section);
#ifndef __CUDACC__
  if constexpr (engine::PackModel<Model> && method_packs<Method>()) {
    if (engine::runs_on_packs<Model>(opt.simd, !e.model.shared())) {
      out.device += ", packs of " + std::to_string(engine::PackOf<Model>::size) + " members (" + xsimd::default_arch::name() + "), " +
                    std::to_string(int(std::lround(100 * out.lane_occupancy))) + " % of lanes busy";
      return out;
    }
  }
#endif
  out.device += ", one member per thread";
  return out;
}

#ifdef __CUDACC__
}  // namespace no_packs
#endif
}  // namespace lb
