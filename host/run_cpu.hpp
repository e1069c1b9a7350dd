// The CPU ensemble path: the same advance() as the GPU kernel, over members split across threads.
// Members never share state, so results are bitwise independent of the thread count.
#pragma once
#include <algorithm>
#include <atomic>
#include <chrono>
#include <system_error>
#include <thread>
#include <vector>

#include "ensemble.hpp"

namespace lb {

namespace detail {
struct NoTick {
  void operator()(std::size_t) const {}
};
/// Runs body(i) for i in [0, n) on `threads` threads, in blocks claimed from a shared counter;
/// the calling thread calls tick(items done so far) after each of its blocks.
template <class F, class Tick = NoTick> void parallel_for(std::size_t n, int threads, F&& body, Tick&& tick = {}) {
  const std::size_t block = 64;
  std::atomic<std::size_t> next{0}, done{0};
  auto worker = [&](bool caller) {
    for (std::size_t b; (b = next.fetch_add(block)) < n;) {
      const std::size_t end = std::min(n, b + block);
      for (std::size_t i = b; i < end; ++i) body(i);
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
}  // namespace detail

/// Number of CPU threads a run with `requested` threads uses.
inline int cpu_threads(int requested) {
  const int hw = int(std::thread::hardware_concurrency());
  return requested > 0 ? requested : (hw > 0 ? hw : 1);
}

/// Integrates every member of e with Method on the CPU; with a section, records its crossings
/// (at most e.max_hits per member and chunk are kept, the rest counted as lost).
template <class Method, class Model, class Section = NoSection>
EnsembleOutput<typename Ensemble<Model>::T> run_cpu(const Ensemble<Model>& e, const RunOptions& opt,
                                                    const Section& section = {}) {
  using E = Ensemble<Model>;
  using T = typename E::T;
  using P = typename E::space::point;
  e.validate();
  if (opt.adaptive && Method::order_hat == 0) {
    throw std::invalid_argument("adaptive steps need a method with an embedded pair; this one has none");
  }
  const std::size_t n = e.size;
  const int threads = cpu_threads(opt.threads);
  EnsembleOutput<T> out;
  out.allocate(n, E::dim, E::nobs, e.samples);
  out.device = "cpu, " + std::to_string(threads) + (threads == 1 ? " thread" : " threads");

  std::vector<Trajectory<P>> traj(n);
  for (std::size_t i = 0; i < n; ++i) traj[i] = start(e.state(i), e.t0[i], e.control[i].h);

  const ChunkPlan plan = ChunkPlan::make(e.samples, opt);
  constexpr bool sections = !std::is_same_v<Section, NoSection>;
  // Per-chunk hit slots (slot j of member i at [j·n + i]), as on the GPU.
  const std::size_t slots = sections ? std::size_t(e.max_hits) : 0;
  std::vector<T> slot_t(slots * n), slot_y(slots * E::dim * n), slot_obs(slots * E::nobs * n);
  std::vector<long> found(n, 0);
  for (int c = 0; c < plan.chunks; ++c) {
    std::fill(found.begin(), found.end(), 0);
    const auto started = std::chrono::steady_clock::now();
    // Within a long chunk (e.g. a whole run without samples), progress by members done, at most
    // every 0.1 s.
    auto last_tick = started;
    auto tick = [&](std::size_t done) {
      const auto now = std::chrono::steady_clock::now();
      if (!opt.progress || now - last_tick < std::chrono::milliseconds(100)) return;
      last_tick = now;
      opt.progress((double(c) + double(done) / double(n)) / double(plan.chunks));
    };
    detail::parallel_for(n, threads, [&](std::size_t i) {
      auto on_hit = [&](T t_hit, const P& y_hit, bool confirmed) {
        if (!confirmed) { ++out.suspects[i]; return; }
        ++out.hits[i];
        const long j = found[i]++;
        if (j >= long(slots)) { ++out.lost_hits[i]; return; }
        slot_t[std::size_t(j) * n + i] = t_hit;
        for (int d = 0; d < E::dim; ++d) slot_y[(std::size_t(j) * E::dim + d) * n + i] = y_hit[d];
        if constexpr (E::nobs > 0) {
          const auto o = e.model[i].observables(y_hit);
          for (int q = 0; q < E::nobs; ++q) slot_obs[(std::size_t(j) * E::nobs + q) * n + i] = o[q];
        }
      };
      auto record = [&](int k, const Trajectory<P>& s) {
        out.sample_t[k * n + i] = s.t;
        for (int d = 0; d < E::dim; ++d) out.sample_y[(std::size_t(k) * E::dim + d) * n + i] = s.y[d];
        if constexpr (E::nobs > 0) {
          const auto o = e.model[i].observables(s.y);
          for (int q = 0; q < E::nobs; ++q) out.sample_obs[(std::size_t(k) * E::nobs + q) * n + i] = o[q];
        }
      };
      const T t0 = e.t0[i], t1 = e.t1[i];
      if (opt.adaptive) {
        if constexpr (Method::order_hat > 0) {
          advance<Method, true>(e.model[i], traj[i], t0, t1, e.control[i], e.samples, plan.pause(c, t0, t1), record,
                                section, on_hit);
        }
      } else {
        advance<Method, false>(e.model[i], traj[i], t0, t1, e.control[i], e.samples, plan.pause(c, t0, t1), record,
                               section, on_hit);
      }
    }, tick);
    out.integrate_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if constexpr (sections) {  // flush this chunk's kept hits into records
      T y[E::dim], o[E::nobs > 0 ? E::nobs : 1];
      for (std::size_t i = 0; i < n; ++i) {
        const long kept = std::min(found[i], long(slots));
        for (long j = 0; j < kept; ++j) {
          for (int d = 0; d < E::dim; ++d) y[d] = slot_y[(std::size_t(j) * E::dim + d) * n + i];
          for (int q = 0; q < E::nobs; ++q) o[q] = slot_obs[(std::size_t(j) * E::nobs + q) * n + i];
          out.add_hit(i, int(out.hits[i] - found[i] + j), slot_t[std::size_t(j) * n + i], y, o);
        }
      }
    }
    if (opt.progress) {
      double done = 0;
      for (std::size_t i = 0; i < n; ++i) {
        done += traj[i].status == Status::running ? double((traj[i].t - e.t0[i]) / (e.t1[i] - e.t0[i])) : 1.0;
      }
      opt.progress(done / double(n));
    }
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (int d = 0; d < E::dim; ++d) out.y[d * n + i] = traj[i].y[d];
    out.t[i] = traj[i].t;
    out.steps[i] = traj[i].steps;
    out.rejected[i] = traj[i].rejected;
    out.status[i] = std::uint8_t(traj[i].status);
  }
  out.sort_hits();
  return out;
}

}  // namespace lb
