// The contract of a model: a vector field on a homogeneous space given through the action,
// ẏ = ψ_*(f(t, y))|_y with f : ℝ × M → 𝔤 ([MK98]; docs/spaces-and-models.md), as every model
// of models/ and a user's own (examples/user_model.cpp) write it.
#pragma once
#include <concepts>
#include <type_traits>

#include "homogeneous_space.hpp"

namespace lb {

/// M: `space`, a HomogeneousSpace, and `f(t, y)`, the algebra element that moves y at time t. A
/// model is copied by value to every member (into GPU memory too), so it is trivially copyable:
/// parameters, not pointers to them. Optionally `observables(y)`, recorded at samples and hits.
template <class M>
concept Model = HomogeneousSpace<typename M::space> && std::is_trivially_copyable_v<M> &&
                requires(const M& m, typename M::space::scalar t, const typename M::space::point& y) {
                  { m.f(t, y) } -> std::same_as<typename M::space::algebra::vec>;
                };

}  // namespace lb
