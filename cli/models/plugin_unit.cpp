// The unit a user's model is compiled from (cli/models/plugins.cpp runs the compiler on it): the
// user's header comes in by -include, the model's template as -DLB_USER_MODEL=Name (a checked
// identifier), its methods as -DLB_USER_METHODS(X)=X(rkmk4)X(rkmk54) (checked names) and the
// cache key as -DLB_USER_KEY; -DLB_USER_GPU where plugin_unit_gpu.cu is compiled beside it with
// the model's kernels. No text of the user's is pasted into this file. A built-in entry compiled at
// run time (a pendulum chain of a length the build lacks) comes as -DLB_USER_ENTRY=lb::cli::
// PendulumEntry<N> instead, its header by -include, with its own name, presets and GPU note.
#include <string>
#include <type_traits>
#include <vector>

#include "cli/models/plugin.hpp"
#include "cli/models/user_entry.hpp"

#define LB_USER_STR2(x) #x
#define LB_USER_STR(x) LB_USER_STR2(x)

namespace {

template <class M> constexpr bool compiled_for() {
#define LB_USER_TAKES(m) || std::is_same_v<M, lb::methods::m>
  return false LB_USER_METHODS(LB_USER_TAKES);
#undef LB_USER_TAKES
}

/// The methods it was compiled for, "rkmk4, rkmk54".
std::string method_list() {
  std::string v;
#define LB_USER_NAME(m) v += (v.empty() ? "" : ", ") + std::string(#m);
  LB_USER_METHODS(LB_USER_NAME)
#undef LB_USER_NAME
  return v;
}

#ifdef LB_USER_ENTRY
struct UserEntry : LB_USER_ENTRY {
  template <class Method> static constexpr bool takes = compiled_for<Method>();
  static std::string takes_note() {
    return "this chain length was compiled at run time for " + method_list() +
           " (add the method to the model's \"methods\" to compile it too)";
  }
};
#else
struct UserEntry : lb::cli::user::Entry<LB_USER_MODEL> {
  static constexpr const char* name = LB_USER_STR(LB_USER_MODEL);
  template <class Method> static constexpr bool takes = compiled_for<Method>();
  static std::string takes_note() {
    return "this user model was compiled for " + method_list() + " (add the method to the model's \"methods\" to compile it too)";
  }
#ifdef LB_USER_GPU
  static constexpr bool gpu = true;
  /// Its kernels are its own (plugin_unit_gpu.cu), for the methods it was compiled for.
  static std::string gpu_method_missing(const std::string& method) {
    bool in = false;
#define LB_USER_IS(m) in = in || method == #m;
    LB_USER_METHODS(LB_USER_IS)
#undef LB_USER_IS
    return in ? "" : takes_note();
  }
#else
  static constexpr bool gpu = false;
  static std::string gpu_note() {
#ifdef LIEBATCH_CLI_GPU
    return "compiled without its GPU kernels (\"gpu\": false in the model object; a build whose kernels are only checked leaves them out "
           "unless it is true)";
#else
    return "this liebatch has no GPU path (built without CUDA), so neither has a user's model";
#endif
  }
#endif
};
#endif

}  // namespace

extern "C" __attribute__((visibility("default"))) void liebatch_user_model(lb::cli::PluginModel& out) {
  out.key = LB_USER_KEY;
  std::string state;
  for (const auto& n : lb::state_names<UserEntry::model<double>>()) state += (state.empty() ? "" : ", ") + n;
#ifdef LB_USER_ENTRY
  const std::vector<std::string> presets = UserEntry::presets();
#else
  const std::vector<std::string> presets;  // a user's model has none
#endif
  out.info = lb::cli::info<UserEntry>("a user's model, compiled at run time", state, presets);
  // The names' counts are known only at run time (vectors); each output array is sized by them.
  using M = UserEntry::model<double>;
  const auto names = [](std::size_t n) { return std::to_string(n) + (n == 1 ? " name" : " names"); };
  if (const std::size_t n = lb::state_names<M>().size(); n != std::size_t(M::space::dim))
    out.broken = "state_names() gives " + names(n) + " for a state of " + std::to_string(M::space::dim) + " numbers";
  else if (const std::size_t q = lb::observable_names<M>().size(); q != std::size_t(lb::observable_count<M>()))
    out.broken = "observable_names() gives " + names(q) + " for the " + std::to_string(lb::observable_count<M>()) +
                 " numbers observables(y) returns";
}
