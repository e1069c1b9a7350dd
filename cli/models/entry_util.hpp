// Small helpers shared by the model entries of the command line.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <liebatch/vec.hpp>

#include "cli/config/config_node.hpp"
#include "cli/models/parameters.hpp"
#include "cli/models/registry.hpp"

namespace lb::cli {

/// Three numbers of a parameter table's array as a vector, and back.
inline Vec3<double> load3(const double* v) { return vec3(v[0], v[1], v[2]); }
inline void store3(const Vec3<double>& x, double* v) { v[0] = x[0], v[1] = x[1], v[2] = x[2]; }

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
