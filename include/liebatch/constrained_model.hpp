// The contract of a constrained mechanical system on a Lie group G ([ArnHE] eqs (1)–(2);
// docs/constrained.md §1):
//   q̇ = q·ṽ,   M(q) v̇ + g(q, v, t) + B(q)ᵀλ = 0,   Φ(q) = 0,
// with q ∈ G, v ∈ 𝔤 ≅ ℝⁿ, r holonomic constraints Φ and their gradient B(q) ∈ ℝ^{r×n},
// B(q)w = DΦ(q)·(q·w̃). Integrators take the index-2 form, the hidden constraint B(q)v = 0, so a
// state is (q, v, λ) and only (q, v) are initial data: the library completes λ₀
// (consistent_multiplier). Models: models/planar_pendulum.hpp (ℝ²),
// models/constrained_heavy_top.hpp (SE(3)).
#pragma once
#include <concepts>
#include <type_traits>

#include "linear_solve.hpp"
#include "vec.hpp"

namespace lb {

/// B(q) ∈ ℝ^{R×N} as its R rows (one per constraint), with the products the integrators need.
template <class T, int R, int N> struct ConstraintGradient {
  Vec<T, N> row[R];
  /// B w.
  LB_HD Vec<T, R> operator*(const Vec<T, N>& w) const {
    Vec<T, R> r;
    LB_UNROLL for (int k = 0; k < R; ++k) r[k] = dot(row[k], w);
    return r;
  }
  /// Bᵀ μ.
  LB_HD Vec<T, N> transpose_times(const Vec<T, R>& mu) const {
    Vec<T, N> w = Vec<T, N>::zero();
    LB_UNROLL for (int k = 0; k < R; ++k) w += mu[k] * row[k];
    return w;
  }
};

/// M: `group`, a Lie group whose algebra's `vec` is the velocity v (SE3, Translation, …); `scalar`;
/// `constraints`, r; and, each a function of the state only through its arguments:
///   inverse_mass(q, w) = M(q)⁻¹ w  (the mass matrix through its inverse's action: the stage
///                                   solves need only M⁻¹, in the Schur form of docs/constrained.md)
///   forces(q, v, t)    = g(q, v, t)  (gyroscopic and applied forces, on the left-hand side)
///   constraint(q)      = Φ(q) ∈ ℝʳ
///   gradient(q)        = B(q)
///   curvature(q, v)    = (d/dt B(q(t)))·v along q̇ = q·ṽ, the term that makes
///                        d/dt(B v) = B v̇ + curvature(q, v); it fixes the consistent λ.
/// Copied by value to every trajectory, so trivially copyable.
template <class M>
concept ConstrainedModel =
    std::is_trivially_copyable_v<M> && std::same_as<typename M::scalar, typename M::group::scalar> &&
    std::same_as<decltype(M::constraints), const int> &&
    requires(const M& m, const typename M::group& q, const typename M::group::algebra::vec& v, typename M::scalar t) {
      { m.inverse_mass(q, v) } -> std::same_as<typename M::group::algebra::vec>;
      { m.forces(q, v, t) } -> std::same_as<typename M::group::algebra::vec>;
      { m.constraint(q) } -> std::same_as<Vec<typename M::scalar, M::constraints>>;
      { m.gradient(q) } -> std::same_as<ConstraintGradient<typename M::scalar, M::constraints, M::group::algebra::dim>>;
      { m.curvature(q, v) } -> std::same_as<Vec<typename M::scalar, M::constraints>>;
    };

/// The state of a constrained system: configuration, velocity and multiplier.
template <ConstrainedModel M> struct ConstrainedState {
  typename M::group q;
  typename M::group::algebra::vec v;
  Vec<typename M::scalar, M::constraints> lambda;
};

/// The Schur matrix B_l M(q)⁻¹ B_rᵀ of a multiplier solve: column k is B_l M⁻¹ (row k of B_r)ᵀ.
template <ConstrainedModel M>
LB_HD SquareMat<typename M::scalar, M::constraints> schur_matrix(
    const M& m, const typename M::group& q, const ConstraintGradient<typename M::scalar, M::constraints, M::group::algebra::dim>& Bl,
    const ConstraintGradient<typename M::scalar, M::constraints, M::group::algebra::dim>& Br) {
  SquareMat<typename M::scalar, M::constraints> S;
  LB_UNROLL for (int k = 0; k < M::constraints; ++k) {
    const auto col = m.inverse_mass(q, Br.row[k]);
    LB_UNROLL for (int i = 0; i < M::constraints; ++i) S.a[i][k] = dot(Bl.row[i], col);
  }
  return S;
}

/// The multiplier consistent with (q, v): the λ for which the motion keeps B(q)v = 0, from
/// d/dt(B v) = B v̇ + Z = 0 with v̇ = −M⁻¹(g + Bᵀλ), i.e. (B M⁻¹ Bᵀ) λ = Z − B M⁻¹ g, Z the
/// curvature term; here with B = B(q) and M⁻¹g = M(q)⁻¹g(q, v, t) already at hand. Returns false
/// (λ then unspecified) when B M⁻¹ Bᵀ is singular or not finite.
template <ConstrainedModel M>
LB_HD bool consistent_multiplier(const M& m, const typename M::group& q, const typename M::group::algebra::vec& v,
                                 const ConstraintGradient<typename M::scalar, M::constraints, M::group::algebra::dim>& B,
                                 const typename M::group::algebra::vec& Minv_g, Vec<typename M::scalar, M::constraints>& lambda) {
  return lu_solve<M::constraints>(schur_matrix(m, q, B, B), m.curvature(q, v) - B * Minv_g, lambda);
}
/// The same at time t, evaluating B(q) and M⁻¹g.
template <ConstrainedModel M>
LB_HD bool consistent_multiplier(const M& m, const typename M::group& q, const typename M::group::algebra::vec& v,
                                 typename M::scalar t, Vec<typename M::scalar, M::constraints>& lambda) {
  return consistent_multiplier(m, q, v, m.gradient(q), m.inverse_mass(q, m.forces(q, v, t)), lambda);
}

}  // namespace lb
