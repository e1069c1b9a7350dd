// Any model rewritten in its embedding coordinates, ẏ = ψ_*(f(t, y))|_y on ℝⁿ under translation.
// Lie group methods applied to it are their classical Runge–Kutta methods: the baseline that
// shows what the Lie machinery costs and what it buys (invariants kept or not).
#pragma once
#include "../group_space.hpp"
#include "../model.hpp"

namespace lb {

template <class Model> struct Embedded {
  using base_space = typename Model::space;
  static constexpr bool packs = requires { requires Model::packs; };  ///< as the model
  using scalar = typename base_space::scalar;
  using space = Euclidean<scalar, base_space::dim>;
  using point = typename space::point;
  Model model;

  LB_HD point f(scalar t, const point& y) const { return base_space::generator(model.f(t, y), y); }
  static std::vector<std::string> state_names() { return lb::state_names<Model>(); }
  template <class U> LB_HD auto cast() const { return Embedded<decltype(model.template cast<U>())>{model.template cast<U>()}; }
};

}  // namespace lb
