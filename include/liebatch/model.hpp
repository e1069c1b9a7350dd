// The contract of a model: a vector field on a homogeneous space given through the action,
// ẏ = ψ_*(f(t, y))|_y with f : ℝ × M → 𝔤 ([MK98]; docs/spaces-and-models.md), as every model
// of models/ and a user's own (examples/user_model.cpp) write it; and what a model says about
// itself beyond f, each optional with a default: its observables, the set its states live on
// (defect, projection), and the names of the state's components and of its observables.
#pragma once
#include <concepts>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "homogeneous_space.hpp"

namespace lb {

/// M: `space`, a HomogeneousSpace, and `f(t, y)`, the algebra element that moves y at time t. A
/// model is copied by value to every member (into GPU memory too), so it is trivially copyable:
/// parameters, not pointers to them. Optionally `observables(y)`, recorded at samples and hits, and
/// `static constexpr bool packs = true` with `cast<U>()`: the CPU engine may then run it on packs of
/// members, its code branching only through lb::select/max/min/any/all (docs/packs.md §5).
template <class M>
concept Model = HomogeneousSpace<typename M::space> && std::is_trivially_copyable_v<M> &&
                requires(const M& m, typename M::space::scalar t, const typename M::space::point& y) {
                  { m.f(t, y) } -> std::same_as<typename M::space::algebra::vec>;
                };

/// Number of observables a model records: the size of the Vec `observables(y)` returns, recorded
/// at output samples and section hits (energy, Casimirs, constraints); 0 when it defines none.
template <class M> constexpr int observable_count() {
  if constexpr (requires(const M& m, const typename M::space::point& y) { m.observables(y); }) {
    return decltype(std::declval<const M&>().observables(std::declval<const typename M::space::point&>()))::size;
  } else {
    return 0;
  }
}

/// Whether M is a constrained system (constrained_system.hpp: `static constexpr bool constrained =
/// true`), whose state carries a multiplier that only a half-explicit method advances (MethodFor).
template <class M> constexpr bool model_constrained() {
  if constexpr (requires { M::constrained; }) return M::constrained;
  else return false;
}

/// A model whose parameters convert to scalar U: `m.cast<U>()` is the same model in U. The command
/// line needs it for float, double and long double (one set of parameters runs in each,
/// cli/models/runner.hpp), the CPU packs for Pack<T> (PackModel). Not part of Model: a model run in
/// one scalar needs no cast.
template <class M, class U>
concept CastsTo = Model<M> && requires(const M& m) {
  { m.template cast<U>() } -> Model;
} && std::same_as<typename decltype(std::declval<const M&>().template cast<U>())::space::scalar, U>;

/// y's distance from the set M's states live on, and a point of that set near y: the model's own
/// static `defect`/`project` where it narrows its space (the heavy top's |Γ| = 1 on se*(3)), else
/// the space's.
template <Model M> LB_HD typename M::space::scalar defect(const typename M::space::point& y) {
  if constexpr (requires { M::defect(y); }) return M::defect(y);
  else return M::space::defect(y);
}
template <Model M> LB_HD typename M::space::point project(const typename M::space::point& y) {
  if constexpr (requires { M::project(y); }) return M::project(y);
  else return M::space::project(y);
}

/// Names of the state's components (host only): the model's static `state_names()`, else
/// y0, y1, …; and of its observables: `observable_names()`, else obs0, obs1, ….
template <Model M> std::vector<std::string> state_names() {
  if constexpr (requires { M::state_names(); }) {
    return M::state_names();
  } else {
    std::vector<std::string> v;
    for (int i = 0; i < M::space::dim; ++i) v.push_back(std::string(1, 'y') += std::to_string(i));  // not "y" + …: GCC 12's -Wrestrict
    return v;
  }
}
template <Model M> std::vector<std::string> observable_names() {
  if constexpr (requires { M::observable_names(); }) {
    return M::observable_names();
  } else {
    std::vector<std::string> v;
    for (int i = 0; i < observable_count<M>(); ++i) v.push_back(std::string("obs") += std::to_string(i));
    return v;
  }
}

}  // namespace lb
