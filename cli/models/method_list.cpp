#include "cli/models/method_list.hpp"

#include "cli/config/config_node.hpp"
#include "cli/models/method_names.hpp"

namespace lb::cli {

std::vector<MethodInfo> method_list() {
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

bool built_in_method(const std::string& name) {
#define LB_CLI_IS(m, w, ...) || name == #m
  return false LB_CLI_METHODS(LB_CLI_IS) LB_CLI_SYMPLECTIC_METHODS(LB_CLI_IS) LB_CLI_CONSTRAINED_METHODS(LB_CLI_IS);
#undef LB_CLI_IS
}

void check_method(const std::string& name, const std::string& path) {
  std::string all;
  for (const auto& m : method_list()) {
    if (m.name == name) return;
    all += (all.empty() ? "" : ", ") + m.name;
  }
  Node::fail(path, "unknown method '" + echo(name) + "'; expected one of " + all);
}

MethodInfo method_info(const std::string& name) {
  for (const auto& m : method_list())
    if (m.name == name) return m;
  Node::fail("/method", "unknown method '" + echo(name) + "'");
}

std::string serves_note(const std::string& method) {
  const std::string serves = method_info(method).serves;
  return "it serves " + (serves.empty() ? std::string("every model but the ") + constrained_models + ", which only hedop5 steps" : serves);
}

void fail_refused(const std::string& path, const std::string& method, const std::string& model, const std::string& why) {
  Node::fail(path, "method '" + echo(method) + "' does not apply to model '" + model + "': " + why);
}

}  // namespace lb::cli
