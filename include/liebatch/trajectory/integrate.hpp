// Single-trajectory drivers: the one-member case of the ensemble stepping in
// trajectory.hpp (fixed steps landing on t_end; adaptive steps with an embedded pair,
// [CCLMO22] eq. (33); docs/methods.md §6). Every exit carries a Status.
#pragma once
#include "trajectory.hpp"

namespace lb {

/// State of a trajectory after integration: what every driver returns.
template <class P, class T = typename P::scalar> struct Outcome {
  P y;            ///< final state (the last accepted one if the trajectory failed)
  T t;            ///< time reached
  long steps;     ///< accepted steps
  long rejected;  ///< rejected step attempts
  Status status;
  long iterations;     ///< implicit methods: Newton iterations of every attempt, summed (else 0)
  int iterations_max;  ///< implicit methods: the most of one attempt (else 0)
};

template <class P> LB_HD Outcome<P> outcome(const Trajectory<P>& s) {
  return {s.y, s.t, s.steps, s.rejected, s.status, s.iterations, s.iterations_max};
}

/// advance() to t1 without samples, an implicit method's warm start kept across its steps.
template <class Method, bool adaptive, class Model>
LB_HD void advance_to(const Model& model, Trajectory<typename Model::space::point>& s, typename Model::space::scalar t0,
                      typename Model::space::scalar t1, const StepControl<typename Model::space::scalar>& c) {
  using T = typename Model::space::scalar;
  const Leg<T> leg{.t0 = t0, .t1 = t1, .pause = t1};
  if constexpr (constexpr int k = method_warm<Method>(); k > 0) advance<Method, adaptive>(model, s, leg, c, Hooks{.warm = Vec<T, k>{}});
  else advance<Method, adaptive>(model, s, leg, c);
}

/// Fixed step h from t0 to t1: steps at t0 + k h, the last one shortened (or lengthened by at most
/// h/1024, trajectory.hpp's sliver) to end exactly at t1.
template <class Method, class Model>
  requires MethodFor<Method, Model>
LB_HD Outcome<typename Model::space::point> integrate_fixed(const Model& model, typename Model::space::scalar t0,
                                                            typename Model::space::scalar t1,
                                                            const typename Model::space::point& y0,
                                                            typename Model::space::scalar h, long max_steps) {
  using T = typename Model::space::scalar;
  StepControl<T> c;
  c.h = h;
  c.max_attempts = max_steps;
  auto s = start(y0, t0, h);
  if (s.status == Status::running && !(h > T(0))) s.status = Status::step_underflow;
  advance_to<Method, false>(model, s, t0, t1, c);
  return outcome(s);
}

/// Adaptive steps with an embedded pair: accept when the weighted error ≤ 1; either way the next
/// attempt is h·clamp(θ e^{−1/(p̂+1)}, shrink, grow) (no growth after a rejection). Non-finite
/// trials and singular dexp⁻¹ stages count as rejections with the largest shrink.
template <class Method, class Model>
  requires MethodFor<Method, Model>
LB_HD Outcome<typename Model::space::point> integrate_adaptive(const Model& model, typename Model::space::scalar t0,
                                                               typename Model::space::scalar t1,
                                                               const typename Model::space::point& y0,
                                                               const StepControl<typename Model::space::scalar>& c) {
  auto s = start(y0, t0, c.h < c.h_max ? c.h : c.h_max);
  advance_to<Method, true>(model, s, t0, t1, c);
  return outcome(s);
}

}  // namespace lb
