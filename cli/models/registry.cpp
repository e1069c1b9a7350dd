// The list of command-line models and the factory that builds one from the config.
#include "cli/models/registry.hpp"

#include <optional>
#include <sstream>

namespace lb::cli {

const std::vector<ModelInfo>& models() {
  static const std::vector<ModelInfo> v = [] {
    std::vector<ModelInfo> r;
    add_rigid_body_models(r);
    add_heavy_top_models(r);
    add_constrained_models(r);
    add_pendulum_models(r);
    add_quadrotor_models(r);
    add_lorenz_models(r);
    return r;
  }();
  return v;
}

std::unique_ptr<ModelRunner> make_model(Node& model) {
  const std::string name = model.string("name");
  const ModelInfo* info = nullptr;
  std::string all;
  for (const auto& m : models()) {
    if (m.name == name) info = &m;
    all += (all.empty() ? "" : ", ") + m.name;
  }
  if (!info) Node::fail(model.at("name"), "unknown model '" + echo(name) + "'; expected one of " + all);
  const std::string preset = model.string("preset", "");
  check_preset(*info, preset);
  std::optional<Node> params;
  if (model.has("parameters")) params.emplace(model.object("parameters"));
  auto r = info->make(params ? &*params : nullptr, preset);
  model.finish();
  return r;
}

std::string describe_models() {
  std::ostringstream s;
  for (const auto& m : models()) {
    s << m.name << "\n  " << m.summary << "\n  state: " << m.state << "\n  parameters:\n";
    for (const auto& p : m.parameters) s << "    " << p << "\n";
    if (!m.presets.empty()) {
      s << "  presets:\n";
      for (const auto& p : m.presets) s << "    " << p << "\n";
    }
  }
  return s.str();
}

}  // namespace lb::cli
