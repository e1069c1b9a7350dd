// The unit a user's model is compiled from (cli/models/plugins.cpp runs the compiler on it): the
// user's header comes in by -include, the model's template as -DLB_USER_MODEL=Name (a checked
// identifier), its methods as -DLB_USER_METHODS(X)=X(rkmk4)X(rkmk54) (checked names) and the
// cache key as -DLB_USER_KEY. No text of the user's is pasted into this file.
#include <string>
#include <type_traits>

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

struct UserEntry : lb::cli::user::Entry<LB_USER_MODEL> {
  static constexpr const char* name = LB_USER_STR(LB_USER_MODEL);
  template <class Method> static constexpr bool takes = compiled_for<Method>();
  static std::string takes_note() {
    std::string v;
#define LB_USER_NAME(m) v += (v.empty() ? "" : ", ") + std::string(#m);
    LB_USER_METHODS(LB_USER_NAME)
#undef LB_USER_NAME
    return "this user model was compiled for " + v + " (add the method to the model's \"methods\" to compile it too)";
  }
};

}  // namespace

extern "C" __attribute__((visibility("default"))) void liebatch_user_model(lb::cli::PluginModel& out) {
  out.key = LB_USER_KEY;
  std::string state;
  for (const auto& n : lb::state_names<UserEntry::model<double>>()) state += (state.empty() ? "" : ", ") + n;
  out.info = lb::cli::info<UserEntry>("a user's model, compiled at run time", state, {});
}
