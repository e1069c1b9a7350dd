// The description of an ensemble, shared by the CPU and GPU paths, and what a run returns.
// Arrays are structure-of-arrays: component d of member i lives at [d·size + i], so GPU threads
// read and write consecutive addresses.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "../trajectory/trajectory.hpp"

namespace lb {

/// One value shared by every member, or one value per member.
template <class V> struct PerMember {
  std::vector<V> v;
  const V& operator[](std::size_t i) const { return v.size() == 1 ? v[0] : v[i]; }
  bool shared() const { return v.size() == 1; }
  void check(std::size_t n, const char* name) const {
    if (v.size() != 1 && v.size() != n) {
      throw std::invalid_argument(std::string("ensemble: '") + name + "' has " + std::to_string(v.size()) +
                                  " values; expected 1 (shared) or " + std::to_string(n) + " (one per member)");
    }
  }
};

/// An ensemble: initial states, time spans, step control and model parameters per member.
template <Model M>
struct Ensemble {
  using model_type = M;
  using space = typename M::space;
  using T = typename space::scalar;
  static constexpr int dim = space::dim;
  static constexpr int nobs = observable_count<M>();

  std::size_t size = 0;
  std::vector<T> y0;            ///< initial states, y0[d·size + i]
  PerMember<T> t0{{T(0)}};      ///< start times
  PerMember<T> t1{{T(1)}};      ///< end times
  // One default, made in place (not copied from an initializer list, which GCC 12 at -O3 reports
  // as maybe-uninitialized on some -march targets).
  PerMember<StepControl<T>> control{std::vector<StepControl<T>>(1)};
  PerMember<M> model;       ///< parameters
  int samples = 0;              ///< output grid points per member, t₀ and t₁ included (0: final state only)
  int max_hits = 16;            ///< section crossings kept per member and chunk; more are counted as lost

  /// Throws std::invalid_argument naming the offending field and value.
  void validate() const {
    if (size == 0) throw std::invalid_argument("ensemble: 'size' is 0; an ensemble needs at least one member");
    if (y0.size() != dim * size) {
      throw std::invalid_argument("ensemble: 'y0' has " + std::to_string(y0.size()) + " values; expected dim × size = " +
                                  std::to_string(dim) + " × " + std::to_string(size));
    }
    t0.check(size, "t0");
    t1.check(size, "t1");
    control.check(size, "control");
    model.check(size, "model");
    if (max_hits < 0) throw std::invalid_argument("ensemble: 'max_hits' is " + std::to_string(max_hits) + "; expected ≥ 0");
    if (samples < 0 || samples == 1) {
      throw std::invalid_argument("ensemble: 'samples' is " + std::to_string(samples) +
                                  "; expected 0 (final state only) or at least 2 (t0 and t1 included)");
    }
    for (std::size_t i = 0; i < size; ++i) {
      if (!(t1[i] > t0[i])) {
        throw std::invalid_argument("ensemble: member " + std::to_string(i) + " has t1 = " + std::to_string(double(t1[i])) +
                                    " not after t0 = " + std::to_string(double(t0[i])));
      }
      if (!(control[i].h > T(0))) {
        throw std::invalid_argument("ensemble: member " + std::to_string(i) + " has step h = " +
                                    std::to_string(double(control[i].h)) + "; expected h > 0");
      }
    }
  }

