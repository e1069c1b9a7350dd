// The symplectic Lie group integrators (SLGI) of [CCLMO22 §3.2, eqs (15)–(17)] ([Cok24] (2.3.6)–
// (2.3.8), whose print is the readable one), a θ-family on T*G ≅ G × 𝔤* by right trivialisation
// (μ = R_g* p_g, the spatial momentum). Given (g₀, μ₀) and h, solve for (ξ, n̄) ∈ 𝔤 × 𝔤*
//   M_θ    = dexp*_{−ξ}(μ₀ + Ad*_{exp(θξ)} n̄) − θ dexp*_{−θξ} Ad*_{exp(θξ)} n̄       (15)
//   (ξ, n̄) = h f(exp(θξ) g₀, M_θ)                                                   (16)
// and step to
//   g₁ = exp(ξ) g₀,   μ₁ = Ad*_{exp((θ−1)ξ)} n̄ + Ad*_{exp(−ξ)} μ₀                    (17)
// with f(g, μ) = (∂H/∂μ, −R_g*∂H/∂g) ([CCLMO22 eq. (14)]) given by the model as cotangent_f(g, μ).
// θ = ½ is symmetric and of order 2, θ = 0 and θ = 1 are each other's adjoint and of order 1; all
// are symplectic and preserve the momentum map of a symmetry of H (docs/symplectic.md). The step
// solves (16) by Newton (newton.hpp) with the Jacobian from dual numbers through this same code,
// its last update refined in double words (newton_refined).
#pragma once
#include <concepts>
#include <type_traits>

#include "../so3.hpp"
#include "../sphere.hpp"
#include "newton.hpp"
#include "step.hpp"

namespace lb {

/// SO(3) for SLGI, acting on T*SO(3) ≅ SO(3) × so*(3) (pairing: the dot product). Points are
/// rotation matrices; every function takes any scalar S, Dual numbers included.
struct CotangentSO3 {
  static constexpr int dim = 3;
  template <class S> using point = Mat3<S>;
  template <class S> using element = Mat3<S>;

