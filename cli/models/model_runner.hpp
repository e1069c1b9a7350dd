// A model as the command line sees it: parameters from the config, the state's manifold (defect,
// projection, perturbation by the group action, energy levels), and runs in double or in long
// double for reference solutions. Runner<Entry> (cli/models/runner.hpp) implements it for any
// model entry (models_*.cpp); the commands see this interface alone and compile no engine.
#pragma once
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli/config/config_node.hpp"
#include "cli/config/spec.hpp"
#include "cli/models/member_parameters.hpp"

namespace lb::cli {

/// A member index, or `base_model` for the model of the config's fixed parameters (the initial states
/// given in the config are checked on it).
inline constexpr std::size_t base_model = std::size_t(-1);

class ModelRunner {
 public:
  virtual ~ModelRunner() = default;
  virtual std::string name() const = 0;
  /// Numbers per state, and the dimension of the acting group's algebra (the perturbations of an
  /// ensemble; a constrained system's multipliers are not perturbed but completed).
  virtual int dim() const = 0;
  virtual int algebra_dim() const = 0;
  /// The preset's initial state, or empty.
  virtual std::vector<double> preset_initial() const = 0;
  /// Distance of y from the model's manifold (e.g. | |q| − 1 |), and the nearest point on it; for
  /// a constrained system, from the consistent states (ConstrainedSystem::consistency_defect,
  /// consistent: constraints, hidden constraints and the multiplier).
  /// Each takes the member whose parameters hold (MemberRule), or `base_model`.
  virtual double defect(const double* y, std::size_t member) const = 0;
  virtual void project(double* y, std::size_t member) const = 0;
  /// out = exp(ξ)·y: a point of the same manifold (and orbit); for a constrained system, made
  /// consistent again (the group's action moves q off Φ = 0 and v off B v = 0).
  virtual void perturb(const double* y, const double* xi, double* out, std::size_t member) const = 0;
  /// The multipliers at the end of a state (constrained systems), 0 for other models; a config may
  /// give a state without them, and complete(y) fills them in from the rest (consistent_multiplier).
  virtual int multipliers() const = 0;
  virtual void complete(double* y, std::size_t member) const = 0;
  /// A constrained system's state in parts: the numbers of q (embedded), v and λ; empty otherwise.
  virtual std::vector<int> parts() const = 0;
  /// Whether energy levels can be targeted, and y's velocities rescaled to energy E (false: unreachable).
  virtual bool has_energy_level() const = 0;
  virtual bool energy_level(double* y, double E, std::size_t member) const = 0;
  /// The parameters that vary per member and how (empty: one model for all); set_rule gives it the
  /// draws' sampler (on a Philox stream of its own, UnitSampler::stream 2), N₀ once the initial
  /// states are known, and whether the run is in float.
  virtual const MemberRule& rule() const = 0;
  virtual void set_rule(const UnitSampler& draws, std::size_t states, bool single) = 0;
  /// Members [i0, i0 + n)'s values of each varied parameter (all its numbers), parameter-major:
  /// v[p][c·n + k] for component c, made on `threads` threads; and the parameters' keys and sizes.
  virtual std::vector<std::vector<double>> member_parameters(std::size_t i0, std::size_t n, int threads) const = 0;
  virtual std::vector<std::pair<std::string, int>> varied_parameters() const = 0;
  virtual std::vector<std::string> state_names() const = 0;
  virtual std::vector<std::string> obs_names() const = 0;
  /// The first parameter number that float cannot hold (float_cannot_hold), of those all members
  /// share and of the sweeps' points: its config path and what it is ("/model/parameters/inertia/0",
  /// "its value"); empty when there is none. (Draws are checked member by member: MemberRule.)
  virtual std::pair<std::string, std::string> beyond_float() const = 0;
  /// Why the built-in method `method` does not serve this model (the symplectic methods serve only
  /// the models on T*SO(3); a model entry may take only some methods); "" when it does, and for
  /// other names (a user's method says its models in add_method).
  virtual std::string refusal(const std::string& method) const = 0;
  /// "" when this build holds the model's GPU kernels for `method` (for the model alone where
  /// `method` is empty), otherwise why not.
  virtual std::string gpu_missing(const std::string& method) const = 0;
  /// Runs in double (float when s.single), on the GPU when s.gpu / in long double, always on the
  /// CPU (reference solutions, validation).
  virtual RunResult run(const RunSpec& s) const = 0;
  virtual RunResult run_extended(const RunSpec& s) const = 0;
};

/// The model of the config's "model" object: a built-in one ("name", "preset") or a user's
/// ("source", "type", "methods": cli/models/plugin.hpp, its source relative to base_dir), with
/// its "parameters"; `source`, where given, gets a user's model's header and hash (ModelInfo::source).
std::unique_ptr<ModelRunner> make_model(Node& model, const std::string& base_dir = ".", std::string* source = nullptr);
/// `liebatch list models`: every model with its parameters and presets.
std::string describe_models();

}  // namespace lb::cli
