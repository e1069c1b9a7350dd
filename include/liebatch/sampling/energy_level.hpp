// Points on an energy level set: keep the configuration, rescale the velocities. For a model whose
// energy is K(y) + U(y) with K quadratic in the velocities, scale_velocity(y, λ) multiplies K by λ²,
// so U = energy(scale_velocity(y, 0)), K = energy(y) − U and λ = √((E − U)/K).
#pragma once
#include <concepts>

#include "../scalar.hpp"

namespace lb {

/// A model whose states can be put on an energy level: energy(y), and scale_velocity(y, λ).
template <class M>
concept EnergyLevels = requires(const M& m, const typename M::space::point& y, typename M::space::scalar s) {
  { m.energy(y) } -> std::convertible_to<typename M::space::scalar>;
  { m.scale_velocity(y, s) } -> std::same_as<typename M::space::point>;
};

/// Rescales y's velocities so that model.energy(y) = E. Returns false (y unchanged) when E is below
/// the potential energy of y's configuration or y has no velocity to scale.
template <EnergyLevels Model>
LB_HD bool on_energy_level(const Model& model, typename Model::space::point& y, typename Model::space::scalar E) {
  using T = typename Model::space::scalar;
  const T U = model.energy(model.scale_velocity(y, T(0)));
  const T K = model.energy(y) - U;
  if (!(E >= U) || !(K > T(0))) return false;
  y = model.scale_velocity(y, lb::sqrt((E - U) / K));
  return true;
}

}  // namespace lb
