// The integrators by name, for configs: `with_method(name, f)` calls f(MethodTag<M>{}) for the
// method called name.
#pragma once
#include <string>
#include <vector>

#include <liebatch/methods/methods.hpp>

#include "config_node.hpp"
#include "method_names.hpp"

namespace lb::cli {

template <class M> struct MethodTag {
  using type = M;
};

/// A method's name, order, embedded order (0: no pair), stages and one-line description.
struct MethodInfo {
  std::string name;
  int order, order_hat, stages;
  std::string what;
};

inline std::vector<MethodInfo> method_list() {
  std::vector<MethodInfo> v;
#define LB_CLI_INFO(m, w) v.push_back({#m, methods::m::order, methods::m::order_hat, methods::m::stages, w});
  LB_CLI_METHODS(LB_CLI_INFO)
#undef LB_CLI_INFO
  return v;
}

/// Calls f(MethodTag<M>{}) for the method named `name`; an unknown name is a config error at `path`.
template <class F> decltype(auto) with_method(const std::string& name, const std::string& path, F&& f) {
#define LB_CLI_DISPATCH(m, w) \
  if (name == #m) return f(MethodTag<methods::m>{});
  LB_CLI_METHODS(LB_CLI_DISPATCH)
#undef LB_CLI_DISPATCH
  std::string all;
  for (const auto& m : method_list()) all += (all.empty() ? "" : ", ") + m.name;
  Node::fail(path, "unknown method '" + echo(name) + "'; expected one of " + all);
}

/// The entry of `name` in method_list() (which must hold it).
inline MethodInfo method_info(const std::string& name) {
  for (const auto& m : method_list())
    if (m.name == name) return m;
  Node::fail("/method", "unknown method '" + echo(name) + "'");
}

}  // namespace lb::cli
