// A Lie group acting on itself by left multiplication, and ℝⁿ under translation, as homogeneous
// spaces. States are stored through the group's embedding (SO(3) ⊂ ℝ⁹, SE(3) ⊂ ℝ¹²).
#pragma once
#include "rn.hpp"

namespace lb {

/// G acting on itself, g·h = g h; ψ_*(ξ)|_h = ξ̂ h (right-trivialised).
template <class G> struct GroupSpace {
  using scalar = typename G::scalar;
  using algebra = typename G::algebra;
  using group = G;
  static constexpr int dim = G::embed_dim;
  using point = Vec<scalar, dim>;

  LB_HD static point act(const group& g, const point& y) { return (g * G::from_embed(y)).embed(); }
  /// exp(u)·y; through G::exp_mul(u, h) = exp(u) h where the group has one (SO(3): without
  /// rounding exp(u) to a matrix first, see SO3::exp_mul).
  LB_HD static point exp_act(const typename algebra::vec& u, const point& y) {
    if constexpr (requires(const G& h) { G::exp_mul(u, h); }) return G::exp_mul(u, G::from_embed(y)).embed();
    else return act(G::exp(u), y);
  }
  LB_HD static point generator(const typename algebra::vec& u, const point& y) {
    return G::from_embed(y).generator(u);
  }
  /// Distance of an embedded point from G, and a nearby element of G (G::defect, G::project).
  LB_HD static scalar defect(const point& y) { return G::defect(y); }
  LB_HD static point project(const point& y) { return G::project(y); }
};

/// ℝⁿ under translation: exp(ξ)·y = y + ξ, so Lie group methods become classical ones.
template <class T, int N> using Euclidean = GroupSpace<Translation<T, N>>;

/// Whether a space is ℝⁿ under translation, where a step is a few FLOPs per component.
template <class S> inline constexpr bool is_euclidean_v = false;
template <class T, int N> inline constexpr bool is_euclidean_v<Euclidean<T, N>> = true;

}  // namespace lb
