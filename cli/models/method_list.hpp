// The command line's methods by name, as configs and `list methods` see them: each one's orders,
// stages and description, and the config errors that name them. The methods themselves (their
// dispatch and a user's methods' runs) are in cli/models/methods.hpp, which the commands need not
// compile.
#pragma once
#include <string>
#include <vector>

namespace lb::cli {

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

/// The methods added by add_method (cli/models/methods.hpp), in order.
inline std::vector<MethodInfo>& user_methods() {
  static std::vector<MethodInfo> v;
  return v;
}

/// Every method: the built-in ones, then the user's.
std::vector<MethodInfo> method_list();

/// Whether `name` is a built-in method (LB_CLI_METHODS and the symplectic and half-explicit ones).
bool built_in_method(const std::string& name);

/// A method name checked against method_list(); an unknown name is a config error at `path`.
void check_method(const std::string& name, const std::string& path);

/// The entry of `name` in method_list() (which must hold it).
MethodInfo method_info(const std::string& name);

/// Why the built-in method does not serve a model: the models it serves.
std::string serves_note(const std::string& method);

/// A config error at `path`: the method does not apply to the model, and why.
[[noreturn]] void fail_refused(const std::string& path, const std::string& method, const std::string& model, const std::string& why);

}  // namespace lb::cli
