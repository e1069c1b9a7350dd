// The models the command line knows, each with its parameters, presets and a factory.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cli/models/model_runner.hpp"

namespace lb::cli {

struct ModelInfo {
  std::string name, summary;
  std::string state;                    ///< the state's layout
  std::vector<std::string> parameters;  ///< "key: meaning (default …)"
  std::vector<std::string> presets;     ///< "name: what it sets"
  /// Builds the runner from the preset (may be empty) and the "parameters" object (may be null).
  std::function<std::unique_ptr<ModelRunner>(Node* params, const std::string& preset)> make;
  /// Instead, for an entry that compiles some of its forms at run time (pendulum_chain: a length
  /// this build lacks), with the model object's "methods" to compile them for.
  std::function<std::unique_ptr<ModelRunner>(Node* params, const std::string& preset, const std::vector<std::string>& methods)> make_for;
  /// A user's model: its header's name and the hash of its bytes and its own includes; else empty.
  std::string source = {};
};

void add_rigid_body_models(std::vector<ModelInfo>& v);
void add_heavy_top_models(std::vector<ModelInfo>& v);
void add_constrained_models(std::vector<ModelInfo>& v);
void add_pendulum_models(std::vector<ModelInfo>& v);
void add_quadrotor_models(std::vector<ModelInfo>& v);
void add_lorenz_models(std::vector<ModelInfo>& v);

/// The names a config may use for a model's components and observables (sections, plots,
/// colours), from the model with its defaults; none for a model that has no defaults (a chain of a
/// length to give).
struct ModelNames {
  std::vector<std::string> components, observables;
};
ModelNames names_of(const ModelInfo& m);

/// A model's name, summary, state, names, parameters and presets, as `list models` prints it.
std::string describe(const ModelInfo& m);

/// All models, in the order `list` prints them.
const std::vector<ModelInfo>& models();

/// A preset name checked against a model's list ("" is no preset).
inline void check_preset(const ModelInfo& m, const std::string& preset) {
  if (preset.empty()) return;
  std::string all;
  for (const auto& p : m.presets) {
    const std::string name = p.substr(0, p.find(':'));
    if (name == preset) return;
    all += (all.empty() ? "" : ", ") + name;
  }
  Node::fail("/model/preset",
             "unknown preset '" + echo(preset) + "' for " + m.name + (all.empty() ? " (it has none)" : "; expected one of " + all));
}

}  // namespace lb::cli