  /// exp(x), the group element.
  template <class S> LB_HD static Mat3<S> exp(const Vec3<S>& x) { return SO3<S>::exp(x).R; }
  /// E g.
  template <class S> LB_HD static Mat3<S> mul(const Mat3<S>& E, const Mat3<S>& g) { return E * g; }
  /// exp(x) g for the new point: SO3::exp_mul, whose rounding does not drift with the step count.
  template <class S> LB_HD static Mat3<S> exp_mul(const Vec3<S>& x, const Mat3<S>& g) {
    return SO3<S>::exp_mul(x, SO3<S>{g}).R;
  }
  /// Ad*_E v = Eᵀ v: Ad_E ξ = E ξ, and the pairing is the dot product.
  template <class S> LB_HD static Vec3<S> coAd(const Mat3<S>& E, const Vec3<S>& v) { return E.transpose() * v; }
  /// Ad*_{exp(x)⁻¹} v = exp(x) v by Rodrigues as an increment, v + s x×v + c x×(x×v): a rotation
  /// matrix rounded to storage and applied to the large spatial momentum every step biases it by the
  /// same O(ε|v|) each step (the linear drift of SO3::exp_mul's comment); the increment's rounding
  /// follows v's digits instead.
  template <class S> LB_HD static Vec3<S> exp_act(const Vec3<S>& x, const Vec3<S>& v) { return S2<S>::exp_act(x, v); }
  /// dexp*_{−x} v = (dexp_{−x})ᵀ v = dexp_x v: hat(x) is skew, so (dexp_{−x})ᵀ = dexp_x as matrices.
  template <class S> LB_HD static Vec3<S> dexp_star_neg(const Vec3<S>& x, const Vec3<S>& v) {
    return so3<S>::dexp(x, v);
  }
  /// Whether exp is injective at x: |x| < π (beyond it the step's rotation is not the one solved for).
  template <class T> LB_HD static bool injective(const Vec3<T>& x) { return norm2(x) < lb::pi<T>() * lb::pi<T>(); }
  /// g in the scalar U.
  template <class U, class S> LB_HD static Mat3<U> lift(const Mat3<S>& g) {
    return Mat3<U>::from_flat(lb::cast<U>(g.flat()));
  }
};

/// The abelian group (ℝⁿ, +): exp = id, Ad = id, dexp = id. On it SLGI is a classical method (θ = ½
/// the implicit midpoint rule, θ = 0 and 1 the symplectic Euler pair), the sharp check of (15)–(17).
template <int n> struct CotangentRn {
  static constexpr int dim = n;
  template <class S> using point = Vec<S, n>;
  template <class S> using element = Vec<S, n>;

  template <class S> LB_HD static Vec<S, n> exp(const Vec<S, n>& x) { return x; }
  template <class S> LB_HD static Vec<S, n> mul(const Vec<S, n>& E, const Vec<S, n>& g) { return E + g; }
  template <class S> LB_HD static Vec<S, n> exp_mul(const Vec<S, n>& x, const Vec<S, n>& g) { return x + g; }
  template <class S> LB_HD static Vec<S, n> coAd(const Vec<S, n>&, const Vec<S, n>& v) { return v; }
  template <class S> LB_HD static Vec<S, n> exp_act(const Vec<S, n>&, const Vec<S, n>& v) { return v; }
  template <class S> LB_HD static Vec<S, n> dexp_star_neg(const Vec<S, n>&, const Vec<S, n>& v) { return v; }
  template <class T> LB_HD static bool injective(const Vec<T, n>&) { return true; }
  template <class U, class S> LB_HD static Vec<U, n> lift(const Vec<S, n>& g) { return lb::cast<U>(g); }
};

/// The residual r(z) = z − h f(exp(θξ) g₀, M_θ) of (16), z = (ξ, n̄), in any scalar S (T, or
/// Dual<T, 2·dim> for the Jacobian). Costs one exp, two dexp* and one model evaluation.
template <class Gr, class Model, class T, class S>
LB_HD Vec<S, 2 * Gr::dim> slgi_residual(const Model& model, const typename Gr::template point<T>& g0,
                                        const Vec<T, Gr::dim>& mu0, T h, T theta, const Vec<S, 2 * Gr::dim>& z) {
  constexpr int d = Gr::dim;
  const Vec<S, d> xi = z.template seg<0, d>(), n = z.template seg<d, d>();
  const S th(theta);
  const auto E = Gr::exp(th * xi);            // exp(θξ)
  const Vec<S, d> En = Gr::coAd(E, n);        // Ad*_{exp(θξ)} n̄
  // (15): M_θ = dexp*_{−ξ}(μ₀ + Ad*_{exp(θξ)} n̄) − θ dexp*_{−θξ} Ad*_{exp(θξ)} n̄.
  const Vec<S, d> M = Gr::dexp_star_neg(xi, lb::cast<S>(mu0) + En) - th * Gr::dexp_star_neg(th * xi, En);
  return z - S(h) * model.cotangent_f(Gr::mul(E, Gr::template lift<S>(g0)), M);  // (16)
}

/// The explicit-Euler guess z = h f(g₀, μ₀) (SLGI::step adds the previous step's correction to it).
template <class Gr = CotangentSO3, class Model, class T>
LB_HD Vec<T, 2 * Gr::dim> slgi_guess(const Model& model, const typename Gr::template point<T>& g0,
                                     const Vec<T, Gr::dim>& mu0, T h) {
  return h * model.cotangent_f(g0, mu0);
}

/// One SLGI step: the new point and momentum, the solved z = (ξ, n̄) (the next step's warm start),
/// the Newton iterations it took, and Status::ok or Status::nonlinear_solve_failed.
template <class Gr, class T> struct SlgiResult {
  typename Gr::template point<T> g;
  Vec<T, Gr::dim> mu;
  Vec<T, 2 * Gr::dim> z;
  int iterations;
  Status status;
};

/// One step of SLGI θ from (g₀, μ₀) with step h, Newton started at z_guess. A solve that does not
/// converge, gives a non-finite value or a ξ outside the injectivity domain of exp returns the start
/// state with Status::nonlinear_solve_failed: never an unconverged state.
template <class Gr = CotangentSO3, class Model, class T>
LB_HD SlgiResult<Gr, T> slgi_step(const Model& model, const typename Gr::template point<T>& g0,
                                  const Vec<T, Gr::dim>& mu0, T h, T theta, const Vec<T, 2 * Gr::dim>& z_guess) {
  constexpr int d = Gr::dim;
  using W = refined_t<T>;
  const NewtonOutcome<W, 2 * d> o = newton_refined<2 * d>(
      [&](const auto& z) { return slgi_residual<Gr>(model, g0, mu0, h, theta, z); }, z_guess);
  const Vec<T, 2 * d> z = lb::cast<T>(o.z);
  const Vec<T, d> xi = z.template seg<0, d>();
  SlgiResult<Gr, T> r{g0, mu0, z, o.iterations, Status::nonlinear_solve_failed};
  if (!o.converged || !Gr::injective(xi)) return r;
  // (17): g₁ = exp(ξ) g₀, μ₁ = Ad*_{exp((θ−1)ξ)} n̄ + Ad*_{exp(ξ)⁻¹} μ₀, μ₁ from the refined root in
  // double words (refined_t) and rounded once: a component of μ that the exact map conserves (the
  // heavy top's e₃·π) then comes back to the same T, where T's rounding of the residual and of (17)
  // would move it by the same fraction of an ulp every step (docs/symplectic.md §4).
  const auto g1 = Gr::exp_mul(xi, g0);
  const Vec<W, d> xw = o.z.template seg<0, d>(), nw = o.z.template seg<d, d>();
  const Vec<T, d> mu1 = lb::cast<T>(Gr::coAd(Gr::exp(W(theta - T(1)) * xw), nw) + Gr::exp_act(xw, lb::cast<W>(mu0)));
  bool finite = true;
  LB_UNROLL for (int i = 0; i < d; ++i) finite = finite && lb::isfinite(mu1[i]);
  if (!finite) return r;
  r.g = g1;
  r.mu = mu1;
  r.status = Status::ok;
  return r;
}

/// A model on T*SO(3) that SLGI steps: f(Q, μ) = (∂H/∂μ, −right-trivialised ∂H/∂g) as
/// cotangent_f, and its state as (Q, μ) with μ the spatial momentum (Q(y), mu(y), from_cotangent).
template <class M>
concept CotangentModel = requires(const M& m, const typename M::space::point& y, const Mat3<typename M::space::scalar>& Q,
                                  const Vec3<typename M::space::scalar>& mu) {
  { m.cotangent_f(Q, mu) } -> std::same_as<Vec6<typename M::space::scalar>>;
  { M::Q(y) } -> std::same_as<Mat3<typename M::space::scalar>>;
  { M::mu(y) } -> std::same_as<Vec3<typename M::space::scalar>>;
  { M::from_cotangent(Q, mu) } -> std::same_as<typename M::space::point>;
};

/// A model whose SLGI step is that of a CotangentModel on a block (Q, μ) of its state, the rest
/// updated passively: SLGIKK ([CCLMO22 §3.4.3], the Kaluza–Klein form of the heavy top,
/// HeavyTopQuadratic). cotangent_block(y) is that CotangentModel at y; cotangent_update(y, Q₁, μ₁,
/// Q_θ, h) the point after a step that took the block to (Q₁, μ₁), with Q_θ = exp(θξ)Q₀.
template <class M>
concept CotangentBlockModel = requires(const M& m, const typename M::space::point& y, const Mat3<typename M::space::scalar>& Q,
                                       const Vec3<typename M::space::scalar>& mu, typename M::space::scalar h) {
  requires CotangentModel<std::remove_cvref_t<decltype(m.cotangent_block(y))>>;
  { M::Q(y) } -> std::same_as<Mat3<typename M::space::scalar>>;
  { M::mu(y) } -> std::same_as<Vec3<typename M::space::scalar>>;
  { M::cotangent_update(y, Q, mu, Q, h) } -> std::same_as<typename M::space::point>;
};

/// One SLGIKK step: the new point, z, iterations and status.
template <class P> struct SlgiKKResult {
  P y;
  Vec6<typename P::scalar> z;
  int iterations;
  Status status;
};

/// SLGIKK's Newton guess: the explicit-Euler one of its block.
template <CotangentBlockModel M>
LB_HD Vec6<typename M::space::scalar> slgikk_guess(const M& model, const typename M::space::point& y, typename M::space::scalar h) {
  return slgi_guess(model.cotangent_block(y), M::Q(y), M::mu(y), h);
}

/// SLGIKK ([CCLMO22 §3.4.3, eqs (25)–(32)]): SLGI θ on the model's block (the same map on (Q, π)
/// as slgi_step: [Notes]'s misprint A-6), then the model's passive update.
template <CotangentBlockModel M>
LB_HD SlgiKKResult<typename M::space::point> slgikk_step(const M& model, const typename M::space::point& y, typename M::space::scalar h,
                                                         typename M::space::scalar theta, const Vec6<typename M::space::scalar>& z_guess) {
  const Mat3<typename M::space::scalar> Q0 = M::Q(y);
  const auto r = slgi_step(model.cotangent_block(y), Q0, M::mu(y), h, theta, z_guess);
  SlgiKKResult<typename M::space::point> out{y, r.z, r.iterations, r.status};
  if (r.status != Status::ok) return out;
  out.y = M::cotangent_update(y, r.g, r.mu, CotangentSO3::exp(theta * r.z.template seg<0, 3>()) * Q0, h);
  return out;
}

/// SLGI θ = num/den as a method of the engine and the drivers ([CCLMO22 §3.2]): fixed steps of a
/// CotangentModel, or SLGIKK on a CotangentBlockModel. Newton starts from the explicit-Euler guess
/// (slgi_guess) plus the correction the previous step's solve made to its own (warm: kept as
/// correction/h², as it is O(h²), so a shortened step scales it); a failed solve returns yₙ with
/// StepResult::failed
/// (Status::nonlinear_solve_failed for the member). No embedded pair. Not on packs
/// (method_packs): Newton's pivoting and exit branch per member.
template <int num, int den> struct SLGI {
  static constexpr int order = 2 * num == den ? 2 : 1;  ///< θ = ½ is symmetric
  static constexpr int order_hat = 0;
  static constexpr int stages = 1;
  static constexpr bool packs = false;
  static constexpr bool implicit = true;
  static constexpr int warm = 6;  ///< (z − guess)/h² of the last solve

  /// A step without a previous solution (the explicit-Euler guess).
  template <CotangentModel Model>
  LB_HD static StepResult<typename Model::space::point> step(const Model& model, typename Model::space::scalar t,
                                                             const typename Model::space::point& y,
                                                             typename Model::space::scalar h) {
    Vec6<typename Model::space::scalar> w{};
    return step(model, t, y, h, w, false);
  }
  template <CotangentBlockModel Model>
  LB_HD static StepResult<typename Model::space::point> step(const Model& model, typename Model::space::scalar t,
                                                             const typename Model::space::point& y, typename Model::space::scalar h) {
    Vec6<typename Model::space::scalar> w{};
    return step(model, t, y, h, w, false);
  }
  template <CotangentModel Model>
  LB_HD static StepResult<typename Model::space::point> step(const Model& model, typename Model::space::scalar,
                                                             const typename Model::space::point& y,
                                                             typename Model::space::scalar h,
                                                             Vec6<typename Model::space::scalar>& w, bool have) {
    using T = typename Model::space::scalar;
    const Mat3<T> Q0 = Model::Q(y);
    const Vec3<T> mu0 = Model::mu(y);
    const Vec6<T> guess = slgi_guess(model, Q0, mu0, h);
    const auto r = slgi_step(model, Q0, mu0, h, T(num) / T(den), have ? guess + (h * h) * w : guess);
    const bool ok = r.status == Status::ok;
    if (ok) w = (T(1) / (h * h)) * (r.z - guess);
    return {ok ? Model::from_cotangent(r.g, r.mu) : y, Model::space::point::zero(), false, !ok, r.iterations};
  }
  template <CotangentBlockModel Model>
  LB_HD static StepResult<typename Model::space::point> step(const Model& model, typename Model::space::scalar,
                                                             const typename Model::space::point& y, typename Model::space::scalar h,
                                                             Vec6<typename Model::space::scalar>& w, bool have) {
    using T = typename Model::space::scalar;
    const Vec6<T> guess = slgikk_guess(model, y, h);
    const auto r = slgikk_step(model, y, h, T(num) / T(den), have ? guess + (h * h) * w : guess);
    if (r.status == Status::ok) w = (T(1) / (h * h)) * (r.z - guess);
    return {r.y, Model::space::point::zero(), false, r.status != Status::ok, r.iterations};
  }
};

namespace methods {
using slgi0 = SLGI<0, 1>;      ///< θ = 0, order 1
using slgi_half = SLGI<1, 2>;  ///< θ = ½, order 2, symmetric
using slgi1 = SLGI<1, 1>;      ///< θ = 1, order 1, θ = 0's adjoint
}  // namespace methods

}  // namespace lb
