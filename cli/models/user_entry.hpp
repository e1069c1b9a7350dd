// A user's model compiled at run time (docs/user-models.md) as a command-line entry: the contract
// checked with a message for each part that is missing, its parameter table and defaults from the
// model's own `parameters()` (liebatch/model_parameters.hpp), and only the methods it was compiled
// for. cli/models/plugin_unit.cpp makes a plugin of it; cli/models/plugins.cpp compiles and loads.
#pragma once
#include <array>
#include <concepts>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <liebatch/model.hpp>
#include <liebatch/model_parameters.hpp>

#include "cli/models/entry_util.hpp"

namespace lb::cli::user {

// The contract in parts, so that a model that breaks it is told which part (each a concept: a
// part that does not compile is false, not an error).
template <class M>
concept HasSpace = requires {
  typename M::space;
}
&&HomogeneousSpace<typename M::space>;
template <class M>
concept HasF = HasSpace<M> && requires(const M& m, typename M::space::scalar t, const typename M::space::point& y) {
  m.f(t, y);
};
template <class M>
concept FReturnsAlgebra = HasF<M> && requires(const M& m, typename M::space::scalar t, const typename M::space::point& y) {
  { m.f(t, y) } -> std::same_as<typename M::space::algebra::vec>;
};
template <class M>
concept HasParameters = requires {
  M::parameters();
};
template <class M>
concept HasCast = requires(const M& m) {
  {m.template cast<float>()};
  {m.template cast<long double>()};
};

/// Whether every parameter's default gives as many numbers as its member holds.
template <class M> constexpr bool defaults_complete() {
  return std::apply([](auto... p) { return (true && ... && (p.value.given == p.size)); }, M::parameters());
}

/// The static checks of model template Model, each with the message a user reads at their line.
template <template <class> class Model> constexpr bool check() {
  using M = Model<double>;
  static_assert(HasSpace<M>, "user model: no `using space = ...;` naming a homogeneous space (lb::CoadjointSO3<T>, lb::SE3<T>, ...)");
  static_assert(HasF<M>, "user model: no member `f(t, y)` (const, LB_HD) returning the algebra element that moves y");
  static_assert(FReturnsAlgebra<M>,
                "user model: f(t, y) must return typename space::algebra::vec (as many numbers as the algebra's dimension)");
  static_assert(std::is_trivially_copyable_v<M>, "user model: it must be trivially copyable (parameters by value, no pointers)");
  static_assert(HasParameters<M>, "user model: no `static constexpr auto parameters()` (lb::parameters(lb::parameter<&M::x>(...), ...))");
  static_assert(defaults_complete<M>(), "user model: a parameter's default has not as many numbers as its member holds");
  static_assert(HasCast<M>, "user model: no `template <class U> M<U> cast() const` (the model in float and long double)");
  return true;
}

/// The entry's table: the model's parameters() as the command line's Param rows.
template <class P> std::vector<Param<P>> table_of() {
  return std::apply(
      [](auto... p) {
        return std::vector<Param<P>>{
            member<decltype(p)::member>(p.key, p.domain == ParameterDomain::positive ? Domain::positive : Domain::finite, p.help)...};
      },
      P::parameters());
}

/// The model's defaults: each parameter's numbers set on a value-initialised model.
template <class P> P defaults() {
  P m{};
  const auto table = table_of<P>();
  std::size_t k = 0;
  std::apply([&](auto... p) { (table[k++].set(m, p.value.value), ...); }, P::parameters());
  return m;
}

/// The entry of Model, less its name and methods (cli/models/plugin_unit.cpp adds them).
template <template <class> class Model> struct Entry {
  static_assert(check<Model>());
  template <class T> using model = Model<T>;
  using parameters = Model<double>;
  static std::span<const Param<parameters>> table() {
    static const std::vector<Param<parameters>> t = [] {
      auto v = table_of<parameters>();
      for (std::size_t i = 0; i < v.size(); ++i)  // a config could set only one of two
        for (std::size_t j = 0; j < i; ++j)
          if (std::string_view(v[i].key) == v[j].key)
            throw std::runtime_error(std::string("user model: parameter '") + v[i].key + "' is declared twice in parameters()");
      return v;
    }();
    return t;
  }
  static parameters base(const std::string&) { return defaults<parameters>(); }
};

}  // namespace lb::cli::user
