// How many members a batch holds: one formula for the bytes a member occupies and one rule for the
// split, used by the engine (its buffers in the backend's memory) and by a caller that holds a
// batch's inputs and results on the host (the command line).
#pragma once
#include <algorithm>
#include <cstddef>

namespace lb {

/// What sets a run's memory per member.
struct RunShape {
  std::size_t scalar = 8;  ///< bytes of the run's scalar
  int dim = 0, nobs = 0;   ///< state and observables
  int samples = 0;         ///< output samples per member
  int sample_slots = 0;    ///< samples a batch gathers between copies (a chunk's, and its start)
  int hit_slots = 0;       ///< section crossings a member holds per chunk (0: no section)
  int warm = 0;            ///< the method's warm-start scalars
  bool implicit = false;   ///< Newton counters
  std::size_t per_member = 0;  ///< bytes of per-member inputs (model, step control)
};

/// Bytes per member of the engine's buffers while its batch runs: state, initial state, t, h, t0, t1,
/// counters, status, Newton counters, warm start, sample and hit slots (hits twice: slots and records).
inline std::size_t buffer_bytes(const RunShape& s) {
  const std::size_t d = std::size_t(s.dim), q = std::size_t(s.nobs), hits = std::size_t(s.hit_slots);
  return s.scalar * (2 * d + 5 + std::size_t(s.warm) + (std::size_t(s.sample_slots) + 2 * hits) * (1 + d + q)) +
         (8 + hits) * sizeof(long) + 2 * sizeof(int) + 1 + sizeof(double) + s.per_member +
         (s.implicit ? sizeof(long) + sizeof(int) : 0);
}

/// Bytes per member of the results (EnsembleOutput): final state and time, counters, status, every
/// sample, and one chunk's crossings (a member recording more takes more).
inline std::size_t result_bytes(const RunShape& s) {
  const std::size_t d = std::size_t(s.dim), q = std::size_t(s.nobs);
  return s.scalar * (d + 1 + std::size_t(s.samples) * (1 + d + q) + std::size_t(s.hit_slots) * (1 + d + q)) +
         std::size_t(s.hit_slots) * (sizeof(std::size_t) + sizeof(int)) + 5 * sizeof(long) + 1 +
         (s.implicit ? sizeof(long) + sizeof(int) : 0);
}

/// The share of free memory a batch may take: the rest stays for the process and its neighbours.
inline constexpr double batch_memory_share = 0.7;

/// Members per batch: what fits in `budget` bytes at `per_member` bytes each, at most `requested`
/// (0: no limit), between 1 and n.
inline std::size_t batch_members(std::size_t n, std::size_t per_member, double budget, std::size_t requested = 0) {
  const double fit = budget / double(std::max<std::size_t>(per_member, 1));
  std::size_t b = fit >= double(n) ? n : std::max<std::size_t>(1, std::size_t(fit));
  if (requested > 0) b = std::min(b, requested);
  return b;
}

}  // namespace lb
