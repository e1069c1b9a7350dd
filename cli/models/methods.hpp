// The integrators by name, for the model entries: `with_method(name, f)` calls f(MethodTag<M>{})
// for the built-in method called name (LB_METHODS); `add_method` adds a user's method to the list
// at run time, for the model types it names (examples/user_method.cpp). Their names, orders and
// descriptions alone are in cli/models/method_list.hpp.
#pragma once
#include <map>
#include <string>

#include <liebatch/ensemble/cpu.hpp>

#include "cli/models/method_list.hpp"
#include "cli/models/method_names.hpp"
#include "cli/config/spec_ensemble.hpp"

namespace lb::cli {

template <class M> struct MethodTag { using type = M; };

/// How a user's method runs a model type on the CPU.
template <class Model>
using UserRun = EnsembleOutput<typename Model::space::scalar> (*)(const Ensemble<Model>&, const RunOptions&, const RunSpec&);

/// Model type → the user's methods for it, by name.
template <class Model> std::map<std::string, UserRun<Model>>& user_runs() {
  static std::map<std::string, UserRun<Model>> m;
  return m;
}

/// Adds Method to the command line's list as `name`, for the models whose type is one of
/// Models<T> (T = float, double, long double: the command's runs, references and round-off), e.g.
/// add_method<my_method, lb::HeavyTop, lb::FreeRigidBody>("my_method", "…"). Call before cli_main.
template <class Method, template <class> class... Models> void add_method(const std::string& name, const std::string& what) {
  user_methods().push_back({name, Method::order, Method::order_hat, Method::stages, what});
  auto add = [&]<class Model>() {
    user_runs<Model>()[name] = [](const Ensemble<Model>& e, const RunOptions& o, const RunSpec& s) {
      return with_section<typename Model::space::scalar>(s, [&](const auto& sec) { return run_cpu<Method>(e, o, sec); });
    };
  };
  (...,
   (add.template operator()<Models<float>>(), add.template operator()<Models<double>>(), add.template operator()<Models<long double>>()));
}

/// Calls f(MethodTag<M>{}) for the built-in method named `name` and returns true; false for
/// another name. f must handle a method that does not serve its model (MethodFor).
template <class F> bool with_method(const std::string& name, F&& f) {
#define LB_CLI_DISPATCH(m, w, ...) \
  if (name == #m) {                \
    f(MethodTag<methods::m>{});    \
    return true;                   \
  }
  LB_CLI_METHODS(LB_CLI_DISPATCH)
  LB_CLI_SYMPLECTIC_METHODS(LB_CLI_DISPATCH)
  LB_CLI_CONSTRAINED_METHODS(LB_CLI_DISPATCH)
#undef LB_CLI_DISPATCH
  return false;
}

}  // namespace lb::cli
