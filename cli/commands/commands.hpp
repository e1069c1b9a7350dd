// The subcommands of `liebatch`. Each returns the process exit status; errors are thrown as
// ConfigError (exit 2), IoError (exit 3) or other exceptions (exit 4) and reported by main.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace lb::cli {

struct MemoryStore;

/// Exit statuses (documented in README).
enum Exit : int { ok = 0, check_failed = 1, bad_input = 2, io_error = 3, runtime_error = 4, checkpointed = 5 };

/// The ranks of a job (cli/ranks/) as a command that shares its work out sees them: unit u of the
/// command's work is rank u mod size's, and what each unit gives (bytes) goes to rank 0; sums and
/// maxima are reduced over them.
struct Team {
  int rank = 0, size = 1;
  virtual ~Team() = default;
  bool mine(std::size_t unit) const { return unit % std::size_t(size) == std::size_t(rank); }
  /// Every rank together: afterwards rank 0 holds every unit's bytes (each rank gave its own units').
  virtual void to_root(std::vector<std::string>& units) const = 0;
  /// Every rank together: each element of `x` becomes its sum (`max`: its largest value) over the
  /// ranks, on every rank. Exact: integers (non-negative doubles by their bits order as these).
  virtual void reduce(std::vector<std::uint64_t>& x, bool max = false) const = 0;
};

struct Options {
  std::string config;                ///< config file
  std::string output;                ///< HDF5 file ("" : the config's name with .h5, in the current directory)
  std::string device = "auto";       ///< auto | cpu | gpu
  std::string precision = "double";  ///< double | float
  int threads = 0;                   ///< CPU threads (0: all)
  bool simd = true;                  ///< CPU: members in SIMD lanes
  long batch = 0;                    ///< most members per batch (0: as many as fit in 1 GiB)
  bool quiet = false;                ///< no progress, no summary
  bool progress_always = false;      ///< --progress: drawn where stderr is no terminal too
  bool plot = true;                  ///< PNG next to the output (also needs "plot" in the config)
  bool force = false;                ///< replace existing files that liebatch did not write
  std::string members;               ///< run, poincare: "A:B", members [A, B) of the config's alone ("" : all)
  std::string balance = "cyclic";    ///< run, poincare in a job of ranks: cyclic | contiguous | dynamic (cli/ranks/)
  double checkpoint_every = 0;       ///< run, poincare: seconds between checkpoints (0: none; checkpoint.hpp)
  bool resume = false;               ///< run, poincare: go on from the output's checkpoint
  bool restart = false;              ///< remove the output's checkpoint and start over
  std::string command_line;          ///< recorded in the output
  /// A caller in the same process (Python's run_config): the config's text where it is not read
  /// from `config` (which then only gives the directory relative names start from); the output
  /// kept in `memory` instead of a file, with no CSV or plot; a flag that stops the runs
  /// (RunOptions::stop); `progress` gets the fraction done in place of the bar on stderr.
  std::string config_text;
  std::shared_ptr<MemoryStore> memory;
  const std::atomic<bool>* stop = nullptr;
  /// converge, validate in a job of ranks: this rank's share of the work (null: all of it, here).
  const Team* team = nullptr;
  std::function<void(double)> progress;
};

/// A subcommand run by a job of several processes (cli/ranks/ranks.hpp): set by the `liebatch`
/// program where an MPI launcher started it; cli_main hands it run, poincare, validate and converge.
using RankedCommand = std::function<int(const Options&, const std::string& command)>;

/// The whole command line: parses argv, runs the subcommand (through `ranked` where set), reports
/// errors; returns the exit status.
int cli_main(int argc, const char* const* argv, const RankedCommand& ranked = {});

/// Reports the error `e` a command threw on stderr, after `prefix`, and returns its exit status:
/// Checkpointed 5, ConfigError 2, IoError 3, anything else 4.
int report(const std::exception_ptr& e, const std::string& prefix = "liebatch: ");

int run_command(const Options& o);       ///< liebatch run
int poincare_command(const Options& o);  ///< liebatch poincare
int converge_command(const Options& o);  ///< liebatch converge
int validate_command(const Options& o);  ///< liebatch validate
/// `liebatch merge PART.h5 ... -o ALL.h5`: slices of one run (--members) joined into the whole run's
/// output (o.output, o.force, o.quiet, o.command_line); its attribute merged_from lists the parts,
/// or says `origin` where given (a job of ranks, whose parts are gone once merged); `names`, where
/// given, name the parts there instead of their paths (lb.merge's Outputs, saved to temporaries).
int merge_command(const std::vector<std::string>& parts, const Options& o, const std::string& origin = "",
                  const std::vector<std::string>& names = {});
/// `liebatch list models --source header --type T [--methods ...]`: a user's model.
struct UserModelArgs {
  std::string source, type;
  std::vector<std::string> methods{"rkmk4", "rkmk54"};
};
int list_command(const std::string& what, const UserModelArgs& user = {});

}  // namespace lb::cli
