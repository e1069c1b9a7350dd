// A run's whole state at a pause between two legs, as bytes: what a checkpoint keeps so that a run
// killed later goes on from there and ends bitwise as if it had never stopped (members never share
// state and pauses never alter a step; engine.hpp).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace lb {

/// Arrays as byte parts, in an order their writer and reader agree on.
struct Parts {
  std::vector<std::vector<unsigned char>> parts;

  /// How a part goes back into its vector: filling it exactly (a buffer), into its first elements
  /// (samples gathered so far), or as the whole list (hit records, which grow).
  enum class Fit { exact, prefix, whole };

  /// Appends v's first `count` elements (all where count exceeds its size).
  template <class V> void put(const std::vector<V>& v, std::size_t count = std::size_t(-1)) {
    auto& p = parts.emplace_back(std::min(count, v.size()) * sizeof(V));
    if (!p.empty()) std::memcpy(p.data(), v.data(), p.size());
  }
  /// Part k into v. A part that does not fit means the parts are not this run's.
  template <class V> void get(std::size_t k, std::vector<V>& v, Fit fit) const {
    const std::size_t bytes = k < parts.size() ? parts[k].size() : 0, have = v.size() * sizeof(V);
    const bool fits = k < parts.size() && bytes % sizeof(V) == 0 &&
                      (fit == Fit::exact    ? bytes == have
                       : fit == Fit::prefix ? bytes <= have
                                            : true);
    if (!fits)
      throw std::runtime_error("checkpoint: part " + std::to_string(k) + " has " +
                               (k < parts.size() ? std::to_string(bytes) : std::string("no")) + " bytes, this run's has " +
                               std::to_string(have));
    if (fit == Fit::whole) v.resize(bytes / sizeof(V));
    if (bytes > 0) std::memcpy(v.data(), parts[k].data(), bytes);
  }
};

/// The engine's state in flight: the batch split, the batch at work, the next leg, and as parts its
/// buffers and the results gathered so far, in the order run_engine writes them.
struct EngineState : Parts {
  std::size_t batch = 0;  ///< members per batch (a resumed run keeps the split it started with)
  std::size_t b0 = 0;     ///< the batch in flight: its first member
  int leg = 0;            ///< the next leg to launch (leg % pauses of chunk leg / pauses)
};

}  // namespace lb
