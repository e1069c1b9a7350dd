// A whole config, read and checked: the model, the method(s), time span, stepping, initial states
// (given, from a file, or sampled around them by the group action, optionally on an energy level),
// outputs, and the section / convergence / validation settings of the commands that use them.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <liebatch/sampling/unit_sampler.hpp>

#include "cli/config/config_node.hpp"
#include "cli/models/model_runner.hpp"

namespace lb::cli {

struct ConvergeSpec {
  std::vector<std::string> methods;
  std::vector<double> steps;  ///< step sizes, largest first
  std::string reference;      ///< "extended" (long double), "method" (another method in double)
  std::string ref_method;     ///< reference method
  double ref_h = 0;           ///< reference step
};

struct ValidateSpec {
  std::string against = "extended";  ///< "extended" or "gpu"
  double bound = 0;                  ///< 0: the default bound (see validate)
};

/// The members' initial states, made on demand: member i's state is a pure function of i (with
/// s = i mod N₀: base state s mod bases, moved by exp(ξ_s) with ξ_s from the sampler, rescaled to
/// member i's energy level), so large ensembles are generated batch by batch.
struct InitialStates {
  const ModelRunner* model = nullptr;
  std::vector<std::vector<double>> base;
  bool ensemble = false;
  UnitSampler sampler;
  double scale = 0;
  bool level = false;
  double energy = 0;
  double tolerance = 1e-10;  ///< largest defect (ModelRunner::defect) of a member's initial state
  std::size_t count = 0;     ///< members: N₀ states, times the parameter grid's points
  std::size_t states = 1;    ///< N₀: member i starts from state i mod N₀ (MemberRule)
  std::string path;          ///< config path, for errors
  /// States of members [i0, i0 + n) into y0 (SoA: y0[d·n + i]), made on `threads` threads.
  void fill(std::size_t i0, std::size_t n, std::vector<double>& y0, int threads) const;
};

struct Study {
  nlohmann::json config;  ///< as given (written to the output)
  std::unique_ptr<ModelRunner> model;
  std::string model_source;  ///< a user's model's header and its hash (ModelInfo::source), else empty
  RunSpec run;  ///< method, span, stepping, section (states filled per batch)
  InitialStates init;
  /// Every member's initial state, where the check made them in one fill (init.fill's layout);
  /// else empty. A run of one batch moves them in instead of making them again.
  std::vector<double> states;
  /// The members this process runs, [begin, end) of init.count (--members A:B; else all).
  struct Members {
    std::size_t begin = 0, end = 0;
    std::size_t count() const { return end - begin; }
  } members;
  std::string sampler;               ///< how the initial states were made (recorded)
  std::vector<std::string> inputs;   ///< files read (the config, a states file): never an output
  std::vector<std::string> outputs;  ///< files written (the HDF5 file, a CSV or PNG beside it)
  bool plot = true;
  bool samples_given = false;    ///< "outputs/samples" was in the config
  int plot_x = -1, plot_y = -1;  ///< poincare: state components on the axes (-1: default)
  int plot_colour = -1;          ///< poincare: the observable colouring the hits, -1: the member (cycling), -2: none
  ConvergeSpec converge;
  ValidateSpec validate;
};

/// What a command needs from the config beyond the common part.
enum class Command { run, poincare, converge, validate };

/// The config's "parameter_sampler" object for `model`'s drawn parameters (kind box or sobol, a
/// seed): refused where no parameter is drawn, or sobol draws more dimensions than it has.
UnitSampler read_sampler(Node ps, const ModelRunner& model);

/// JSON text as a config is read: a repeated key, nesting past 64 levels, a number past double's
/// range and a syntax error are ConfigErrors naming where.
nlohmann::json parse_config(const std::string& text);

/// Reads and checks the config text, for a run in float where `single`; `base_dir` resolves
/// relative file names.
Study read_study(const std::string& text, Command cmd, const std::string& base_dir, bool single = false);

}  // namespace lb::cli