  /// Member i's initial state.
  typename space::point state(std::size_t i) const {
    typename space::point y;
    for (int d = 0; d < dim; ++d) y[d] = y0[d * size + i];
    return y;
  }
};

/// Results of a run, structure-of-arrays as the inputs.
template <class T> struct EnsembleOutput {
  std::size_t size = 0;
  int dim = 0, nobs = 0, samples = 0;
  std::vector<T> y;                  ///< final states, y[d·size + i]
  std::vector<T> t;                  ///< time reached
  std::vector<long> steps, rejected; ///< accepted steps and rejected attempts
  std::vector<std::uint8_t> status;  ///< lb::Status per member
  std::vector<long> iterations;      ///< implicit methods: Newton iterations per member, every attempt's (else empty)
  std::vector<int> iterations_max;   ///< implicit methods: the most of one attempt per member (else empty)
  std::vector<T> sample_t;           ///< [k·size + i]; NaN (with y and observables) where a member failed before sample k
  std::vector<T> sample_y;           ///< [(k·dim + d)·size + i]
  std::vector<T> sample_obs;         ///< [(k·nobs + o)·size + i]
  std::string device;                ///< where it ran, e.g. "cpu, 2 threads"
  double integrate_seconds = 0;      ///< wall time of the integration alone: no setup, transfers or output
  double lane_occupancy = 0;         ///< CPU packs: the members' attempts over the lane slots their packs ran (0: not on packs)

  // Section crossings (runs with a section), as records ordered by member, then by time.
  std::vector<std::size_t> hit_member;  ///< member of each record
  std::vector<int> hit_index;           ///< its crossing number within the member (0, 1, …)
  std::vector<T> hit_t;                 ///< crossing time
  std::vector<T> hit_y;                 ///< state, [record·dim + d]
  std::vector<T> hit_obs;               ///< observables, [record·nobs + o]
  std::vector<long> hits;               ///< crossings found per member (kept or lost)
  std::vector<long> lost_hits;          ///< crossings that overflowed the per-chunk buffer, per member
  std::vector<long> suspects;           ///< suspected double crossings not confirmed, per member
  /// The same output in scalar U: a move when U = T; otherwise the arrays of T converted and the
  /// rest moved. Every field is named here, beside its declaration, so none is dropped on the way.
  template <class U> EnsembleOutput<U> cast() && {
    if constexpr (std::is_same_v<U, T>) {
      return std::move(*this);
    } else {
      auto cv = [](const std::vector<T>& x) { return std::vector<U>(x.begin(), x.end()); };
      return {size,
              dim,
              nobs,
              samples,
              cv(y),
              cv(t),
              std::move(steps),
              std::move(rejected),
              std::move(status),
              std::move(iterations),
              std::move(iterations_max),
              cv(sample_t),
              cv(sample_y),
              cv(sample_obs),
              std::move(device),
              integrate_seconds,
              lane_occupancy,
              std::move(hit_member),
              std::move(hit_index),
              cv(hit_t),
              cv(hit_y),
              cv(hit_obs),
              std::move(hits),
              std::move(lost_hits),
              std::move(suspects)};
    }
  }

  long total_lost_hits() const {
    long s = 0;
    for (long x : lost_hits) s += x;
    return s;
  }

  /// Sizes every array for n members (zeros; status running). Without `finals`, the final state
  /// and its counters (y, t, steps, rejected, status) stay empty, without `sampled` the samples,
  /// and without `counts` the crossing counts (hits, lost_hits, suspects): the engine moves them in
  /// whole.
  void allocate(std::size_t n, int dim_, int nobs_, int samples_, bool finals = true, bool sampled = true, bool counts = true) {
    size = n; dim = dim_; nobs = nobs_; samples = samples_;
    if (finals) {
      y.assign(dim * n, T(0));
      t.assign(n, T(0));
      steps.assign(n, 0);
      rejected.assign(n, 0);
      status.assign(n, std::uint8_t(Status::running));
    }
    if (sampled) {
      sample_t.assign(std::size_t(samples) * n, T(0));
      sample_y.assign(std::size_t(samples) * dim * n, T(0));
      sample_obs.assign(std::size_t(samples) * nobs * n, T(0));
    }
    if (counts) {
      hits.assign(n, 0);
      lost_hits.assign(n, 0);
      suspects.assign(n, 0);
    }
  }

  /// Appends one record.
  void add_hit(std::size_t member, int index, T t_hit, const T* y_hit, const T* obs) {
    hit_member.push_back(member);
    hit_index.push_back(index);
    hit_t.push_back(t_hit);
    hit_y.insert(hit_y.end(), y_hit, y_hit + dim);
    hit_obs.insert(hit_obs.end(), obs, obs + nobs);
  }

  /// Puts the records in their canonical order: by member, then by crossing number (= time).
  void sort_hits() {
    std::vector<std::size_t> p(hit_member.size());
    for (std::size_t r = 0; r < p.size(); ++r) p[r] = r;
    std::stable_sort(p.begin(), p.end(), [&](std::size_t a, std::size_t b) {
      return hit_member[a] != hit_member[b] ? hit_member[a] < hit_member[b] : hit_index[a] < hit_index[b];
    });
    auto permute = [&](auto& v, std::size_t width) {
      auto old = v;
      for (std::size_t r = 0; r < p.size(); ++r)
        for (std::size_t w = 0; w < width; ++w) v[r * width + w] = old[p[r] * width + w];
    };
    permute(hit_member, 1);
    permute(hit_index, 1);
    permute(hit_t, 1);
    permute(hit_y, std::size_t(dim));
    if (nobs > 0) permute(hit_obs, std::size_t(nobs));
  }
};

struct EngineState;

/// How to run: stepping mode, chunking, threads, progress.
struct RunOptions {
  bool adaptive = false;     ///< adaptive steps (the method needs an embedded pair)
  int chunks = 1;            ///< without samples: pauses at (c+1)/chunks of each span (progress, bounded launches)
  int samples_per_chunk = 64;///< with samples: output samples gathered per launch
  /// Legs per chunk: the members also pause at (p+1)/pauses of each chunk, for progress and
  /// RunOptions::stop only (samples and section hits are still gathered per chunk, so results
  /// do not depend on it, bitwise).
  int pauses = 1;
  int threads = 0;           ///< CPU threads (0: all hardware threads)
  std::size_t batch = 0;     ///< most members per batch (0: as many as fit in the backend's memory; batch_plan.hpp)
  bool simd = true;          ///< CPU: members in the lanes of SIMD packs where the model runs on packs (docs/packs.md)
  std::function<void(double done)> progress;  ///< called after each chunk with the fraction of trajectory-time done
  /// Set from another thread to end the run early: the CPU starts no further block, and the run
  /// throws Stopped at the next chunk end (the GPU finishes its chunk first).
  const std::atomic<bool>* stop = nullptr;
  /// Checkpoints (engine_state.hpp): asked at every pause whether one is due; `checkpoint` then
  /// gets the run's whole state, from which `resume` goes on, bitwise as if it had not stopped.
  std::function<bool()> checkpoint_due;
  std::function<void(const EngineState&)> checkpoint;
  const EngineState* resume = nullptr;
};

/// Number of CPU threads a run with `requested` threads (RunOptions::threads) uses.
inline int cpu_threads(int requested) {
  const int hw = int(std::thread::hardware_concurrency());
  return requested > 0 ? requested : (hw > 0 ? hw : 1);
}

/// What a run ended by RunOptions::stop throws: its results are discarded.
struct Stopped : std::runtime_error {
  Stopped() : std::runtime_error("run stopped") {}
};

/// Chunk c's pause time for a member, and the number of chunks. A chunk is `pauses` legs: the
/// engine launches leg by leg and gathers a chunk's samples and hits after its last leg.
struct ChunkPlan {
  int samples, per_chunk, chunks, pauses = 1;
  static ChunkPlan make(int samples, const RunOptions& o) {
    const int pauses = o.pauses > 0 ? o.pauses : 1;
    if (samples > 0) {
      const int per = o.samples_per_chunk > 0 ? o.samples_per_chunk : 1;
      return {samples, per, (samples - 1 + per - 1) / per, pauses};  // sample 0 comes with chunk 0
    }
    return {0, 0, o.chunks > 0 ? o.chunks : 1, pauses};
  }
  /// Sample slots a batch holds per member: the most samples a chunk gathers (chunk 0's, with
  /// sample 0), not more than the run has: a run of 2 samples in chunks of 64 holds 2, not 65.
  int slots() const { return samples > 0 ? std::min(per_chunk, samples - 1) + 1 : 0; }
  /// End of chunk c: the last sample it gathers, or the fraction (c+1)/chunks of the span.
  template <class T> LB_HD T end(int c, T t0, T t1) const {
    if (c < 0) return t0;
    if (c >= chunks - 1) return t1;
    if (samples > 0) return sample_time(t0, t1, (c + 1) * per_chunk, samples);
    return t0 + (t1 - t0) * (T(c + 1) / T(chunks));
  }
  /// The end of the samples that leg `leg` may record: one past its chunk's last.
  LB_HD int sample_end(int leg) const {
    const int c = leg / pauses;
    return c >= chunks - 1 ? samples : (c + 1) * per_chunk + 1;
  }
  /// Pause time of leg `leg` (leg p of chunk leg / pauses): the chunk's end for its last leg,
  /// otherwise the fraction (p+1)/pauses of the way from the chunk's start to its end.
  template <class T> LB_HD T pause(int leg, T t0, T t1) const {
    const int c = leg / pauses, p = leg % pauses;
    const T e = end(c, t0, t1);
    if (p == pauses - 1) return e;
    const T s = end(c - 1, t0, t1);
    return s + (e - s) * (T(p + 1) / T(pauses));
  }
};

}  // namespace lb
