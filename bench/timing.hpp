// Wall-clock seconds of a call, for the benchmarks.
#pragma once
#include <chrono>

namespace lb::bench {

template <class F> double seconds(F&& f) {
  const auto a = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
}

}  // namespace lb::bench
