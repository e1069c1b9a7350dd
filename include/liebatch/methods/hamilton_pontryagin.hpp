// The Hamilton–Pontryagin variational Lie group integrators of [BRM07 §4] on SO(3): Störmer–Verlet
// ((4.14)–(4.18), the Lobatto IIIA pair) and variational Euler ((4.19)), with τ = exp or the Cayley
// map (Def. 4.1). For ℓ(g, ξ) = ½ ξ·Jξ − V(g) the step is carried in (g, ν), ν = (dτ⁻¹_{−hξ})* μ the
// body momentum at the node ([Notes]'s resolution of [BRM07]'s "given (g_k, μ_k)", which (4.16)
// cannot use without ξ_k), and Störmer–Verlet becomes kick–solve–drift–kick:
//   ν⁺      = ν_k + (h/2) f(g_k)                      kick           (4.16)'s right-hand side
//   solve     (dτ⁻¹_{hξ})* Jξ = ν⁺  for ξ             discrete Euler (4.16), Ξ¹ = Ξ² = ξ
//   g_{k+1} = g_k τ(hξ)                               drift          (4.17)
//   ν_{k+1} = (dτ⁻¹_{−hξ})* Jξ + (h/2) f(g_{k+1})     kick           (4.18)
// with f(g) = g ∂ℓ/∂g the body torque. The second kick's f(g_{k+1}) is the next step's first (FSAL:
// one torque evaluation per step). Symplectic, second order, time-reversible, and the spatial
// momentum g ν of a symmetry is conserved exactly (docs/symplectic.md §6; hp_step_spatial carries
// g ν itself, as the engine does, §7). Variational Euler is the same with the whole kick h at the
// end (hp_step, θ = 0), carrying the momentum its discrete Euler equation solves for: symplectic
// and first order. The 3×3 equation is solved by Newton (newton.hpp) with its Jacobian from dual
// numbers through this same code.
#pragma once
#include "../series_refined.hpp"
#include "../so3.hpp"
#include "newton.hpp"
#include "step.hpp"

