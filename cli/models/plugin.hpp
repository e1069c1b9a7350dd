// Users' models compiled at run time (docs/user-models.md): a config's "model" object naming a
// "source" header, a "type" and its "methods" gets the model's entry from a plugin, compiled once
// into the user's cache with the command's own compiler and flags, then loaded from there.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/config/config_node.hpp"
#include "cli/models/registry.hpp"

namespace lb::cli {

/// A user's model that does not compile (exit 2, as a bad config): the compiler's own text, at the
/// lines of the user's header. Nothing is cached.
struct CompileError : ConfigError {
  using ConfigError::ConfigError;
};

/// What a plugin gives: the key it was compiled under (checked against the loader's) and the entry;
/// the loader adds the object's path.
struct PluginModel {
  std::string key;
  ModelInfo info;
  std::string object;
  /// What the model breaks of the contract that only a run can see ("state_names() gives 1 name
  /// for a state of 3 numbers"), or empty; the loader refuses it.
  std::string broken;
};

/// The entry of model template `type` in the header at `source` for `methods`, with its GPU kernels
/// where `gpu` (by default where this liebatch has a GPU path), from the cache or compiled into it
/// (a line on stderr says so). Errors name `path` (the config's "model" object): a bad type or
/// method name, an unreadable source, "gpu" in a build without CUDA, a compile error (CompileError).
const ModelInfo& user_model(const std::string& source, const std::string& type, const std::vector<std::string>& methods,
                            std::optional<bool> gpu, const std::string& path);

/// The entry of the pendulum chain of n links, a length this build does not hold, for `methods`: a
/// plugin of cli/models/pendulum_entry.hpp, compiled and cached as a user's model is (CPU only).
const ModelInfo& chain_model(int n, const std::vector<std::string>& methods, const std::string& path);

/// Run once before the first plugin is loaded. Plugins link against the command's code: a host that
/// opened that code with RTLD_LOCAL (the Python module) makes it global here.
std::function<void()>& before_first_plugin();

/// The directory plugins are cached in: $LIEBATCH_CACHE_DIR, else $XDG_CACHE_HOME/liebatch, else
/// ~/.cache/liebatch; with models/ under it. Made if needed, returned without links, and refused
/// (IoError) where it is relative, not this user's alone, or lies where another user can change it.
std::string plugin_cache();

}  // namespace lb::cli
