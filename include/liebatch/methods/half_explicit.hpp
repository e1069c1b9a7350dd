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
#include "../constrained_system.hpp"
#include "../product.hpp"
#include "half_explicit_tableau.hpp"
#include "step.hpp"

namespace lb {

/// The outcome of one step: the new state; the embedded estimate h Σⱼ (bⱼ − b̂ⱼ)(Θ̇ⱼ, V̇ⱼ) of the
/// local error in the coordinates Θ and in v; the multiplier defect |M⁻¹Bᵀ(λ − λ*)| / |M⁻¹(g + Bᵀλ*)|
/// at the new state, λ* the multiplier consistent with its (q, v) (consistent_multiplier);
/// `singular` when a stage rotation angle reached dexp⁻¹'s singular range; `failed` when a stage's
/// Schur matrix was singular or not finite, or the multiplier defect exceeds
/// half_explicit_defect_max (the state is then unspecified; both end the trajectory).
template <ConstrainedModel M> struct HalfExplicitResult {
  using vec = typename M::group::algebra::vec;
  ConstrainedState<M> y;
  vec err_theta, err_v;
  typename M::scalar multiplier_defect;
  bool singular = false;
  bool failed = false;
};

/// Beyond a step limit the multiplier recursion is unstable (docs/constrained.md §5): λ oscillates
/// and grows while (q, v) stay plausible for many steps, and a run can reach its end with λ off by
/// 100 % or more. The step therefore compares λ_{m+1} with λ*, the multiplier its own (q, v)
/// imply, by the accelerations they cause: apart by ≤ 2·10⁻¹⁰ of the acceleration in stable runs of
/// the Brüls–Cardona top, by 0.3 – 1.9 in unstable ones. A defect above this bound fails the step.
inline constexpr double half_explicit_defect_max = 1e-2;

/// One step of size h from y at time t with the tableau `tab` (tableaux::hedop5). Every
/// coefficient is a compile-time constant (the stage loop unrolled by static_for, zero
/// coefficients skipped), so device code reads no tableau from memory.
template <const auto& tab, ConstrainedModel M>
LB_HD HalfExplicitResult<M> half_explicit_step(const M& m, const ConstrainedState<M>& y, typename M::scalar t,
                                               typename M::scalar h) {
  using T = typename M::scalar;
  using G = typename M::group;
  using A = typename G::algebra;
  using vec = typename A::vec;
  constexpr int R = M::constraints, SBar = std::remove_cvref_t<decltype(tab)>::stages, s = tab.s;
  // dexp⁻¹ is singular at a rotation angle of 2π; stay 0.1 below it (docs/constrained.md §3).
  constexpr double angle_max = 2 * 3.14159265358979323846 - 0.1;

  HalfExplicitResult<M> out;
  vec thetadot[SBar], vdot[SBar];
  Vec<T, R> Lambda[SBar];
  // start + h Σ_{j<n} a_ij kⱼ over row i (n = i for a stage, i + 1 for the correction).
  auto row = [&]<int i, int n>(vec start, const vec* k) {
    static_for<n>([&](auto j) {
      constexpr Rational a = tab.a[i][decltype(j)::value];
      if constexpr (a.p != 0) start += (h * coefficient<T, a>()) * k[decltype(j)::value];
    });
    return start;
  };

  // Stage 1: Θ = 0, Q = q_m, V = v_m, Λ = λ_m, explicit.
  thetadot[0] = y.v;
  Lambda[0] = y.lambda;
  vdot[0] = -m.inverse_mass(y.q, m.forces(y.q, y.v, t) + m.gradient(y.q).transpose_times(y.lambda));
  auto too_large = [&](const vec& theta) { return !(A::angle2(theta) < T(angle_max * angle_max)); };
  // Stage i's Θ, Q and B(Q); stage i computes stage i+1's for its constraint and hands them on.
  vec theta = row.template operator()<1, 1>(vec::zero(), thetadot);
  G Q = y.q * G::exp(theta);
  auto B = m.gradient(Q);
  out.singular = too_large(theta);
  static_for<SBar - 1>([&](auto im1) {
    constexpr int i = decltype(im1)::value + 1;
    const vec V = row.template operator()<i, i>(y.v, vdot);
    thetadot[i] = A::dexpinv(-theta, V);
    const vec theta_next = row.template operator()<i + 1, i + 1>(vec::zero(), thetadot);
    out.singular = out.singular || too_large(theta_next);
    const G Q_next = y.q * G::exp(theta_next);
    const auto B_next = m.gradient(Q_next);
    constexpr Rational a_next = tab.a[i + 1][i];
    static_assert(a_next.p != 0, "stage i's constraint at stage i+1 needs a_{i+1,i} != 0");
    const vec Minv_g = m.inverse_mass(Q, m.forces(Q, V, t + coefficient<T, tab.c[i]>() * h));
    const vec V_crr = row.template operator()<i + 1, i>(y.v, vdot);
    if (!lu_solve<R>(schur_matrix(m, Q, B_next, B), B_next * ((T(1) / (h * coefficient<T, a_next>())) * V_crr - Minv_g), Lambda[i]))
      out.failed = true;
    vdot[i] = -(Minv_g + m.inverse_mass(Q, B.transpose_times(Lambda[i])));
    theta = theta_next, Q = Q_next, B = B_next;
  });

  out.y.q = y.q * G::exp(row.template operator()<s, s>(vec::zero(), thetadot));
  out.y.v = row.template operator()<s, s>(y.v, vdot);
  out.y.lambda = Vec<T, R>::zero();
  out.err_theta = vec::zero();
  out.err_v = vec::zero();
  static_for<SBar>([&](auto j_) {
    constexpr int j = decltype(j_)::value;
    constexpr Rational d = tab.d[j], e = difference(tab.a[s][j], tab.bhat[j]);
    if constexpr (d.p != 0) out.y.lambda += coefficient<T, d>() * Lambda[j];
    if constexpr (e.p != 0) {
      out.err_theta += (h * coefficient<T, e>()) * thetadot[j];
      out.err_v += (h * coefficient<T, e>()) * vdot[j];
    }
  });
  // λ* at the new state, from one evaluation of B and M⁻¹g there.
  Vec<T, R> consistent;
  const auto B1 = m.gradient(out.y.q);
  const vec Minv_g1 = m.inverse_mass(out.y.q, m.forces(out.y.q, out.y.v, t + h));
  const bool solved = consistent_multiplier(m, out.y.q, out.y.v, B1, Minv_g1, consistent);
  const vec accel = Minv_g1 + m.inverse_mass(out.y.q, B1.transpose_times(consistent));
  out.multiplier_defect = norm(m.inverse_mass(out.y.q, B1.transpose_times(out.y.lambda - consistent))) / norm(accel);
  // Written so that a NaN defect fails; 0/0 (no force, no multiplier: at rest) does not.
  const bool at_rest = norm(accel) == T(0) && norm(out.y.lambda - consistent) == T(0);
  out.failed = out.failed || !solved || !(at_rest || out.multiplier_defect <= T(half_explicit_defect_max));
  return out;
}

/// A half-explicit method as a method of the engine (method.hpp), for ConstrainedSystem models:
/// one half_explicit_step on the point's (q, v, λ). The error estimate, in embedding coordinates,
/// is q·(err_Θ)~ for q (the derivative of q·exp(Θ) along err_Θ), err_v for v and 0 for λ (algebraic,
/// not estimated), so adaptive steps control q and v with order_hat = 4 (docs/constrained.md §5). A
/// singular or non-finite Schur matrix is StepResult::failed, which ends a fixed-step member with
/// Status::constraint_solve_failed and rejects an adaptive step. Not on packs (lu_solve pivots per
/// member). No FSAL: stage 1's forces are evaluated again (the engine keeps the point only).
template <const auto& tab> struct HalfExplicit {
  static constexpr int order = tab.order;
  static constexpr int order_hat = tab.order_hat;
  static constexpr int stages = std::remove_cvref_t<decltype(tab)>::stages;
  static constexpr bool packs = false;
  static constexpr bool constrained = true;
  static constexpr Status failure = Status::constraint_solve_failed;

  template <class Model>
    requires(model_constrained<Model>())
  LB_HD static StepResult<typename Model::point> step(const Model& model, typename Model::T t, const typename Model::point& y,
                                                       typename Model::T h) {
    const auto r = half_explicit_step<tab>(model.system, Model::unpack(y), t, h);
    const typename Model::point err =
        concat(concat(r.y.q.generator(r.y.q.Ad(r.err_theta)), r.err_v), Vec<typename Model::T, Model::r>::zero());
    return {Model::pack(r.y), err, r.singular, r.failed};
  }
};

/// The half-explicit methods, X(name, description, type), for the command line's list and dispatch:
/// apart from LB_METHODS because they serve only constrained systems (MethodFor).
#define LB_CONSTRAINED_METHODS(X) \
  X(hedop5, "HEDOP5, half-explicit Dormand-Prince 5(4) for index-2 constrained systems (Arnold)", HalfExplicit<tableaux::hedop5>)

namespace methods {
using hedop5 = HalfExplicit<tableaux::hedop5>;  ///< HEDOP5 [ArnHE], order 5, embedded order 4
}  // namespace methods

}  // namespace lb