namespace lb {

/// What a drift g_{k+1} = g τ(x) gives with the momentum it carries: g τ(x) and (dτ⁻¹_{−x})* y.
template <class T> struct TauDrift {
  Mat3<T> g;
  Vec3<T> m;
};

/// τ = exp on SO(3) ([BRM07 §4.1, eq. (4.23)]). Every function takes any scalar S (Dual included).
/// The momentum map is conserved by the identity exp(x) dexp⁻¹_x = dexp⁻¹_{−x} (Ad_{τ(x)}(dτ⁻¹_{−x})* =
/// (dτ⁻¹_x)*), which holds between exp's s, c and dexp⁻¹'s g2; the drift therefore takes them
/// correctly rounded (so3_coeffs_refined): with series.hpp's values, within a few ulps, the
/// Brüls–Cardona top's e₃·(gν) drifted 1.0e-11 over 10⁴ steps of h = 0.01, the same error every step
/// (docs/symplectic.md §6).
struct TauExp {
  /// (dτ⁻¹_x)* v = (dexp⁻¹_x)ᵀ v = v + ½ x×v + g₂ x×(x×v) = dexp⁻¹_{−x} v (hat(x) is skew).
  template <class S> LB_HD static Vec3<S> dinv_star(const Vec3<S>& x, const Vec3<S>& v) {
    return so3<S>::dexpinv(-x, v);
  }
  /// (dτ⁻¹_{−x})* v = dexp⁻¹_x v = v − ½ x×v + g₂ x×(x×v), g₂ correctly rounded for float and double.
  template <class S> LB_HD static Vec3<S> dinv_star_neg(const Vec3<S>& x, const Vec3<S>& v) {
    if constexpr (is_device_scalar_v<S>) {
      return dinv_star_neg(x, v, so3_coeffs_refined(norm2(x)).g2);
    } else {
      return so3<S>::dexpinv(x, v);
    }
  }
  /// g exp(x) and (dτ⁻¹_{−x})* y from one evaluation of the coefficients.
  template <class T> LB_HD static TauDrift<T> drift(const Mat3<T>& g, const Vec3<T>& x, const Vec3<T>& y) {
    const So3Coeffs<T> k = so3_coeffs_refined(norm2(x));
    return {mul_tau(g, x, k.s, k.c), dinv_star_neg(x, y, k.g2)};
  }
  /// g exp(x) = g + g(s x̂ + c x̂²) from the caller's s and c: an increment, whose rounding follows
  /// g's digits at every angle (SO3::exp_mul rounds exp(x) to a matrix above |x| = 1; on the
  /// Brüls–Cardona top, |hξ| = 1.8 at h = 0.01, that same rounding every step drifted e₃·(gν) by
  /// 3.1e-11 over 10⁴ steps).
  template <class T> LB_HD static Mat3<T> mul_tau(const Mat3<T>& g, const Vec3<T>& x, T s, T c) {
    const T a = x[0] * x[0], b = x[1] * x[1], d = x[2] * x[2];
    const T cxy = c * x[0] * x[1], cxz = c * x[0] * x[2], cyz = c * x[1] * x[2];
    const Vec3<T> w = s * x;
    const Mat3<T> E{{-c * (b + d), cxy - w[2], cxz + w[1],  //
                     cxy + w[2], -c * (a + d), cyz - w[0],  //
                     cxz - w[1], cyz + w[0], -c * (a + b)}};  // s x̂ + c x̂²
    return g + g * E;
  }
  /// v − ½ x×v + g₂ x×(x×v) with the caller's g₂.
  template <class S> LB_HD static Vec3<S> dinv_star_neg(const Vec3<S>& x, const Vec3<S>& v, S g2) {
    const Vec3<S> xv = cross(x, v);
    return v - S(0.5) * xv + g2 * cross(x, xv);
  }
  /// Whether dexp⁻¹ is regular at x with a margin: |x| < 2π − 0.1 ([Notes §3.4]).
  template <class T> LB_HD static bool injective(const Vec3<T>& x) {
    const T r = T(2) * lb::pi<T>() - T(0.1);
    return norm2(x) < r * r;
  }
};

/// τ = cay, cay(x) = (I − x̂/2)⁻¹(I + x̂/2) ([BRM07 §4.2, eq. (4.26)]): no transcendental function,
/// no singularity, but it rotates by 2 atan(|x|/2) instead of |x| (docs/symplectic.md §6).
struct TauCay {
  /// (dcay⁻¹_x)* v = (I − ½x̂ + ¼xxᵀ)ᵀ v = v + ½ x×v + ¼ x (x·v).
  template <class S> LB_HD static Vec3<S> dinv_star(const Vec3<S>& x, const Vec3<S>& v) {
    return v + S(0.5) * cross(x, v) + (S(0.25) * dot(x, v)) * x;
  }
  /// (dcay⁻¹_{−x})* v = v − ½ x×v + ¼ x (x·v).
  template <class S> LB_HD static Vec3<S> dinv_star_neg(const Vec3<S>& x, const Vec3<S>& v) {
    return v - S(0.5) * cross(x, v) + (S(0.25) * dot(x, v)) * x;
  }
  /// g cay(x) = g + g k(x̂ + ½x̂²), k = 4/(4 + |x|²): g plus an increment.
  template <class T> LB_HD static Mat3<T> mul_tau(const Mat3<T>& g, const Vec3<T>& x) {
    const Mat3<T> X = hat(x);
    const T k = T(4) / (T(4) + norm2(x));
    return g + g * (k * (X + T(0.5) * (X * X)));
  }
  /// g cay(x) and (dτ⁻¹_{−x})* y.
  template <class T> LB_HD static TauDrift<T> drift(const Mat3<T>& g, const Vec3<T>& x, const Vec3<T>& y) {
    return {mul_tau(g, x), dinv_star_neg(x, y)};
  }
  template <class T> LB_HD static bool injective(const Vec3<T>&) { return true; }
};

/// The residual F(ξ) = (dτ⁻¹_{hξ})* Jξ − ν⁺ of the discrete Euler equation ([BRM07 eq. (4.16)] with
/// Ξ¹ = Ξ² = ξ), J = diag(inertia), in any scalar S (T, or Dual<T, 3> for the Jacobian).
template <class Tau, class T, class S>
LB_HD Vec3<S> hp_residual(const Vec3<T>& inertia, const Vec3<T>& nu_plus, T h, const Vec3<S>& xi) {
  const Vec3<S> Jxi = vec3(S(inertia[0]) * xi[0], S(inertia[1]) * xi[1], S(inertia[2]) * xi[2]);
  return Tau::dinv_star(S(h) * xi, Jxi) - lb::cast<S>(nu_plus);
}

/// The warm start of a first step, ξ = J⁻¹ν (later steps start from the previous ξ).
template <class T> LB_HD Vec3<T> hp_guess(const Vec3<T>& inertia, const Vec3<T>& nu) {
  return vec3(nu[0] / inertia[0], nu[1] / inertia[1], nu[2] / inertia[2]);
}

/// One HP step: the new attitude g and node momentum ν, the body torque f(g) at the new attitude
/// (the next Störmer–Verlet step's first kick), the solved ξ (the next warm start), the Newton
/// iterations it took, and Status::ok or Status::nonlinear_solve_failed.
template <class T> struct HpResult {
  Mat3<T> g;
  Vec3<T> nu;
  Vec3<T> torque;
  Vec3<T> xi;
  int iterations;
  Status status;
};

/// Solves (dτ⁻¹_{hξ})* Jξ = ν⁺ from xi_guess. Converged only when Newton converged and hξ lies in
/// τ's injectivity domain.
template <class Tau, class T>
LB_HD NewtonOutcome<T, 3> hp_solve(const Vec3<T>& inertia, const Vec3<T>& nu_plus, T h, const Vec3<T>& xi_guess) {
  NewtonOutcome<T, 3> o =
      newton<3>([&](const auto& xi) { return hp_residual<Tau>(inertia, nu_plus, h, xi); }, xi_guess);
  o.converged = o.converged && Tau::template injective<T>(h * o.z);
  return o;
}

/// Whether every component of the state is finite.
template <class T> LB_HD bool hp_finite(const Mat3<T>& g, const Vec3<T>& nu) {
  bool finite = true;
  LB_UNROLL for (int i = 0; i < 9; ++i) finite = finite && lb::isfinite(g.m[i]);
  LB_UNROLL for (int i = 0; i < 3; ++i) finite = finite && lb::isfinite(nu[i]);
  return finite;
}

/// One Hamilton–Pontryagin step in kick–solve–drift–kick form from (g₀, ν₀) with torque0 = f(g₀)
/// (the previous step's `torque`, or model.body_torque(g₀) at the start): the first kick of θh and
/// the last of (1 − θ)h, θ = num/den. θ = ½ is Störmer–Verlet ([BRM07 eqs (4.14)–(4.18)]); θ = 0 is
/// variational Euler ((4.19), hp_ve_step) carried in (g, ν) with ν = (dτ⁻¹_{hξ})* Jξ the right-hand
/// side of its discrete Euler equation (torque0 then unused). A solve that does not converge, gives
/// a non-finite value or an hξ outside τ's injectivity domain returns the start state with
/// Status::nonlinear_solve_failed.
template <class Tau = TauExp, int num = 1, int den = 2, class Model, class T>
LB_HD HpResult<T> hp_step(const Model& model, const Mat3<T>& g0, const Vec3<T>& nu0, const Vec3<T>& torque0, T h,
                          const Vec3<T>& xi_guess) {
  static_assert(0 < den && 0 <= num && num <= den, "theta = num/den in [0, 1]");
  const Vec3<T> J = model.body_inertia();
  const T first = T(num) / T(den) * h, last = T(den - num) / T(den) * h;
  const Vec3<T> nu_plus = num == 0 ? nu0 : nu0 + first * torque0;  // kick
  const NewtonOutcome<T, 3> o = hp_solve<Tau>(J, nu_plus, h, xi_guess);
  HpResult<T> r{g0, nu0, torque0, o.z, o.iterations, Status::nonlinear_solve_failed};
  if (!o.converged) return r;
  const Vec3<T> Jxi = vec3(J[0] * o.z[0], J[1] * o.z[1], J[2] * o.z[2]);
  const TauDrift<T> d = Tau::drift(g0, h * o.z, Jxi);  // drift (4.17)
  const Vec3<T> f1 = model.body_torque(d.g);
  const Vec3<T> nu1 = d.m + last * f1;  // kick (4.18)
  if (!hp_finite(d.g, nu1)) return r;
  r.g = d.g;
  r.nu = nu1;
  r.torque = f1;
  r.status = Status::ok;
  return r;
}

/// The spatial torque g f(g) of the potential at g: the model's spatial_torque(g) where it has one
/// (the heavy top's M g e₃ × gX, whose e₃-component is 0 in floating point too), else g·body_torque(g).
template <class Model, class T> LB_HD Vec3<T> spatial_torque(const Model& model, const Mat3<T>& g) {
  if constexpr (requires { model.spatial_torque(g); }) {
    return model.spatial_torque(g);
  } else {
    return g * model.body_torque(g);
  }
}

/// What hp_step_spatial gives: the new attitude and spatial momentum, the solved ξ, the Newton
/// iterations and Status::ok or Status::nonlinear_solve_failed.
template <class T> struct HpSpatialResult {
  Mat3<T> g;
  Vec3<T> mu;
  Vec3<T> xi;
  int iterations;
  Status status;
};

/// hp_step carried in the spatial momentum μ = gν, as the engine stores the state (g₀, μ₀), with
/// nu0 = g₀⁻¹μ₀ (or g₀ᵀμ₀: it only poses the solve) from the caller. The kicks add the spatial
/// torque, and the drift leaves μ as it is: g₁(dτ⁻¹_{−x})*Jξ = g₀(dτ⁻¹_x)*Jξ = g₀ν⁺ by τ's
/// identity, so μ₁ = μ₀ + θh g₀f(g₀) + (1 − θ)h g₁f(g₁) is hp_step's map, to its rounding. Where
/// the spatial torque has a component that is 0 in floating point (the heavy top's about e₃), that
/// component of μ is kept to the bit: carrying μ through g₁ν₁ instead drifted the Brüls–Cardona
/// top's e₃·μ by 2.7·10⁻¹¹ over 10⁴ steps of h = 0.01 (docs/symplectic.md §7). A failed solve
/// returns the start with Status::nonlinear_solve_failed.
template <class Tau = TauExp, int num = 1, int den = 2, class Model, class T>
LB_HD HpSpatialResult<T> hp_step_spatial(const Model& model, const Mat3<T>& g0, const Vec3<T>& mu0,
                                         const Vec3<T>& nu0, T h, const Vec3<T>& xi_guess) {
  static_assert(0 < den && 0 <= num && num <= den, "theta = num/den in [0, 1]");
  const Vec3<T> J = model.body_inertia();
  const T first = T(num) / T(den) * h, last = T(den - num) / T(den) * h;
  const Vec3<T> nu_plus = num == 0 ? nu0 : nu0 + first * model.body_torque(g0);
  const Vec3<T> mu_plus = num == 0 ? mu0 : mu0 + first * spatial_torque(model, g0);
  const NewtonOutcome<T, 3> o = hp_solve<Tau>(J, nu_plus, h, xi_guess);
  HpSpatialResult<T> r{g0, mu0, o.z, o.iterations, Status::nonlinear_solve_failed};
  if (!o.converged) return r;
  const Mat3<T> g1 = Tau::drift(g0, h * o.z, vec3(J[0] * o.z[0], J[1] * o.z[1], J[2] * o.z[2])).g;
  const Vec3<T> mu1 = mu_plus + last * spatial_torque(model, g1);
  if (!hp_finite(g1, mu1)) return r;
  r.g = g1;
  r.mu = mu1;
  r.status = Status::ok;
  return r;
}

/// One Hamilton–Pontryagin Störmer–Verlet step ([BRM07 eqs (4.14)–(4.18)]): hp_step with θ = ½.
template <class Tau = TauExp, class Model, class T>
LB_HD HpResult<T> hp_sv_step(const Model& model, const Mat3<T>& g0, const Vec3<T>& nu0, const Vec3<T>& torque0, T h,
                             const Vec3<T>& xi_guess) {
  return hp_step<Tau, 1, 2>(model, g0, nu0, torque0, h, xi_guess);
}

/// One step of forward variational Euler ([BRM07 eq. (4.19)]) from (g₀, ξ₀): g₁ = g₀ τ(hξ₀), then
/// ξ₁ solves (dτ⁻¹_{hξ})* Jξ = ν₀ + h f(g₁) with ν₀ = (dτ⁻¹_{−hξ₀})* Jξ₀, and ν₁ = (dτ⁻¹_{−hξ₁})* Jξ₁.
/// Its configurations are Störmer–Verlet's (for separable ℓ); its node momentum ν is first order.
/// `xi` of the result is ξ₁ (the next step's ξ₀ and warm start); `torque` is f(g₁). A failed solve
/// returns the start (g₀, ν₀, ξ₀) with Status::nonlinear_solve_failed.
template <class Tau = TauExp, class Model, class T>
LB_HD HpResult<T> hp_ve_step(const Model& model, const Mat3<T>& g0, const Vec3<T>& xi0, T h) {
  const Vec3<T> J = model.body_inertia();
  const TauDrift<T> d = Tau::drift(g0, h * xi0, vec3(J[0] * xi0[0], J[1] * xi0[1], J[2] * xi0[2]));
  HpResult<T> r{g0, d.m, Vec3<T>::zero(), xi0, 0, Status::nonlinear_solve_failed};  // ν₀ = d.m
  const Vec3<T> f1 = model.body_torque(d.g);
  const NewtonOutcome<T, 3> o = hp_solve<Tau>(J, d.m + h * f1, h, xi0);
  r.iterations = o.iterations;
  if (!o.converged) return r;
  const Vec3<T> nu1 = Tau::dinv_star_neg(h * o.z, vec3(J[0] * o.z[0], J[1] * o.z[1], J[2] * o.z[2]));
  if (!hp_finite(d.g, nu1)) return r;
  r = {d.g, nu1, f1, o.z, o.iterations, Status::ok};
  return r;
}

}  // namespace lb
