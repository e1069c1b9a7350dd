// The CPU engine's per-member body on packs: W consecutive members of a batch in the lanes of one
// SIMD register (pack.hpp), stepped together by the lane-masked advance() as a warp steps 32
// threads. Loads and stores are the scalar body's structure-of-arrays accesses, W at a time; a
// ragged last pack fills its empty lanes with idle copies of its first member. Each lane computes
// what the scalar body computes for its member (docs/packs.md), so results do not depend on which
// members share a pack, nor on threads or chunks. Host only.
#pragma once
#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

#include "../pack.hpp"
#include "members.hpp"

namespace lb::engine {

namespace detail {
/// A stand-in scalar with T's alignment and twice its size: a struct made of T alone is twice as
/// large on it, a struct with any other field (an int, a pointer) is not.
template <class T> struct Twice {
  T a, b;
  Twice() = default;
  Twice(T x) : a(x), b(x) {}
};
}  // namespace detail

/// Registers per pack of model M's members: its own `static constexpr int pack_registers` where it
/// sets one, else 1. A model whose step is a short chain of dependent operations (Lorenz: a few
/// FLOPs per stage) runs faster on 2, whose independent chains hide each other's latency; a larger
/// one, on 2, runs out of registers (bench/RESULTS.md). Results do not depend on it, bitwise.
template <class M> constexpr int pack_registers_of() {
  if constexpr (requires { M::pack_registers; }) return M::pack_registers;
  else return 1;
}

/// The pack of model M's members.
template <class M> using PackOf = Pack<typename M::space::scalar, xsimd::default_arch, pack_registers_of<M>()>;

/// Whether model M runs on packs: its scalar is float or double, it says so (`static constexpr bool
/// packs = true;`, a promise that its code branches only through lb::select/max/min/any/all;
/// docs/packs.md) and it casts to a pack.
template <class M>
concept PackModel = is_device_scalar_v<typename M::space::scalar> && requires { requires M::packs; } && requires(const M& m) {
  m.template cast<PackOf<M>>();
};

/// Whether W members' models of type M transpose into the packed model field by field: M is made of
/// scalars alone (checked by its size on a scalar twice as large).
template <class M> constexpr bool model_gathers() {
  using T = typename M::space::scalar;
  using PM = decltype(std::declval<const M&>().template cast<PackOf<M>>());
  using TM = decltype(std::declval<const M&>().template cast<detail::Twice<T>>());
  return std::is_trivially_copyable_v<M> && std::is_trivially_copyable_v<PM> && sizeof(M) % sizeof(T) == 0 && sizeof(TM) == 2 * sizeof(M) &&
         sizeof(PM) == std::size_t(PackOf<M>::size) * sizeof(M);
}

/// Whether a run of model M goes on packs: asked for (`simd`), M runs on packs, and its models are
/// shared or gather into one packed model.
template <class M> constexpr bool runs_on_packs(bool simd, bool per_member_models) {
  if constexpr (PackModel<M>) return simd && (!per_member_models || model_gathers<M>());
  else return false;
}

/// Pack PT's lanes from W scalars.
template <class PT> PT to_pack(const typename PT::value_type (&x)[PT::size]) { return PT::load(x); }
template <class PT, class I> lanes_t<PT, I> to_lanes(const I (&x)[PT::size]) { return lanes_t<PT, I>::load(x); }

/// W members' step controls in the lanes of one.
template <class PT> StepControl<PT> pack_control(const StepControl<typename PT::value_type> (&c)[PT::size]) {
  using T = typename PT::value_type;
  using C = StepControl<T>;
  constexpr int W = PT::size;
  auto field = [&](T C::*f) {
    alignas(64) T a[W];
    for (int l = 0; l < W; ++l) a[l] = c[l].*f;
    return PT::load(a);
  };
  StepControl<PT> r;
  r.h = field(&C::h);
  r.atol = field(&C::atol);
  r.rtol = field(&C::rtol);
  r.h_min = field(&C::h_min);
  r.h_max = field(&C::h_max);
  // A float pack's counts are 32-bit: larger caps are 2³¹ − 1 attempts (never reached in float).
  long caps[W];
  for (int l = 0; l < W; ++l)
    caps[l] = std::min<long>(c[l].max_attempts, std::numeric_limits<typename decltype(r.max_attempts)::J>::max());
  r.max_attempts = lanes_t<PT, long>::load(caps);
  r.safety = field(&C::safety);
  r.grow = field(&C::grow);
  r.shrink = field(&C::shrink);
  return r;
}

/// W members' models in the lanes of one, field by field (model_gathers<M>()).
template <class M> auto pack_model(const M (&m)[PackOf<M>::size]) {
  using T = typename M::space::scalar;
  using PM = decltype(m[0].template cast<PackOf<M>>());
  static_assert(model_gathers<M>(), "per-member models on packs need a model made of scalars alone");
  constexpr int W = PackOf<M>::size, F = int(sizeof(M) / sizeof(T));
  alignas(64) T lanes[F][W];
  for (int l = 0; l < W; ++l) {
    T fields[F];
    std::memcpy(fields, &m[l], sizeof(M));
    for (int f = 0; f < F; ++f) lanes[f][l] = fields[f];
  }
  PM r;
  std::memcpy(static_cast<void*>(&r), lanes, sizeof(PM));
  return r;
}

/// Members of a stream (up to `stream` consecutive members of a batch) advanced through one chunk of
/// time in the W lanes of a pack, the scalar ChunkMember's work for each of them, samples and
/// crossings written per lane. A lane whose member is done with the chunk (finished, failed or
/// paused) takes the stream's next member, so that the pack's lanes stay busy when members take very
/// different numbers of steps (adaptive ensembles; docs/packs.md); once the stream is used up,
/// lanes without a member idle. Each lane computes what the scalar body computes for its member,
/// whichever lane and whichever companions it has, so results do not depend on the stream, threads
/// or chunks.
template <class Method, bool adaptive, class Model, class Section> struct PackedChunkMember {
  using P = typename Model::space::point;
  using T = typename P::scalar;
  using PT = PackOf<Model>;
  static constexpr int W = PT::size;
  static constexpr std::size_t stream = std::size_t(16 * W);  ///< members per call
  static constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  ChunkInputs<Model, Section> a;
  LaneCounts* counts;

  /// Streams covering n members.
  static std::size_t streams(std::size_t n) { return (n + stream - 1) / stream; }

  void operator()(std::size_t p) const {
    const StateView<P>& st = a.st;
    const std::size_t end = std::min(st.n, (p + 1) * stream);
    std::size_t next = p * stream, member[W];
    Trajectory<P> s[W];
    alignas(64) T t0[W]{}, t1[W]{};
    StepControl<T> c[W];
    Model m[W];
    long before[W];
    long used = 0, slots = 0;
    // Lane l takes the stream's next member, or idles (status ok) on a copy of what it holds.
    auto take = [&](int l) {
      if (next == end) {
        member[l] = none;
        s[l].status = Status::ok;
        return;
      }
      const std::size_t i = member[l] = next++;
      s[l] = st.load(i);
      t0[l] = a.t0v[i];
      t1[l] = a.t1v[i];
      c[l] = a.ctl[i];
      m[l] = a.models[i];
      before[l] = s[l].steps + s[l].rejected;
    };
    take(0);
    for (int l = 1; l < W; ++l) {
      s[l] = s[0], t0[l] = t0[0], t1[l] = t1[0], c[l] = c[0], m[l] = m[0];
      take(l);
    }
    const auto shared = a.models.shared.template cast<PT>();
    auto record = [&](int l, int k, T t, const P& y) { a.record(member[l], m[l], k, t, y); };
    auto on_hit = [&](int l, T t, const P& y, bool confirmed) { a.hit(member[l], m[l], t, y, confirmed); };
    auto model = [&](int l) { return m[l]; };
    for (;;) {
      Trajectory<typename decltype(shared)::space::point> q;
      alignas(64) T x[W];
      for (int d = 0; d < P::size; ++d) {
        for (int l = 0; l < W; ++l) x[l] = s[l].y[d];
        q.y[d] = PT::load(x);
      }
      alignas(64) T h[W];
      long j[W], steps[W], rejected[W];
      int sample[W];
      Status status[W];
      for (int l = 0; l < W; ++l) {
        x[l] = s[l].t, h[l] = s[l].h, j[l] = s[l].j, steps[l] = s[l].steps, rejected[l] = s[l].rejected;
        sample[l] = s[l].sample, status[l] = s[l].status;
      }
      q.t = to_pack<PT>(x);
      q.h = to_pack<PT>(h);
      q.j = to_lanes<PT, long>(j);
      q.steps = to_lanes<PT, long>(steps);
      q.rejected = to_lanes<PT, long>(rejected);
      q.sample = to_lanes<PT, int>(sample);
      q.status = to_lanes<PT, Status>(status);
      const PT p0 = to_pack<PT>(t0), p1 = to_pack<PT>(t1);
      const Leg<PT> leg{.t0 = p0,
                        .t1 = p1,
                        .samples = a.plan.samples,
                        .pause = a.plan.pause(a.leg, p0, p1),
                        .sample_end = a.plan.sample_end(a.leg),
                        .until_any = next < end};
      const long taken = advance<Method, adaptive>(
          a.models.per ? pack_model(m) : shared, q, leg, pack_control<PT>(c),
          Hooks{.record = record, .section = a.sec, .on_hit = on_hit, .lanes = model, .interrupt = [&] { return a.stopped(); }});
      slots += W * taken;
      for (int l = 0; l < W; ++l) s[l].y = lane(q.y, l);
      const auto qj = q.j.array(), qs = q.steps.array(), qr = q.rejected.array(), qk = q.sample.array();
      const auto qst = q.status.array();
      int busy = 0;
      for (int l = 0; l < W; ++l) {
        s[l].t = lane(q.t, l), s[l].h = lane(q.h, l), s[l].j = qj[l], s[l].steps = qs[l], s[l].rejected = qr[l];
        s[l].sample = qk[l], s[l].status = qst[l];
        if (member[l] == none) continue;
        if (s[l].status == Status::running && s[l].t < a.plan.pause(a.leg, t0[l], t1[l])) {
          ++busy;
          continue;
        }
        st.store(member[l], s[l]);
        used += s[l].steps + s[l].rejected - before[l];
        take(l);
        busy += member[l] != none;
      }
      if (busy == 0 || a.stopped()) break;  // (a stopped run's lanes are dropped with its results)
    }
    counts->used += used;
    counts->slots += slots;
  }
};

}  // namespace lb::engine
