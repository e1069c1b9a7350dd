// The symplectic methods as methods of the engine and the command line: the SLGI θ-family
// (slgi.hpp) and Hamilton–Pontryagin Störmer–Verlet and variational Euler
// (hamilton_pontryagin.hpp), for the canonical systems on T*SO(3) (CotangentModel). Apart from
// LB_METHODS because they serve only those models (MethodFor says which), while LB_METHODS's serve
// every model.
#pragma once
#include "hamilton_pontryagin.hpp"
#include "slgi.hpp"

namespace lb {

/// A CotangentModel that the variational integrators step in body form: the inertia about the
/// fixed point and the body torque at an attitude.
template <class M>
concept BodyTorqueModel = CotangentModel<M> && requires(const M& m, const Mat3<typename M::space::scalar>& Q) {
  { m.body_inertia() } -> std::same_as<Vec3<typename M::space::scalar>>;
  { m.body_torque(Q) } -> std::same_as<Vec3<typename M::space::scalar>>;
};

/// The Hamilton–Pontryagin integrators with τ ([BRM07 §4]) as methods of the engine, hp_step with
/// θ = num/den: Störmer–Verlet (θ = ½, second order) and variational Euler (θ = 0, first order), in
/// the state's own (Q, μ) (hp_step_spatial, with ν = Qᵀμ for the solve). Newton starts from
/// hp_guess = J⁻¹ν plus the correction the previous step's solve made to its own (warm: kept as
/// correction/h, as ξ − J⁻¹ν is O(h)). Störmer–Verlet's first kick evaluates the torque again (no
/// FSAL across steps: the engine keeps the point and ξ only); variational Euler has no first kick.
/// A failed solve returns yₙ with StepResult::failed. Not on packs (Newton branches per member).
template <class Tau, int num = 1, int den = 2> struct HamiltonPontryagin {
  static constexpr int order = 2 * num == den ? 2 : 1;
  static constexpr int order_hat = 0;
  static constexpr int stages = 1;
  static constexpr bool packs = false;
  static constexpr bool implicit = true;
  static constexpr int warm = 3;  ///< (ξ − J⁻¹ν)/h of the last solve

  /// A step without a previous solution (from hp_guess alone).
  template <BodyTorqueModel Model>
  LB_HD static StepResult<typename Model::space::point> step(const Model& model, typename Model::space::scalar t,
                                                             const typename Model::space::point& y,
                                                             typename Model::space::scalar h) {
    Vec3<typename Model::space::scalar> w{};
    return step(model, t, y, h, w, false);
  }
  template <BodyTorqueModel Model>
  LB_HD static StepResult<typename Model::space::point> step(const Model& model, typename Model::space::scalar,
                                                             const typename Model::space::point& y,
                                                             typename Model::space::scalar h,
                                                             Vec3<typename Model::space::scalar>& w, bool have) {
    using T = typename Model::space::scalar;
    const Mat3<T> Q0 = Model::Q(y);
    const Vec3<T> mu = Model::mu(y), nu0 = Q0.transpose() * mu;  // ν only poses the solve: μ is kept
    const Vec3<T> guess = hp_guess(model.body_inertia(), nu0);
    const HpSpatialResult<T> r = hp_step_spatial<Tau, num, den>(model, Q0, mu, nu0, h, have ? guess + h * w : guess);
    const bool ok = r.status == Status::ok;
    if (ok) w = (T(1) / h) * (r.xi - guess);
    return {ok ? Model::from_cotangent(r.g, r.mu) : y, Model::space::point::zero(), false, !ok, r.iterations};
  }
};

/// The symplectic methods, X(name, description, type), for the command line's list and dispatch.
#define LB_SYMPLECTIC_METHODS(X)                                                                           \
  X(slgi0, "SLGI theta = 0, symplectic on T*SO(3), implicit (Newton)", SLGI<0, 1>)                       \
  X(slgi_half, "SLGI theta = 1/2, symplectic and symmetric on T*SO(3), implicit (Newton)", SLGI<1, 2>)   \
  X(slgi1, "SLGI theta = 1, symplectic on T*SO(3), implicit (Newton)", SLGI<1, 1>)                       \
  X(hp_sv_exp, "Hamilton-Pontryagin Stormer-Verlet, tau = exp, symplectic on T*SO(3), implicit (Newton)", HamiltonPontryagin<TauExp>) \
  X(hp_sv_cay, "Hamilton-Pontryagin Stormer-Verlet, tau = Cayley, symplectic on T*SO(3), implicit (Newton)", HamiltonPontryagin<TauCay>) \
  X(hp_ve_exp, "Hamilton-Pontryagin variational Euler, tau = exp, symplectic on T*SO(3), implicit (Newton)", HamiltonPontryagin<TauExp, 0, 1>) \
  X(hp_ve_cay, "Hamilton-Pontryagin variational Euler, tau = Cayley, symplectic on T*SO(3), implicit (Newton)", HamiltonPontryagin<TauCay, 0, 1>)

namespace methods {
using hp_sv_exp = HamiltonPontryagin<TauExp>;  ///< Störmer–Verlet, τ = exp
using hp_sv_cay = HamiltonPontryagin<TauCay>;  ///< Störmer–Verlet, τ = Cayley (error constant ~ ω³: docs/symplectic.md §6)
using hp_ve_exp = HamiltonPontryagin<TauExp, 0, 1>;  ///< variational Euler, τ = exp
using hp_ve_cay = HamiltonPontryagin<TauCay, 0, 1>;  ///< variational Euler, τ = Cayley
}  // namespace methods

}  // namespace lb
