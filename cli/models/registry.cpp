// The list of command-line models and the factory that builds one from the config.
#include "cli/models/registry.hpp"

#include <filesystem>
#include <optional>
#include <sstream>

#include "cli/models/method_list.hpp"
#include "cli/models/plugin.hpp"

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

/// The model object's "methods", the methods to compile a model for at run time (rkmk4 and rkmk54
/// where it has none): names of methods, also where nothing is compiled (a chain this build holds);
/// the compile checks the rest (cli/models/plugins.cpp).
std::vector<std::string> methods_of(Node& model) {
  std::vector<std::string> methods{"rkmk4", "rkmk54"};
  if (model.has("methods")) {
    const auto& v = model.raw("methods");
    if (!v.is_array() || v.empty()) Node::fail(model.at("methods"), "expected a non-empty array of method names", v);
    methods.clear();
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (!v[k].is_string()) Node::fail(model.at("methods") + "/" + std::to_string(k), "expected a method's name", v[k]);
      methods.push_back(v[k].get<std::string>());
      if (!built_in_method(methods.back()))
        Node::fail(model.at("methods") + "/" + std::to_string(k),
                   "unknown method '" + echo(methods.back()) + "'; `liebatch list methods` lists them");
    }
  }
  return methods;
}

/// A user's model: "source" (a header, relative to base_dir), "type" (its class template), the
/// "methods" to compile it for and "gpu" (its kernels too; by default where this liebatch has a GPU
/// path).
const ModelInfo& user_model_of(Node& model, const std::string& base_dir) {
  if (model.has("name")) Node::fail(model.at("name"), "a model has a \"name\" (built in) or a \"source\" (yours), not both");
  if (model.has("preset")) Node::fail(model.at("preset"), "a user's model has no presets");
  std::filesystem::path source = model.string("source");
  if (source.is_relative()) source = std::filesystem::path(base_dir) / source;
  const std::string type = model.string("type");
  const std::vector<std::string> methods = methods_of(model);
  std::optional<bool> gpu;
  if (model.has("gpu")) gpu = model.boolean("gpu", false);
  return user_model(source.string(), type, methods, gpu, model.path());
}

std::unique_ptr<ModelRunner> make_model(Node& model, const std::string& base_dir, std::string* source) {
  const ModelInfo* info = nullptr;
  if (model.has("source")) {
    info = &user_model_of(model, base_dir);
  } else {
    const std::string name = model.string("name");
    std::string all;
    for (const auto& m : models()) {
      if (m.name == name) info = &m;
      all += (all.empty() ? "" : ", ") + m.name;
    }
    if (!info) Node::fail(model.at("name"), "unknown model '" + echo(name) + "'; expected one of " + all + ", or a \"source\" of yours");
  }
  const std::string preset = model.string("preset", "");
  check_preset(*info, preset);
  std::optional<Node> params;
  if (model.has("parameters")) params.emplace(model.object("parameters"));
  auto r = info->make_for ? info->make_for(params ? &*params : nullptr, preset, methods_of(model))
                          : info->make(params ? &*params : nullptr, preset);
  model.finish();
  if (source) *source = info->source;
  return r;
}

ModelNames names_of(const ModelInfo& m) {
  if (!m.make) return {};
  try {
    const auto r = m.make(nullptr, "");
    return {r->state_names(), r->obs_names()};
  } catch (const std::exception&) {
    return {};
  }
}

std::string describe(const ModelInfo& m) {
  std::ostringstream s;
  s << m.name << "\n  " << m.summary << "\n  state: " << m.state << "\n";
  const auto line = [&](const char* what, const std::vector<std::string>& names) {
    if (names.empty()) return;
    s << "  " << what << ":";
    for (std::size_t k = 0; k < names.size(); ++k) s << (k ? ", " : " ") << names[k];
    s << "\n";
  };
  const ModelNames names = names_of(m);
  line("components by name", names.components);
  line("observables", names.observables);
  s << "  parameters:\n";
  for (const auto& p : m.parameters) s << "    " << p << "\n";
  if (!m.presets.empty()) {
    s << "  presets:\n";
    for (const auto& p : m.presets) s << "    " << p << "\n";
  }
  return s.str();
}

std::string describe_models() {
  std::string s;
  for (const auto& m : models()) s += describe(m);
  return s;
}

}  // namespace lb::cli
