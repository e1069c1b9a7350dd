// Small helpers shared by the model entries of the command line.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <liebatch/vec.hpp>

#include "cli/config/config_node.hpp"
#include "cli/models/registry.hpp"

namespace lb::cli {

/// A parameter array of n numbers > 0 (masses, lengths, inertias), or def when absent.
inline std::vector<double> positives(Node* p, const std::string& key, std::size_t n, std::vector<double> def) {
  if (!p || !p->has(key)) return def;
  auto v = p->numbers(key, n);
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!(v[i] > 0)) Node::fail(p->at(key) + "/" + std::to_string(i), "expected a number > 0, got " + std::to_string(v[i]));
  return v;
}
inline Vec3<double> vec3_of(const std::vector<double>& v) { return vec3(v[0], v[1], v[2]); }
inline Vec3<double> vector3(Node* p, const std::string& key, Vec3<double> def) {
  if (!p || !p->has(key)) return def;
  return vec3_of(p->numbers(key, 3));
}
inline double positive(Node* p, const std::string& key, double def) { return p ? p->positive(key, def) : def; }
inline double number(Node* p, const std::string& key, double def) { return p ? p->number(key, def) : def; }

/// A ModelInfo whose factory builds Runner<Entry> from Entry::parse(params, preset).
template <class Entry>
ModelInfo info(std::string summary, std::string state, std::vector<std::string> parameters, std::vector<std::string> presets) {
  return {Entry::name,
          std::move(summary),
          std::move(state),
          std::move(parameters),
          std::move(presets),
          [](Node* params, const std::string& preset) -> std::unique_ptr<ModelRunner> {
            auto p = Entry::parse(params, preset);
            if (params) params->finish();
            return std::make_unique<Runner<Entry>>(std::move(p));
          }};
}

}  // namespace lb::cli
