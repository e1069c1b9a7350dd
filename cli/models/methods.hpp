// The integrators by name, for configs: `with_method(name, f)` calls f(MethodTag<M>{}) for the
// built-in method called name (LB_METHODS); `add_method` adds a user's method to the list at run
// time, for the model types it names (examples/user_method.cpp).
#pragma once
#include <map>
#include <string>
#include <vector>

#include <liebatch/ensemble/cpu.hpp>
#include <liebatch/methods/methods.hpp>

#include "cli/config/config_node.hpp"
#include "cli/models/method_names.hpp"
#include "cli/config/spec_ensemble.hpp"

namespace lb::cli {

template <class M> struct MethodTag { using type = M; };

/// A method's name, order, embedded order (0: no pair), stages, one-line description, and the
/// models it serves ("": every model).
struct MethodInfo {
  std::string name;
  int order, order_hat, stages;
  std::string what, serves = "";
};

/// What the symplectic methods serve: the command line's models on T*SO(3); the half-explicit ones:
/// the constrained systems, which no other method steps.
inline const char* symplectic_models =
    "models on T*SO(3): heavy_top_spatial, rigid_body_attitude; the SLGI ones also heavy_top_quadratic (SLGIKK)";
inline const char* constrained_models = "constrained systems: heavy_top_se3, planar_pendulum";

/// The methods added by add_method, in order.
inline std::vector<MethodInfo>& user_methods() {
  static std::vector<MethodInfo> v;
  return v;
}

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

/// Every method: the built-in ones, then the user's.
inline std::vector<MethodInfo> method_list() {
  std::vector<MethodInfo> v;
#define LB_CLI_INFO(m, w, ...) v.push_back({#m, methods::m::order, methods::m::order_hat, methods::m::stages, w});
  LB_CLI_METHODS(LB_CLI_INFO)
#undef LB_CLI_INFO
#define LB_CLI_INFO(m, w, ...) v.push_back({#m, methods::m::order, methods::m::order_hat, methods::m::stages, w, symplectic_models});
  LB_CLI_SYMPLECTIC_METHODS(LB_CLI_INFO)
#undef LB_CLI_INFO
#define LB_CLI_INFO(m, w, ...) v.push_back({#m, methods::m::order, methods::m::order_hat, methods::m::stages, w, constrained_models});
  LB_CLI_CONSTRAINED_METHODS(LB_CLI_INFO)
#undef LB_CLI_INFO
  v.insert(v.end(), user_methods().begin(), user_methods().end());
  return v;
}

/// A method name checked against method_list(); an unknown name is a config error at `path`.
inline void check_method(const std::string& name, const std::string& path) {
  std::string all;
  for (const auto& m : method_list()) {
    if (m.name == name) return;
    all += (all.empty() ? "" : ", ") + m.name;
  }
  Node::fail(path, "unknown method '" + echo(name) + "'; expected one of " + all);
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

/// The entry of `name` in method_list() (which must hold it).
inline MethodInfo method_info(const std::string& name) {
  for (const auto& m : method_list())
    if (m.name == name) return m;
  Node::fail("/method", "unknown method '" + echo(name) + "'");
}

/// Why the built-in method does not serve a model: the models it serves.
inline std::string serves_note(const std::string& method) {
  const std::string serves = method_info(method).serves;
  return "it serves " + (serves.empty() ? std::string("every model but the ") + constrained_models + ", which only hedop5 steps" : serves);
}

/// A config error at `path`: the method does not apply to the model, and why.
[[noreturn]] inline void fail_refused(const std::string& path, const std::string& method, const std::string& model,
                                      const std::string& why) {
  Node::fail(path, "method '" + echo(method) + "' does not apply to model '" + model + "': " + why);
}

}  // namespace lb::cli
