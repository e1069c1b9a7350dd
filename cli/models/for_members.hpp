// A batch's per-member setup on the run's threads. Member i's parameters and initial state are pure
// functions of i, so contiguous ranges of members are made side by side; serial, they cost the
// command about as much as the Lorenz sweep's integration on two threads (bench/RESULTS.md,
// issue 38).
#pragma once
#include <algorithm>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace lb::cli {

/// f(b, e) over ranges [b, e) that cover 0 … n−1 in order, on up to `threads` threads (ranges of
/// at least 4096 members). A failure is the one of the lowest member that failed, as on one
/// thread: each range stops at its first, and the lowest range's is rethrown.
template <class F> void for_members(std::size_t n, int threads, const F& f) {
  const std::size_t ranges = std::clamp<std::size_t>((n + 4095) / 4096, 1, std::size_t(std::max(threads, 1)));
  std::vector<std::exception_ptr> failed(ranges);
  const auto range = [&](std::size_t r) {
    try {
      f(n * r / ranges, n * (r + 1) / ranges);
    } catch (...) {
      failed[r] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  std::size_t r = 1;
  try {
    for (; r < ranges; ++r) pool.emplace_back(range, r);
  } catch (const std::system_error&) {
    // The system refused a thread: this one takes the ranges left.
  }
  for (std::size_t q = r; q < ranges; ++q) range(q);
  range(0);
  for (auto& t : pool) t.join();
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
}

}  // namespace lb::cli
