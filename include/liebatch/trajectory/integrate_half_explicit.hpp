// The fixed-step driver of a half-explicit method on a ConstrainedModel (methods/half_explicit.hpp,
// [ArnHE]), in the argument order and with the result of integrate_fixed (integrate.hpp).
#pragma once
#include "../methods/half_explicit.hpp"
#include "integrate.hpp"

namespace lb {

/// n steps of size (t1 − t0)/n from y0 at t0 (λ₀ consistent: consistent_multiplier). A step ends
/// the run, keeping the state before it, with Status::dexpinv_singular (a stage angle near 2π),
/// constraint_solve_failed (a singular or non-finite Schur matrix) or nonfinite (a NaN or Inf in
/// the new state: a blown-up multiplier recursion can keep every Schur matrix regular, since on
/// the heavy top it is constant, and leave only the state to show it).
/// The argument order and the result (Outcome: no rejections, no Newton iterations) are those of
/// integrate_fixed (trajectory/integrate.hpp), which runs the same steps on a ConstrainedSystem.
template <const auto& tab, ConstrainedModel M>
LB_HD Outcome<ConstrainedState<M>, typename M::scalar> integrate_half_explicit(const M& m, typename M::scalar t0, typename M::scalar t1,
                                                                               const ConstrainedState<M>& y0, long n) {
  using T = typename M::scalar;
  Outcome<ConstrainedState<M>, T> o{y0, t0, 0, 0, Status::ok, 0, 0};
  const T h = (t1 - t0) / T(n);
  for (; o.steps < n; ++o.steps) {
    const auto r = half_explicit_step<tab>(m, o.y, o.t, h);
    const auto q = r.y.q.embed();
    bool finite = true;
    for (int k = 0; k < q.size; ++k) finite = finite && lb::isfinite(q[k]);
    for (int k = 0; k < r.y.v.size; ++k) finite = finite && lb::isfinite(r.y.v[k]);
    for (int k = 0; k < M::constraints; ++k) finite = finite && lb::isfinite(r.y.lambda[k]);
    o.status = r.singular ? Status::dexpinv_singular
               : r.failed ? Status::constraint_solve_failed
               : !finite  ? Status::nonfinite
                          : Status::ok;
    if (o.status != Status::ok) break;
    o.y = r.y;
    o.t = t0 + T(o.steps + 1) * h;
  }
  return o;
}

}  // namespace lb
