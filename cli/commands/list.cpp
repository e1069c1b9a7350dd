// liebatch list: the models with their parameters and presets, the methods, the presets.
#include <algorithm>
#include <iostream>

#include "cli/commands/commands.hpp"
#include "cli/models/gpu_run.hpp"
#include "cli/models/method_list.hpp"
#include "cli/models/plugin.hpp"
#include "cli/models/registry.hpp"

namespace lb::cli {

int list_command(const std::string& what, const UserModelArgs& user) {
  if (!user.source.empty() || !user.type.empty()) {
    if (user.source.empty() || user.type.empty() || (what != "models" && what != "all"))
      throw ConfigError("list: --source and --type go together, with `list models`");
    std::cout << describe(user_model(user.source, user.type, user.methods, std::nullopt, "(list --source)"));
    return ok;
  }
  if (what == "models" || what == "all") std::cout << describe_models();
  if (what == "methods" || what == "all") {
    const auto gpu = gpu_methods();
    std::cout << (what == "all" ? "\n" : "") << "methods (name: order[, embedded order], stages; [gpu]: has GPU kernels in this build):\n";
    for (const auto& m : method_list())
      std::cout << "  " << m.name << ": order " << m.order
                << (m.order_hat ? ", pair " + std::to_string(m.order) + "(" + std::to_string(m.order_hat) + ")" : "") << ", " << m.stages
                << " stages - " << m.what << (m.serves.empty() ? "" : "; for " + m.serves)
                << (std::find(gpu.begin(), gpu.end(), m.name) != gpu.end() ? " [gpu]" : "") << "\n";
  }
  if (what == "presets" || what == "all") {
    std::cout << (what == "all" ? "\n" : "") << "presets (model: preset):\n";
    for (const auto& m : models())
      for (const auto& p : m.presets) std::cout << "  " << m.name << ": " << p << "\n";
  }
  return ok;
}

}  // namespace lb::cli
