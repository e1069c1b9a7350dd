// The contract of a one-step method: its orders and stage count, and one step of a model.
#pragma once
#include <concepts>

#include "../model.hpp"
#include "step.hpp"

namespace lb {

/// Whether M steps constrained systems (`static constexpr bool constrained = true`: the
/// half-explicit methods), which no other method may (model_constrained).
template <class M> constexpr bool method_constrained() {
  if constexpr (requires { M::constrained; }) return M::constrained;
  else return false;
}

/// M steps models of kind Mod: `step(model, t, y, h)` returns the new point, an error estimate
/// and whether dexp⁻¹ was singular (step.hpp); `order`, `order_hat` (0: no embedded pair, no
/// adaptive steps) and `stages` describe it. A constrained system is stepped only by a method made
/// for it.
template <class M, class Mod>
concept MethodFor = Model<Mod> && (!model_constrained<Mod>() || method_constrained<M>()) && requires(const Mod& m, typename Mod::space::scalar t, const typename Mod::space::point& y) {
  requires std::same_as<std::remove_cv_t<decltype(M::order)>, int>;
  requires std::same_as<std::remove_cv_t<decltype(M::order_hat)>, int>;
  requires std::same_as<std::remove_cv_t<decltype(M::stages)>, int>;
  { M::step(m, t, y, t) } -> std::same_as<StepResult<typename Mod::space::point>>;
};

/// Whether the CPU engine may run method M on packs of members (pack.hpp): its step branches only
/// through lb::select/any/all. Explicit methods do; a method says otherwise with
/// `static constexpr bool packs = false;` (the implicit methods, whose Newton solves branch per member).
template <class M> constexpr bool method_packs() {
  if constexpr (requires { M::packs; }) return M::packs;
  else return true;
}

/// Whether M is implicit: its steps solve with Newton and report StepResult::iterations, which the
/// engine sums per member (`static constexpr bool implicit = true;`).
template <class M> constexpr bool method_implicit() {
  if constexpr (requires { M::implicit; }) return M::implicit;
  else return false;
}

/// Scalars an implicit method keeps of one step's solve to start the next one's (its warm start):
/// `static constexpr int warm = k;` with a step(model, t, y, h, Vec<T, k>& w, bool have) that
/// starts Newton from w when `have` (else from its explicit guess) and leaves its solution in w
/// when the solve succeeds. 0: none (explicit methods).
template <class M> constexpr int method_warm() {
  if constexpr (requires { M::warm; }) return M::warm;
  else return 0;
}

/// The status a member ends with when its step reports StepResult::failed: `static constexpr
/// Status failure` of the method (the half-explicit methods: constraint_solve_failed), else
/// nonlinear_solve_failed (the implicit methods' Newton).
template <class M> constexpr Status method_failure() {
  if constexpr (requires { M::failure; }) return M::failure;
  else return Status::nonlinear_solve_failed;
}

}  // namespace lb
