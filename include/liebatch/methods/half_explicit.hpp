// One step of a half-explicit Runge–Kutta method for a constrained mechanical system on a Lie group
// ([ArnHE] eqs (3), (4a)–(4c); docs/constrained.md §2–§3), one trajectory, host and device: fixed
// control flow, fixed-size arrays, one r×r linear solve per stage, no allocation, no exceptions.
//
// Local coordinates about q_m: Q = q_m·exp(Θ) with Θ̇ = dexp⁻¹_{−Θ}(V) ([ArnHE] (3), T⁻¹(Θ) being
// dexp⁻¹ at −Θ for the right translation q_m·exp(Θ)). Stage 1 is explicit in λ_m; stage i = 2 … s̄
// solves for (V̇_i, Λ_i) from
//   M V̇_i + B(Q_i)ᵀΛ_i = −g(Q_i, V_i, t + c_i h),   B(Q_{i+1}) V_{i+1} = 0  (V_{i+1} linear in V̇_i),
// by the Schur complement: (B(Q_{i+1}) M⁻¹ B(Q_i)ᵀ) Λ_i = B(Q_{i+1}) (V_crr/(h a_{i+1,i}) − M⁻¹g_i),
// V_crr = v_m + h Σ_{j<i} a_{i+1,j} V̇_j, then V̇_i = −M⁻¹(g_i + B(Q_i)ᵀΛ_i). Stage i needs
// Q_{i+1}, which is known first because Θ̇_i does not depend on V̇_i.
#pragma once
#include "../constrained_model.hpp"
#include "half_explicit_tableau.hpp"
#include "step.hpp"

namespace lb {

/// The outcome of one step: the new state; the embedded estimate h Σⱼ (bⱼ − b̂ⱼ)(Θ̇ⱼ, V̇ⱼ) of the
/// local error in the coordinates Θ and in v; `singular` when a stage rotation angle reached
/// dexp⁻¹'s singular range; `failed` when a stage's Schur matrix was singular or not finite (the
/// state is then unspecified; both end the trajectory).
template <ConstrainedModel M> struct HalfExplicitResult {
  using vec = typename M::group::algebra::vec;
  ConstrainedState<M> y;
  vec err_theta, err_v;
  bool singular = false;
  bool failed = false;
};

/// One step of size h from y at time t with the tableau `tab` (tableaux::hedop5).
template <ConstrainedModel M, int SBar>
LB_HD HalfExplicitResult<M> half_explicit_step(const M& m, const HalfExplicitTableau<SBar>& tab, const ConstrainedState<M>& y,
                                               typename M::scalar t, typename M::scalar h) {
  using T = typename M::scalar;
  using G = typename M::group;
  using A = typename G::algebra;
  using vec = typename A::vec;
  constexpr int R = M::constraints;
  // dexp⁻¹ is singular at a rotation angle of 2π; stay 0.1 below it (docs/constrained.md §3).
  constexpr double angle_max = 2 * 3.14159265358979323846 - 0.1;

  HalfExplicitResult<M> out;
  vec thetadot[SBar], vdot[SBar];
  Vec<T, R> Lambda[SBar];
  // Θ and V of stage i from row i over stages j < n (n = i for a stage, i + 1 for the correction).
  auto theta_of = [&](int i, int n) {
    vec th = vec::zero();
    for (int j = 0; j < n; ++j) th += (h * tab.a[i][j].template as<T>()) * thetadot[j];
    return th;
  };
  auto v_of = [&](int i, int n) {
    vec w = y.v;
    for (int j = 0; j < n; ++j) w += (h * tab.a[i][j].template as<T>()) * vdot[j];
    return w;
  };

  // Stage 1: Θ = 0, Q = q_m, V = v_m, Λ = λ_m, explicit.
  thetadot[0] = y.v;
  Lambda[0] = y.lambda;
  vdot[0] = -m.inverse_mass(y.q, m.forces(y.q, y.v, t) + m.gradient(y.q).transpose_times(y.lambda));
  auto too_large = [&](const vec& theta) { return !(A::angle2(theta) < T(angle_max * angle_max)); };
  // Stage i's Θ, Q and B(Q); stage i computes stage i+1's for its constraint and hands them on.
  vec theta = theta_of(1, 1);
  G Q = y.q * G::exp(theta);
  auto B = m.gradient(Q);
  out.singular = too_large(theta);
  for (int i = 1; i < SBar; ++i) {
    const vec V = v_of(i, i);
    thetadot[i] = A::dexpinv(-theta, V);
    const vec theta_next = theta_of(i + 1, i + 1);
    out.singular = out.singular || too_large(theta_next);
    const G Q_next = y.q * G::exp(theta_next);
    const auto B_next = m.gradient(Q_next);
    const T ti = t + tab.c[i].template as<T>() * h;
    const T ha = h * tab.a[i + 1][i].template as<T>();
    const vec Minv_g = m.inverse_mass(Q, m.forces(Q, V, ti));
    if (!lu_solve<R>(schur_matrix(m, Q, B_next, B), B_next * ((T(1) / ha) * v_of(i + 1, i) - Minv_g), Lambda[i]))
      out.failed = true;
    vdot[i] = -(Minv_g + m.inverse_mass(Q, B.transpose_times(Lambda[i])));
    theta = theta_next, Q = Q_next, B = B_next;
  }

  const int s = tab.s;
  out.y.q = y.q * G::exp(theta_of(s, s));
  out.y.v = v_of(s, s);
  out.y.lambda = Vec<T, R>::zero();
  out.err_theta = vec::zero();
  out.err_v = vec::zero();
  for (int j = 0; j < SBar; ++j) {
    out.y.lambda += tab.d[j].template as<T>() * Lambda[j];
    const T e = h * (tab.a[s][j].template as<T>() - tab.bhat[j].template as<T>());
    out.err_theta += e * thetadot[j];
    out.err_v += e * vdot[j];
  }
  return out;
}

/// Where a fixed-step run ended: the state (the last good one if the run failed), its time, the
/// steps taken and how it ended.
template <ConstrainedModel M> struct HalfExplicitOutcome {
  ConstrainedState<M> y;
  typename M::scalar t;
  long steps;
  Status status;
};

/// n steps of size (t1 − t0)/n from y0 at t0 (λ₀ consistent: consistent_multiplier). A step ends
/// the run, keeping the state before it, with Status::dexpinv_singular (a stage angle near 2π),
/// constraint_solve_failed (a singular or non-finite Schur matrix) or nonfinite (a NaN or Inf in
/// the new state: a blown-up multiplier recursion can keep every Schur matrix regular, since on
/// the heavy top it is constant, and leave only the state to show it).
template <ConstrainedModel M, int SBar>
LB_HD HalfExplicitOutcome<M> integrate_half_explicit(const M& m, const HalfExplicitTableau<SBar>& tab,
                                                     const ConstrainedState<M>& y0, typename M::scalar t0,
                                                     typename M::scalar t1, long n) {
  using T = typename M::scalar;
  HalfExplicitOutcome<M> o{y0, t0, 0, Status::ok};
  const T h = (t1 - t0) / T(n);
  for (; o.steps < n; ++o.steps) {
    const auto r = half_explicit_step(m, tab, o.y, o.t, h);
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
