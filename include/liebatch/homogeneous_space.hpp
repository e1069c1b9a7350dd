// The contract of a state space: a manifold M with a Lie algebra 𝔤 acting on it, written in the
// embedding coordinates the engine stores ([MK98]; docs/lie-groups.md). Every space of the core
// (GroupSpace, S2, TS2, the coadjoint orbits, Product, Power) satisfies it; a user's space must too.
#pragma once
#include <concepts>

#include "config.hpp"

namespace lb {

/// 𝔤 in coordinates: vec = 𝔤 ≅ ℝ^dim, the bracket [u, v], dexp_u v and dexp⁻¹_u v, and angle2(u),
/// the quantity whose size bounds the series of dexp⁻¹ (|u|² on so(3)).
template <class A>
concept LieAlgebra = requires(const typename A::vec& u) {
  typename A::scalar;
  requires std::same_as<std::remove_cv_t<decltype(A::dim)>, int>;
  { A::bracket(u, u) } -> std::same_as<typename A::vec>;
  { A::dexp(u, u) } -> std::same_as<typename A::vec>;
  { A::dexpinv(u, u) } -> std::same_as<typename A::vec>;
  { A::angle2(u) } -> std::convertible_to<typename A::scalar>;
};

/// M: points stored as `point`, dim numbers each; 𝔤 = `algebra` acts by exp_act(u, y) = exp(u)·y,
/// and generator(u, y) = ψ_*(u)|_y is its infinitesimal action in embedding coordinates.
/// defect(y) ≥ 0 is y's distance from M in those coordinates (0 on M up to round-off) and
/// project(y) a point of M near y: how initial states are checked and normalised.
template <class S>
concept HomogeneousSpace = LieAlgebra<typename S::algebra> &&
                           requires(const typename S::algebra::vec& u, const typename S::point& y) {
                             typename S::scalar;
                             requires std::same_as<std::remove_cv_t<decltype(S::dim)>, int>;
                             { y[0] } -> std::convertible_to<typename S::scalar>;
                             { S::exp_act(u, y) } -> std::same_as<typename S::point>;
                             { S::generator(u, y) } -> std::same_as<typename S::point>;
                             { S::defect(y) } -> std::convertible_to<typename S::scalar>;
                             { S::project(y) } -> std::same_as<typename S::point>;
                           };

}  // namespace lb
