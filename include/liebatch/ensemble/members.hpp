// What the engine does for one member (a GPU thread, or one iteration of a CPU thread's loop): the
// views of structure-of-arrays buffers and the per-member bodies. Plain LB_HD code with no CUDA
// headers, so that both backends run these bodies, and nothing else, per member.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "ensemble.hpp"

namespace lb::engine {

/// A per-member input on the device: one shared value passed by value, or one per member.
template <class V> struct MemberView {
  const V* per;  ///< null when shared
  V shared;
  LB_HD V operator[](std::size_t i) const { return per ? per[i] : shared; }
};

/// Trajectory states of a batch, structure-of-arrays.
template <class P> struct StateView {
  using T = typename P::scalar;
  std::size_t n;
  T *y, *t, *h;
  long *j, *steps, *rejected;
  int* sample;
  std::uint8_t* status;
  long* iterations;     ///< null unless the method is implicit
  int* iterations_max;  ///< null unless the method is implicit
  T* warm;              ///< an implicit method's warm start, [d·n + i] (null without)

  LB_HD Trajectory<P> load(std::size_t i) const {
    Trajectory<P> s;
    for (int d = 0; d < P::size; ++d) s.y[d] = y[d * n + i];
    s.t = t[i]; s.h = h[i]; s.j = j[i]; s.steps = steps[i]; s.rejected = rejected[i]; s.sample = sample[i];
    s.status = Status(status[i]);
    s.iterations = iterations ? iterations[i] : 0;
    s.iterations_max = iterations ? iterations_max[i] : 0;
    return s;
  }
  LB_HD void store(std::size_t i, const Trajectory<P>& s) const {
    for (int d = 0; d < P::size; ++d) y[d * n + i] = s.y[d];
    t[i] = s.t; h[i] = s.h; j[i] = s.j; steps[i] = s.steps; rejected[i] = s.rejected; sample[i] = s.sample;
    status[i] = std::uint8_t(s.status);
    if (iterations) iterations[i] = s.iterations, iterations_max[i] = s.iterations_max;
  }
};

/// Sample buffers of one chunk: slot = k − first, slot-major like the host output.
template <class T> struct SampleView {
  int first;
  T *t, *y, *obs;
};

/// Per-member section bookkeeping of a batch and its hit slots (slot j of member i at [j·n + i]).
template <class T> struct HitView {
  int slots;
  long *found, *hits, *lost, *suspects;  ///< found: this chunk; hits, lost, suspects: whole run
  T *t, *y, *obs;
};

/// Member i's trajectory state from its initial state.
template <class P> struct StartMember {
  using T = typename P::scalar;
  StateView<P> st;
  const T* y0;         ///< component d of member i at y0[d·stride + i]
  std::size_t stride;  ///< the batch's size (a copy), or the ensemble's (read in place)
  MemberView<T> t0;
  MemberView<StepControl<T>> ctl;

  LB_HD void operator()(std::size_t i) const {
    P y;
    for (int d = 0; d < P::size; ++d) y[d] = y0[d * stride + i];
    st.store(i, start(y, t0[i], ctl[i].h));
  }
};

/// What a chunk's members read and write: the batch's views and the chunk (everything but the
/// method, so that the engine's host side is compiled once per model and section).
template <class Model, class Section> struct ChunkInputs {
  using P = typename Model::space::point;
  using T = typename P::scalar;
  static constexpr int nobs = observable_count<Model>();
  StateView<P> st;
  MemberView<T> t0v, t1v;
  MemberView<StepControl<T>> ctl;
  MemberView<Model> models;
  ChunkPlan plan;
  int leg;  ///< the leg launched: leg % plan.pauses of chunk leg / plan.pauses
  SampleView<T> out;
  Section sec;
  HitView<T> hv;
  const std::atomic<bool>* stop = nullptr;  ///< RunOptions::stop: read within a leg on the CPU, never on the GPU

  /// Whether the run was stopped: on the GPU a leg runs to its end.
  LB_HD bool stopped() const {
#ifdef __CUDA_ARCH__
    return false;
#else
    return stop && stop->load(std::memory_order_relaxed);
#endif
  }

  /// Member i's sample k, (t, y) and its observables under model m, into the chunk's slot.
  LB_HD void record(std::size_t i, const Model& m, int k, T t, const P& y) const {
    const std::size_t n = st.n, slot = std::size_t(k - out.first);
    out.t[slot * n + i] = t;
    for (int d = 0; d < P::size; ++d) out.y[(slot * P::size + d) * n + i] = y[d];
    if constexpr (nobs > 0) {
      const auto o = m.observables(y);
      for (int q = 0; q < nobs; ++q) out.obs[(slot * nobs + q) * n + i] = o[q];
    }
  }
  /// Member i's crossing (t, y) into its next hit slot (counted as lost past the last slot), or a
  /// suspect that was not confirmed.
  LB_HD void hit(std::size_t i, const Model& m, T t, const P& y, bool confirmed) const {
    if (!confirmed) { ++hv.suspects[i]; return; }
    ++hv.hits[i];
    const long j = hv.found[i]++;
    if (j >= hv.slots) { ++hv.lost[i]; return; }
    const std::size_t n = st.n;
    hv.t[std::size_t(j) * n + i] = t;
    for (int d = 0; d < P::size; ++d) hv.y[(std::size_t(j) * P::size + d) * n + i] = y[d];
    if constexpr (nobs > 0) {
      const auto o = m.observables(y);
      for (int q = 0; q < nobs; ++q) hv.obs[(std::size_t(j) * nobs + q) * n + i] = o[q];
    }
  }
};

/// A run's lane occupancy on packs (CPU, members_packed.hpp): the attempts (accepted and rejected
/// steps) its members took, and W × the attempts their packs took.
struct LaneCounts {
  std::atomic<long> used{0}, slots{0};
};

/// Member i advanced through one chunk of time: its samples into the chunk's slots, its crossings
/// into its hit slots.
template <class Method, bool adaptive, class Model, class Section> struct ChunkMember {
  using P = typename Model::space::point;
  using T = typename P::scalar;
  ChunkInputs<Model, Section> a;

  LB_HD void operator()(std::size_t i) const {
    Trajectory<P> s = a.st.load(i);
    const Model m = a.models[i];
    const T t0 = a.t0v[i], t1 = a.t1v[i];
    auto record = [&](int, int k, T t, const P& y) { a.record(i, m, k, t, y); };
    auto on_hit = [&](int, T t, const P& y, bool confirmed) { a.hit(i, m, t, y, confirmed); };
    const Leg<T> leg{
        .t0 = t0, .t1 = t1, .samples = a.plan.samples, .pause = a.plan.pause(a.leg, t0, t1), .sample_end = a.plan.sample_end(a.leg)};
#ifdef __CUDA_ARCH__
    const NoInterrupt interrupt;
#else
    auto interrupt = [&] { return a.stopped(); };
#endif
    constexpr int k = method_warm<Method>();
    if constexpr (k > 0) {  // the warm start travels with the member between chunks
      const std::size_t n = a.st.n;
      Hooks hooks{.record = record, .section = a.sec, .on_hit = on_hit, .warm = Vec<T, k>{}, .interrupt = interrupt};
      for (int d = 0; d < k; ++d) hooks.warm[d] = a.st.warm[std::size_t(d) * n + i];
      advance<Method, adaptive>(m, s, leg, a.ctl[i], hooks);
      for (int d = 0; d < k; ++d) a.st.warm[std::size_t(d) * n + i] = hooks.warm[d];
    } else {
      advance<Method, adaptive>(m, s, leg, a.ctl[i], Hooks{.record = record, .section = a.sec, .on_hit = on_hit, .interrupt = interrupt});
    }
    a.st.store(i, s);
  }
};

/// kept = min(found, slots), for the scan.
struct KeptHits {
  long slots;
  LB_HD long operator()(long found) const { return found < slots ? found : slots; }
};

/// Member i's kept hits of a chunk compacted into records from offset[i] on (an exclusive scan of
/// the kept counts).
template <class T> struct CompactMember {
  HitView<T> hv;
  std::size_t n;        ///< members in the batch
  std::size_t member0;  ///< the batch's first member
  int dim, nobs;
  const long* offset;
  std::size_t* r_member;
  int* r_index;
  T *r_t, *r_y, *r_obs;

  LB_HD void operator()(std::size_t i) const {
    const long kept = KeptHits{hv.slots}(hv.found[i]);
    for (long j = 0; j < kept; ++j) {
      const std::size_t r = std::size_t(offset[i] + j);
      r_member[r] = member0 + i;
      r_index[r] = int(hv.hits[i] - hv.found[i] + j);
      r_t[r] = hv.t[std::size_t(j) * n + i];
      for (int d = 0; d < dim; ++d) r_y[r * dim + d] = hv.y[(std::size_t(j) * dim + d) * n + i];
      for (int q = 0; q < nobs; ++q) r_obs[r * nobs + q] = hv.obs[(std::size_t(j) * nobs + q) * n + i];
    }
  }
};

/// Fraction of member i's span done (1 when finished), for progress.
template <class T> struct DoneMember {
  const T* t;
  const std::uint8_t* status;
  MemberView<T> t0, t1;
  double* done;

  LB_HD void operator()(std::size_t i) const {
    done[i] = status[i] == std::uint8_t(Status::running) ? double((t[i] - t0[i]) / (t1[i] - t0[i])) : 1.0;
  }
};

}  // namespace lb::engine
