// Small helpers shared by the model entries of the command line.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <liebatch/vec.hpp>

#include "cli/config/config_node.hpp"
#include "cli/models/parameters.hpp"
#include "cli/models/runner.hpp"
#include "cli/models/registry.hpp"

namespace lb::cli {

/// Three numbers of a parameter table's array as a vector, and back.
inline Vec3<double> load3(const double* v) { return vec3(v[0], v[1], v[2]); }
inline void store3(const Vec3<double>& x, double* v) { v[0] = x[0], v[1] = x[1], v[2] = x[2]; }

/// Whether parameter `key` may vary per member: every one with a value of its own, unless the entry
/// narrows them (`static bool varies(key)` with `fixed_note()`: a parameter its state depends on).
template <class Entry> bool may_vary(const std::string& key) {
  if constexpr (requires { Entry::varies(key); }) return Entry::varies(key);
  else return true;
}
template <class Entry> std::string fixed_note() {
  if constexpr (requires { Entry::fixed_note(); }) return Entry::fixed_note();
  else return "";
}

/// The runner of Entry for a config's "parameters" object (may be null) and preset: the base
/// parameters (`Entry::base(preset)`), the table's numbers the config gives (fixed, or varying per
/// member into the rule), then the preset's initial state for them (`Entry::initial`). An entry
/// may check the object first (`Entry::check`: a structural parameter, exclusive keys).
template <class Entry> std::unique_ptr<ModelRunner> make_runner(Node* params, const std::string& preset) {
  using P = typename entry_parameters<Entry>::type;
  if constexpr (requires { Entry::check(params); }) Entry::check(params);
  P p = Entry::base(preset);
  MemberRule rule;
  read_params<P>(params, Entry::table(), p, rule);
  for (const auto* list : {&rule.sweeps, &rule.draws})
    for (const auto& v : *list)
      if (!may_vary<Entry>(Entry::table()[std::size_t(v.param)].key))
        Node::fail(params->at(Entry::table()[std::size_t(v.param)].key), "cannot vary per member: " + fixed_note<Entry>());
  if (params) params->finish();
  std::vector<double> initial;
  if constexpr (requires { Entry::initial(p, preset); }) initial = Entry::initial(p, preset);
  return std::make_unique<Runner<Entry>>(p, std::move(initial), std::move(rule));
}

/// The table's help lines over the default parameters, and which parameters may vary per member.
template <class Entry> std::vector<std::string> parameter_help() {
  using P = typename entry_parameters<Entry>::type;
  auto v = help_lines<P>(Entry::table(), Entry::base(""));
  std::string vary;
  for (const auto& p : Entry::table())
    if (p.get && may_vary<Entry>(p.key)) vary += (vary.empty() ? "" : ", ") + std::string(p.key);
  v.push_back("vary per member (sweeps, distributions): " + vary);
  return v;
}

/// A ModelInfo whose factory is make_runner<Entry>.
template <class Entry> ModelInfo info(std::string summary, std::string state, std::vector<std::string> presets) {
  return {Entry::name, std::move(summary), std::move(state), parameter_help<Entry>(), std::move(presets), make_runner<Entry>, nullptr};
}

}  // namespace lb::cli
