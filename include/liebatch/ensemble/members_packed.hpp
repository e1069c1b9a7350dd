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

/// Whether model M runs on packs: its scalar is float or double, it says so (`static constexpr bool
/// packs = true;`, a promise that its code branches only through lb::select/max/min/any/all;
/// docs/packs.md) and it casts to a pack.
template <class M>
concept PackModel = is_device_scalar_v<typename M::space::scalar> && requires { requires M::packs; } && requires(const M& m) {
  m.template cast<Pack<typename M::space::scalar>>();
};

/// Whether W members' models of type M transpose into the packed model field by field: M is made of
/// scalars alone (checked by its size on a scalar twice as large).
template <class M> constexpr bool model_gathers() {
  using T = typename M::space::scalar;
  using PM = decltype(std::declval<const M&>().template cast<Pack<T>>());
  using TM = decltype(std::declval<const M&>().template cast<detail::Twice<T>>());
  return std::is_trivially_copyable_v<M> && std::is_trivially_copyable_v<PM> && sizeof(M) % sizeof(T) == 0 &&
         sizeof(TM) == 2 * sizeof(M) && sizeof(PM) == std::size_t(Pack<T>::size) * sizeof(M);
}

/// Whether a run of model M goes on packs: asked for (`simd`), M runs on packs, and its models are
/// shared or gather into one packed model.
template <class M> constexpr bool runs_on_packs(bool simd, bool per_member_models) {
  if constexpr (PackModel<M>) return simd && (!per_member_models || model_gathers<M>());
  else return false;
}

/// Members i0 … i0 + count − 1 of a per-member input in the lanes of one value (lanes past count
/// repeat member i0): a shared value cast to the pack, per-member models transposed.
template <class M> auto gather_model(const MemberView<M>& v, std::size_t i0, int count) {
  using T = typename M::space::scalar;
  using PM = decltype(v.shared.template cast<Pack<T>>());
  if (!v.per) return v.shared.template cast<Pack<T>>();
  static_assert(model_gathers<M>(), "per-member models on packs need a model made of scalars alone");
  constexpr int W = Pack<T>::size, F = int(sizeof(M) / sizeof(T));
  alignas(64) T lanes[F][W];
  for (int l = 0; l < W; ++l) {
    T fields[F];
    std::memcpy(fields, &v.per[i0 + std::size_t(l < count ? l : 0)], sizeof(M));
    for (int f = 0; f < F; ++f) lanes[f][l] = fields[f];
  }
  PM r;
  std::memcpy(static_cast<void*>(&r), lanes, sizeof(PM));
  return r;
}

/// Members' scalar values v[i0 + l] in the lanes of a pack (lanes past count repeat lane 0).
template <class T, class F> Pack<T> gather(std::size_t i0, int count, F&& value) {
  alignas(64) T a[Pack<T>::size];
  for (int l = 0; l < Pack<T>::size; ++l) a[l] = value(i0 + std::size_t(l < count ? l : 0));
  return Pack<T>::load(a);
}
/// The same for an integer quantity; lanes past count hold `tail`, or repeat lane 0.
template <class I, class T, class F>
lanes_t<Pack<T>, I> gather_lanes(std::size_t i0, int count, F&& value, const I* tail = nullptr) {
  I a[Pack<T>::size];
  for (int l = 0; l < Pack<T>::size; ++l) a[l] = l < count || !tail ? value(i0 + std::size_t(l < count ? l : 0)) : *tail;
  return lanes_t<Pack<T>, I>::load(a);
}

/// Step controls of the members of a pack.
template <class T> StepControl<Pack<T>> gather_control(const MemberView<StepControl<T>>& v, std::size_t i0, int count) {
  using C = StepControl<T>;
  auto field = [&](T C::*f) { return gather<T>(i0, count, [&](std::size_t i) { return v[i].*f; }); };
  StepControl<Pack<T>> c;
  c.h = field(&C::h);
  c.atol = field(&C::atol);
  c.rtol = field(&C::rtol);
  c.h_min = field(&C::h_min);
  c.h_max = field(&C::h_max);
  // A float pack's counts are 32-bit: larger caps are 2³¹ − 1 attempts (never reached in float).
  c.max_attempts = gather_lanes<long, T>(i0, count, [&](std::size_t i) {
    return std::min<long>(v[i].max_attempts, std::numeric_limits<typename decltype(c.max_attempts)::J>::max());
  });
  c.safety = field(&C::safety);
  c.grow = field(&C::grow);
  c.shrink = field(&C::shrink);
  return c;
}

