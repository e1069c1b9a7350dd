// The ensemble engine, one for both processors: members split into batches that fit the backend's
// memory, integrated chunk by chunk (progress, bounded sample buffers) by the per-member bodies of
// members.hpp, hits compacted by a scan, results copied back. A backend (backend.hpp) supplies
// the buffers, launches, copies, scan and reductions: threads on the host (cpu.hpp) or a CUDA
// device (cuda.cuh). Members never share state, so a member's result does not depend on the
// backend's batching, chunking or thread count, bitwise.
#pragma once
#include <algorithm>
#include <chrono>
#include <functional>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "batch_plan.hpp"
#include "engine_state.hpp"
#include "members.hpp"
#include "backend.hpp"

namespace lb {

/// Backend B's device buffer of V.
template <class B, class V> using buffer = typename B::template vector<V>;

namespace detail {
/// Whether backend B's buffers are host memory (B::host_memory: the CPU's). The engine then reads
/// the inputs where they lie and moves a run of one batch's buffers into its output: no copies,
/// which cost as much as a thousand small steps' bookkeeping (bench/RESULTS.md, issue 38).
template <class B> constexpr bool host_memory() {
  if constexpr (requires { B::host_memory; }) return B::host_memory;
  else return false;
}

/// A per-member input in device memory: the shared value, or this batch's slice of the values.
template <class B, class V> struct DeviceMember {
  buffer<B, V> buf;
  engine::MemberView<V> view;
  DeviceMember(const PerMember<V>& m, std::size_t b0, std::size_t nb) {
    if (m.shared()) {
      view = {nullptr, m.v[0]};
    } else if constexpr (host_memory<B>()) {
      view = {m.v.data() + b0, m.v[0]};
    } else {
      buf.assign(m.v.begin() + b0, m.v.begin() + b0 + nb);
      view = {B::raw(buf), m.v[0]};
    }
  }
};

/// Whether backend B runs a chunk itself (B::own_chunk: the CPU's, on packs) rather than launching
/// the one-member body.
template <class B> constexpr bool own_chunk() {
  if constexpr (requires { B::own_chunk; }) return B::own_chunk;
  else return false;
}

/// Launches one chunk of every member of a batch with Method, fixed or adaptive steps; tick(members
/// done) reports progress within the launch where the backend can.
template <class B, class Method, class Model, class Section>
void launch_chunk(const B& b, const engine::ChunkInputs<Model, Section>& in, bool adaptive,
                  const std::function<void(std::size_t)>& tick) {
  // A backend with its own chunk (the CPU's, on packs) runs it; otherwise one member per body.
  auto run = [&]<bool A>() {
    if constexpr (own_chunk<B>()) b.template chunk<Method, A>(in, tick);
    else b.launch(in.st.n, engine::ChunkMember<Method, A, Model, Section>{in}, "chunk kernel", tick);
  };
  if (!adaptive) run.template operator()<false>();
  else if constexpr (Method::order_hat > 0) run.template operator()<true>();
}

/// A method's chunk launch: the one part of a run that depends on the method.
template <class B, class Model, class Section>
using ChunkLaunch = void (*)(const B&, const engine::ChunkInputs<Model, Section>&, bool, const std::function<void(std::size_t)>&);

/// What the engine's host side needs to know of a method: whether it has an embedded pair, counts
/// Newton iterations (method_implicit), and the size of its warm start (method_warm).
struct MethodNeeds {
  bool embedded, implicit;
  int warm;
};

/// The engine's host side for one model and section: batches, buffers, chunks, samples, hits;
/// `chunk` launches the method's steps.
template <Backend B, class Model, class Section>
EnsembleOutput<typename Ensemble<Model>::T> run_engine(const Ensemble<Model>& e, const RunOptions& opt, const Section& section,
                                                       MethodNeeds method, ChunkLaunch<B, Model, Section> chunk) {
  using namespace engine;
  const B b(opt);
  using E = Ensemble<Model>;
  using T = typename E::T;
  using P = typename E::space::point;
  constexpr int dim = E::dim, nobs = E::nobs;
  e.validate();
  const bool implicit = method.implicit;
  if (opt.adaptive && !method.embedded) {
    throw std::invalid_argument("adaptive steps need a method with an embedded pair; this one has none");
  }
  const std::size_t n = e.size;
  const ChunkPlan plan = ChunkPlan::make(e.samples, opt);
  const int slots = plan.slots();
  // Without a section, or with one chosen at run time to be none, no member records a crossing,
  // and the run has no hit buffers (their pages cost a short run more than its steps).
  constexpr bool sections = !std::is_same_v<Section, NoSection>;
  const bool searching = sections && active(section);
  const int hit_slots = searching ? e.max_hits : 0;

  const RunShape shape{.scalar = sizeof(T),
                       .dim = dim,
                       .nobs = nobs,
                       .samples = e.samples,
                       .sample_slots = slots,
                       .hit_slots = hit_slots,
                       .warm = method.warm,
                       .implicit = implicit,
                       .per_member = sizeof(Model) + sizeof(StepControl<T>)};
  // A resumed run keeps its batches: the state in flight belongs to one of them.
  const EngineState* from = opt.resume;
  const std::size_t batch =
      from ? from->batch : batch_members(n, buffer_bytes(shape), batch_memory_share * double(b.free_memory()), opt.batch);
  if (from && (from->batch == 0 || from->b0 % from->batch != 0 || from->b0 >= n))
    throw std::runtime_error("checkpoint: the engine's state is for another run (batch " + std::to_string(from->b0) + " of " +
                             std::to_string(n) + " members in batches of " + std::to_string(from->batch) + ")");
  // One batch in host memory: its final state and counters become the output's, moved at the end,
  // and so do its sample slots where one chunk gathers every sample (the slots are then the
  // output's samples, in its layout).
  constexpr bool in_place = host_memory<B>();
  const bool whole = in_place && batch >= n, whole_samples = whole && plan.chunks == 1;
  EnsembleOutput<T> out;
  out.allocate(n, dim, nobs, e.samples, !whole, !whole_samples, !(whole && searching));
  if (implicit && !whole) out.iterations.assign(n, 0), out.iterations_max.assign(n, 0);
  out.device = b.name();

  double done_total = from ? double(from->b0) : 0;
  for (std::size_t b0 = from ? from->b0 : 0; b0 < n; b0 += batch) {
    const std::size_t nb = std::min(batch, n - b0);
    buffer<B, T> y0(in_place ? 0 : dim * nb), y(dim * nb), t(nb), h(nb);
    buffer<B, long> j(nb), steps(nb), rejected(nb);
    buffer<B, int> sample(nb);
    buffer<B, std::uint8_t> status(nb);
    buffer<B, long> iterations(implicit ? nb : 0);
    buffer<B, int> iterations_max(implicit ? nb : 0);
    buffer<B, T> warm(std::size_t(method.warm) * nb);  // read only after a member's first step wrote it
    buffer<B, T> st(std::size_t(slots) * nb), sy(std::size_t(slots) * dim * nb), so(std::size_t(slots) * nobs * nb);
    buffer<B, double> done(opt.progress ? nb : 0);
    const std::size_t nh = searching ? nb : 0;
    buffer<B, long> found(nh), hits(nh), lost(nh), suspects(nh), offset(nh);
    buffer<B, T> ht(std::size_t(hit_slots) * nb), hy(std::size_t(hit_slots) * dim * nb), ho(std::size_t(hit_slots) * nobs * nb);
    const HitView<T> hv{hit_slots, B::raw(found), B::raw(hits), B::raw(lost), B::raw(suspects),
                        B::raw(ht), B::raw(hy), B::raw(ho)};
    if constexpr (!in_place)
      for (int d = 0; d < dim; ++d) b.copy(e.y0.begin() + d * n + b0, e.y0.begin() + d * n + b0 + nb, y0.begin() + d * nb);
    const detail::DeviceMember<B, T> t0(e.t0, b0, nb), t1(e.t1, b0, nb);
    const detail::DeviceMember<B, StepControl<T>> ctl(e.control, b0, nb);
    const detail::DeviceMember<B, Model> models(e.model, b0, nb);
    const StateView<P> view{nb, B::raw(y), B::raw(t), B::raw(h), B::raw(j), B::raw(steps), B::raw(rejected),
                            B::raw(sample), B::raw(status), implicit ? B::raw(iterations) : nullptr,
                            implicit ? B::raw(iterations_max) : nullptr, method.warm > 0 ? B::raw(warm) : nullptr};
    // The whole state between two legs, in EngineState's order: the batch's buffers, then the
    // results so far (the samples gathered: all of earlier batches', this one's up to chunk c).
    const int legs = plan.pauses;
    const auto gathered = [&](int c) -> std::size_t {
      if (plan.samples == 0) return 0;
      return b0 > 0 || c >= plan.chunks ? std::size_t(plan.samples) : std::size_t(std::min(c * plan.per_chunk, plan.samples - 1) + (c > 0));
    };
    const auto each_buffer = [&](auto&& f) {
      f(y), f(t), f(h), f(j), f(steps), f(rejected), f(sample), f(status), f(iterations), f(iterations_max), f(warm);
      f(st), f(sy), f(so), f(found), f(hits), f(lost), f(suspects), f(ht), f(hy), f(ho);
    };
    const auto each_result = [&](auto&& f, int c) {
      f(out.y, n * dim), f(out.t, n), f(out.steps, n), f(out.rejected, n), f(out.status, n);
      f(out.iterations, n), f(out.iterations_max, n);
      f(out.sample_t, gathered(c) * n), f(out.sample_y, gathered(c) * dim * n), f(out.sample_obs, gathered(c) * nobs * n);
      f(out.hits, n), f(out.lost_hits, n), f(out.suspects, n);
    };
    const auto each_record = [&](auto&& f) { f(out.hit_member), f(out.hit_index), f(out.hit_t), f(out.hit_y), f(out.hit_obs); };
    const auto checkpoint = [&](int next_leg) {
      if (!opt.checkpoint || !opt.checkpoint_due || !opt.checkpoint_due()) return;
      EngineState s;
      s.batch = batch, s.b0 = b0, s.leg = next_leg;
      each_buffer([&](auto& buf) {
        std::vector<typename std::decay_t<decltype(buf)>::value_type> host(buf.size());
        b.copy(buf.begin(), buf.end(), host.begin());
        s.put(host);
      });
      each_result([&](const auto& v, std::size_t count) { s.put(v, count); }, next_leg / legs);
      each_record([&](const auto& v) { s.put(v); });
      s.put(std::vector<double>{out.integrate_seconds});
      opt.checkpoint(s);
    };
    const bool resumed = from && b0 == from->b0;
    if (resumed) {
      std::size_t k = 0;
      each_buffer([&](auto& buf) {
        std::vector<typename std::decay_t<decltype(buf)>::value_type> host(buf.size());
        from->get(k++, host, EngineState::Fit::exact);
        b.copy(host.begin(), host.end(), buf.begin());
      });
      each_result([&](auto& v, std::size_t) { from->get(k++, v, EngineState::Fit::prefix); }, 0);
      each_record([&](auto& v) { from->get(k++, v, EngineState::Fit::whole); });
      std::vector<double> seconds(1);
      from->get(k++, seconds, EngineState::Fit::exact);
      out.integrate_seconds = seconds[0];
    } else {
      const StartMember<P> start =
          in_place ? StartMember<P>{view, e.y0.data() + b0, n, t0.view, ctl.view} : StartMember<P>{view, B::raw(y0), nb, t0.view, ctl.view};
      b.launch(nb, start, "start kernel");
      b.synchronize("start kernel");
    }

    for (int c = resumed ? from->leg / legs : 0; c < plan.chunks; ++c) {
      const int first = plan.samples > 0 ? (c == 0 ? 0 : c * plan.per_chunk + 1) : 0;
      const int last = plan.samples > 0 ? std::min((c + 1) * plan.per_chunk, plan.samples - 1) : -1;
      const SampleView<T> sv{first, B::raw(st), B::raw(sy), B::raw(so)};
      // A chunk resumed after its first leg has its slots from the checkpoint.
      const int p0 = resumed && c == from->leg / legs ? from->leg % legs : 0;
      // A sample a member never reaches (it failed before) stays NaN in t, y and the observables:
      // never a zero that looks like data.
      if (slots > 0 && p0 == 0) {
        constexpr T nan = std::numeric_limits<T>::quiet_NaN();
        b.fill(st, nan);
        b.fill(sy, nan);
        b.fill(so, nan);
      }
      if (searching && p0 == 0) b.fill(found, 0L);
      const auto started = std::chrono::steady_clock::now();
      for (int p = p0; p < legs; ++p) {
        const double at = double(c * legs + p) / double(plan.chunks * legs);  // of the batch, before this leg
        // Within a long leg, progress by members done (a backend that can tell, at most every 0.1 s).
        auto last_tick = std::chrono::steady_clock::now();
        auto tick = [&](std::size_t members_done) {
          const auto now = std::chrono::steady_clock::now();
          if (!opt.progress || now - last_tick < std::chrono::milliseconds(100)) return;
          last_tick = now;
          opt.progress((done_total + double(nb) * (at + double(members_done) / double(nb) / double(plan.chunks * legs))) / double(n));
        };
        chunk(b, {view, t0.view, t1.view, ctl.view, models.view, plan, c * legs + p, sv, section, hv, opt.stop}, opt.adaptive, tick);
        b.synchronize("chunk kernel");
        if (opt.stop && opt.stop->load()) throw Stopped();
        if (opt.progress && p < legs - 1) opt.progress((done_total + double(nb) * (at + 1.0 / double(plan.chunks * legs))) / double(n));
        if (p < legs - 1) checkpoint(c * legs + p + 1);  // (a chunk's last leg: once its samples are gathered)
      }
      out.integrate_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      if constexpr (sections) {  // compact this chunk's kept hits into records (scan of the kept counts)
        std::size_t nrec = 0;
        if (searching) {
          b.kept_offsets(found, offset, hit_slots);
          nrec = std::size_t(offset.back() + KeptHits{hit_slots}(found.back()));
        }
        if (nrec > 0) {
          buffer<B, std::size_t> rm(nrec);
          buffer<B, int> ri(nrec);
          // One observable slot per record even for models without observables: GCC 12 reports a
          // false -Wfree-nonheap-object for a vector whose size is the constant 0.
          buffer<B, T> rt(nrec), ry(nrec * dim), ro(nrec * std::size_t(nobs > 0 ? nobs : 1));
          b.launch(nb, CompactMember<T>{hv, nb, b0, dim, nobs, B::raw(offset), B::raw(rm), B::raw(ri), B::raw(rt),
                                         B::raw(ry), B::raw(ro)},
                    "compact kernel");
          const std::size_t at = out.hit_t.size();
          out.hit_member.resize(at + nrec);
          out.hit_index.resize(at + nrec);
          out.hit_t.resize(at + nrec);
          out.hit_y.resize((at + nrec) * dim);
          out.hit_obs.resize((at + nrec) * nobs);
          b.copy(rm.begin(), rm.end(), out.hit_member.begin() + at);
          b.copy(ri.begin(), ri.end(), out.hit_index.begin() + at);
          b.copy(rt.begin(), rt.end(), out.hit_t.begin() + at);
          b.copy(ry.begin(), ry.end(), out.hit_y.begin() + at * dim);
          b.copy(ro.begin(), ro.begin() + std::ptrdiff_t(nrec * nobs), out.hit_obs.begin() + at * nobs);
        }
      }
      for (int k = first; k <= last && !whole_samples; ++k) {  // this chunk's samples into the host output
        const std::size_t slot = std::size_t(k - first);
        b.copy(st.begin() + slot * nb, st.begin() + (slot + 1) * nb, out.sample_t.begin() + std::size_t(k) * n + b0);
        for (int d = 0; d < dim; ++d) {
          const std::size_t at = (slot * dim + d) * nb;
          b.copy(sy.begin() + at, sy.begin() + at + nb, out.sample_y.begin() + (std::size_t(k) * dim + d) * n + b0);
        }
        for (int q = 0; q < nobs; ++q) {
          const std::size_t at = (slot * nobs + q) * nb;
          b.copy(so.begin() + at, so.begin() + at + nb, out.sample_obs.begin() + (std::size_t(k) * nobs + q) * n + b0);
        }
      }
      if (opt.progress) {
        b.launch(nb, DoneMember<T>{B::raw(t), B::raw(status), t0.view, t1.view, B::raw(done)}, "done kernel");
        opt.progress((done_total + b.sum(done)) / double(n));
      }
      // A launch after the check above (compact, done) may have been cut short by the stop.
      if (opt.stop && opt.stop->load()) throw Stopped();
      if (c < plan.chunks - 1) checkpoint((c + 1) * legs);
    }
    done_total += double(nb);
    if constexpr (in_place) {
      if (whole) {  // the buffers are std::vectors of the output's types, in its layout (nb = n)
        out.y = std::move(y), out.t = std::move(t), out.steps = std::move(steps), out.rejected = std::move(rejected);
        out.status = std::move(status);
        if (implicit) out.iterations = std::move(iterations), out.iterations_max = std::move(iterations_max);
        if (searching) out.hits = std::move(hits), out.lost_hits = std::move(lost), out.suspects = std::move(suspects);
        if (whole_samples) out.sample_t = std::move(st), out.sample_y = std::move(sy), out.sample_obs = std::move(so);
        continue;
      }
    }
    for (int d = 0; d < dim; ++d) b.copy(y.begin() + d * nb, y.begin() + (d + 1) * nb, out.y.begin() + d * n + b0);
    b.copy(t.begin(), t.end(), out.t.begin() + b0);
    b.copy(steps.begin(), steps.end(), out.steps.begin() + b0);
    b.copy(rejected.begin(), rejected.end(), out.rejected.begin() + b0);
    b.copy(status.begin(), status.end(), out.status.begin() + b0);
    if (implicit) {
      b.copy(iterations.begin(), iterations.end(), out.iterations.begin() + b0);
      b.copy(iterations_max.begin(), iterations_max.end(), out.iterations_max.begin() + b0);
    }
    if (searching) {
      b.copy(hits.begin(), hits.end(), out.hits.begin() + b0);
      b.copy(lost.begin(), lost.end(), out.lost_hits.begin() + b0);
      b.copy(suspects.begin(), suspects.end(), out.suspects.begin() + b0);
    }
  }
  out.sort_hits();
  if constexpr (requires { b.lane_occupancy(); }) out.lane_occupancy = b.lane_occupancy();
  return out;
}
}  // namespace detail

/// Integrates every member of e with Method through backend B (made from opt); with a section,
/// records its crossings (at most e.max_hits per member and chunk, compacted into records each
/// chunk). Throws std::invalid_argument for bad input; B's failures propagate as its exceptions.
template <Backend B, class Method, class Model, class Section = NoSection>
  requires MethodFor<Method, Model> && SectionFor<Section, Model>
EnsembleOutput<typename Ensemble<Model>::T> run_batched(const Ensemble<Model>& e, const RunOptions& opt,
                                                        const Section& section = {}) {
  return detail::run_engine<B, Model, Section>(e, opt, section,
                                               {Method::order_hat > 0, method_implicit<Method>(), method_warm<Method>()},
                                               &detail::launch_chunk<B, Method, Model, Section>);
}

}  // namespace lb
