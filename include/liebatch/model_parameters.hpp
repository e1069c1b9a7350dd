// A model's parameters declared in the model itself: key, default, meaning and domain of each
// member that a config or Python may set. The command line reads its built-in models' parameters
// from tables of its own; a user's model, compiled at run time (docs/user-models.md), declares them
// here, in a static constexpr `parameters()`:
//
//   static constexpr auto parameters() {
//     return lb::parameters(lb::parameter<&Gyrostat::inertia>("inertia", {2, 1, 0.5}, "principal moments", lb::positive),
//                           lb::parameter<&Gyrostat::rotor>("rotor", {0, 0, 0.3}, "rotor angular momentum"));
//   }
#pragma once
#include <cstddef>
#include <initializer_list>
#include <tuple>
#include <type_traits>

namespace lb {

/// The check every number of a parameter passes (finiteness always).
enum class ParameterDomain { finite, positive };
inline constexpr ParameterDomain finite = ParameterDomain::finite;      ///< any finite number
inline constexpr ParameterDomain positive = ParameterDomain::positive;  ///< > 0

namespace detail {
template <class P> struct field_of;
template <class M, class F> struct field_of<F M::*> {
  using model = M;
  using type = F;
};
/// Numbers a field holds: 1 for a number, the extent of an array, Vec's size.
template <class F> constexpr int field_size() {
  if constexpr (std::is_arithmetic_v<F>) return 1;
  else if constexpr (std::is_array_v<F>) return int(std::extent_v<F>);
  else return int(F::size);
}
template <class...> inline constexpr bool always_false = false;
}  // namespace detail

/// The default numbers of a parameter of n numbers: `2.5` or `{2, 1, 0.5}`; `given` counts them,
/// so that a wrong count is a compile error naming it (checked where the model is compiled).
template <int n> struct ParameterDefault {
  double value[n] = {};
  int given = 0;
  constexpr ParameterDefault() = default;
  constexpr ParameterDefault(double x) : given(1) { value[0] = x; }
  constexpr ParameterDefault(std::initializer_list<double> xs) : given(int(xs.size())) {
    int k = 0;
    for (double x : xs)
      if (k < n) value[k++] = x;
  }
};

/// Member `field` of the model as parameter `key`, with its default numbers, meaning and domain.
template <auto field> struct Parameter {
  using model = typename detail::field_of<decltype(field)>::model;
  static constexpr int size = detail::field_size<typename detail::field_of<decltype(field)>::type>();
  static constexpr auto member = field;
  const char* key;
  ParameterDefault<size> value;
  const char* help;
  ParameterDomain domain;
};

/// Declares member `field` as parameter `key` with its default numbers.
template <auto field> constexpr Parameter<field> parameter(const char* key, ParameterDefault<Parameter<field>::size> value,
                                                           const char* help, ParameterDomain domain = finite) {
  return {key, value, help, domain};
}
/// A parameter without a default cannot be: every parameter of a model has one, so that a config
/// that sets none runs. (Only a text in the default's place matches: a default of 0 is a number.)
template <auto field, class Help, class... A>
requires std::is_same_v < std::decay_t<Help>,
const char* > || std::is_same_v<std::decay_t<Help>, char*> constexpr Parameter<field> parameter(const char*, Help, A...) {
  static_assert(detail::always_false<Help, A...>,
                "lb::parameter: this parameter has no default; declare it as lb::parameter<&Model::x>(\"x\", default, \"meaning\")");
  return {};
}

/// The model's parameters, in the order `liebatch list models` prints them.
template <auto... fields> constexpr std::tuple<Parameter<fields>...> parameters(Parameter<fields>... p) { return {p...}; }

}  // namespace lb