/// Members W·p … W·p + W − 1 advanced through one chunk of time in the lanes of a pack: the scalar
/// ChunkMember's work for each of them, the samples and crossings written per lane.
template <class Method, bool adaptive, class Model, class Section> struct PackedChunkMember {
  using P = typename Model::space::point;
  using T = typename P::scalar;
  using PT = Pack<T>;
  static constexpr int W = PT::size;
  ChunkInputs<Model, Section> a;

  /// Packs covering n members.
  static std::size_t packs(std::size_t n) { return (n + W - 1) / W; }

  void operator()(std::size_t p) const {
    const StateView<P>& st = a.st;
    const std::size_t i0 = p * W;
    const int count = int(std::min<std::size_t>(W, st.n - i0));
    const auto m = gather_model(a.models, i0, count);
    Trajectory<typename decltype(m)::space::point> s;
    for (int d = 0; d < P::size; ++d) s.y[d] = gather<T>(i0, count, [&](std::size_t i) { return st.y[d * st.n + i]; });
    s.t = gather<T>(i0, count, [&](std::size_t i) { return st.t[i]; });
    s.h = gather<T>(i0, count, [&](std::size_t i) { return st.h[i]; });
    s.j = gather_lanes<long, T>(i0, count, [&](std::size_t i) { return st.j[i]; });
    s.steps = gather_lanes<long, T>(i0, count, [&](std::size_t i) { return st.steps[i]; });
    s.rejected = gather_lanes<long, T>(i0, count, [&](std::size_t i) { return st.rejected[i]; });
    s.sample = gather_lanes<int, T>(i0, count, [&](std::size_t i) { return st.sample[i]; });
    const Status idle = Status::ok;  // empty lanes idle
    s.status = gather_lanes<Status, T>(i0, count, [&](std::size_t i) { return Status(st.status[i]); }, &idle);
    const PT t0 = gather<T>(i0, count, [&](std::size_t i) { return a.t0v[i]; });
    const PT t1 = gather<T>(i0, count, [&](std::size_t i) { return a.t1v[i]; });
    auto model = [&](int l) { return a.models[i0 + std::size_t(l)]; };
    auto record = [&](int l, int k, T t, const P& y) { a.record(i0 + std::size_t(l), model(l), k, t, y); };
    auto on_hit = [&](int l, T t, const P& y, bool confirmed) { a.hit(i0 + std::size_t(l), model(l), t, y, confirmed); };
    advance<Method, adaptive>(m, s, t0, t1, gather_control(a.ctl, i0, count), a.plan.samples, a.plan.pause(a.chunk, t0, t1),
                              record, a.sec, on_hit, default_hit_tol<T>(), model);
    alignas(64) T y[P::size][W], t[W], h[W];
    for (int d = 0; d < P::size; ++d) s.y[d].store(y[d]);
    s.t.store(t);
    s.h.store(h);
    const auto j = s.j.array(), steps = s.steps.array(), rejected = s.rejected.array(), sample = s.sample.array();
    const auto status = s.status.array();
    for (int l = 0; l < count; ++l) {
      const std::size_t i = i0 + std::size_t(l);
      for (int d = 0; d < P::size; ++d) st.y[d * st.n + i] = y[d][l];
      st.t[i] = t[l];
      st.h[i] = h[l];
      st.j[i] = j[l];
      st.steps[i] = steps[l];
      st.rejected[i] = rejected[l];
      st.sample[i] = sample[l];
      st.status[i] = std::uint8_t(status[l]);
    }
  }
};

}  // namespace lb::engine
