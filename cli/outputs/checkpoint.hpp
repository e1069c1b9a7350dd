// Checkpoints of a run (docs/cluster.md): the directory OUT.ckpt/ beside the output OUT holds the
// staged arrays (staged_sink.hpp) and, per generation, the engine's state in flight, the command's
// tallies and a manifest naming them. Generation g+1's files are written and made durable before
// its manifest replaces g's by a rename, so a process killed at any moment leaves one whole
// generation to resume from.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include <liebatch/ensemble/engine_state.hpp>
#include <nlohmann/json.hpp>

#include "cli/outputs/staged_sink.hpp"

namespace lb::cli {

/// What a run stopped by SIGTERM after its checkpoint throws (exit status 5).
struct Checkpointed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// SIGUSR1 and SIGTERM caught while one lives: SIGUSR1 asks for a checkpoint, SIGTERM for a
/// checkpoint and then the end. Nested ones share the outermost's handlers and what was asked, so
/// a job of ranks that runs one checkpointed block after another misses no signal between blocks.
class CheckpointSignals {
 public:
  CheckpointSignals();
  ~CheckpointSignals();
  CheckpointSignals(const CheckpointSignals&) = delete;
  CheckpointSignals& operator=(const CheckpointSignals&) = delete;
  /// Whether SIGTERM arrived.
  static bool ending();
};

class Checkpoint {
 public:
  /// The checkpoint directory of the output `output`.
  static std::string dir_of(const std::string& output);
  /// Why a run without --resume or --restart may not write `output`, which has a checkpoint.
  static std::string in_the_way(const std::string& output);
  /// Removes the checkpoint directory `dir` (nothing where there is none), or throws (IoError)
  /// where it holds anything liebatch did not write.
  static void remove(const std::string& dir);

  /// What a job of ranks keeps in its checkpoint besides its identity: members per block, and
  /// seconds between a block's checkpoints.
  struct Job {
    std::uint64_t block = 0;
    double every = 0;
  };
  /// The checkpoint of a job of ranks (cli/ranks/): OUT.ckpt/ holds `job.json` (what must match to
  /// resume, and the Job) and one part file a block done, `part-k.h5`, beside the checkpoint of each
  /// block in flight, `part-k.h5.ckpt/`. A new job's directory is made (an old one removed first
  /// where `restart`) and `fresh` kept and returned; where `resume`, job.json is read, checked
  /// against `identity` like a run's manifest, the temporaries of a killed job removed, and its own
  /// Job returned (the number of ranks may change: the blocks stay). Errors as for a run's checkpoint.
  static Job job(const std::string& output, const nlohmann::json& identity, bool resume, bool restart, Job fresh);

  /// A new run's checkpoint (an old one removed first where `restart`), its generation 0 written
  /// now; or, where `resume`, the checkpoint read and checked against `identity`: a field that
  /// differs is a ConfigError naming it, a missing, unreadable or damaged file an IoError naming
  /// the file. `every`: seconds between checkpoints (0 where `resume`: the checkpoint's own).
  /// SIGUSR1 asks for a checkpoint, SIGTERM for a checkpoint and then the end (Checkpointed).
  Checkpoint(const std::string& output, const nlohmann::json& identity, bool resume, bool restart, double every);
  ~Checkpoint();
  Checkpoint(const Checkpoint&) = delete;
  Checkpoint& operator=(const Checkpoint&) = delete;

  const std::string& dir() const { return dir_; }
  bool resumed() const { return resumed_; }
  /// The first member not yet done (the config's index), and the state of the batch it starts,
  /// where one was in flight (else null).
  std::size_t next_member() const { return next_; }
  const EngineState* engine() const { return engine_.get(); }
  /// The command's own tallies at the checkpoint, as the command saved them (empty for a new run).
  const Parts& tally() const { return tally_; }
  /// The rows each staged row array had at the checkpoint (StagedSink's `rows`).
  const std::map<std::string, std::uint64_t>& rows() const { return rows_; }
  /// A value the command keeps with the checkpoint (its batch size): what it saved, or `fallback`.
  std::uint64_t value(const std::string& key, std::uint64_t fallback) const;
  void set_value(const std::string& key, std::uint64_t v) { values_[key] = v; }

  /// Whether a checkpoint is due: `every` seconds since the last, or a signal asked for one.
  bool due() const;
  /// Generation g+1: the staged files made durable, then the engine's state (null: none in
  /// flight) and the tallies, then the manifest. After it, where SIGTERM asked, throws Checkpointed.
  void save(StagedSink& sink, std::size_t next_member, const EngineState* engine, const Parts& tally);
  /// Removes the directory: the output it was for is in place.
  void remove() { remove(dir_); }
  /// Checkpoints this process wrote, and the bytes of the last one beside the staged arrays.
  long saved() const { return saved_; }
  std::uint64_t bytes() const { return bytes_; }
  /// Wall seconds this process spent writing checkpoints (the run waits for them).
  double seconds() const { return seconds_; }

 private:
  std::string dir_;
  nlohmann::json identity_;
  double every_ = 0;
  bool resumed_ = false;
  long generation_ = 0;
  std::size_t next_ = 0;
  std::unique_ptr<EngineState> engine_;
  CheckpointSignals signals_;
  Parts tally_;
  std::map<std::string, std::uint64_t> rows_, values_;
  double last_ = 0;  ///< steady-clock seconds of the last checkpoint
  long saved_ = 0;
  std::uint64_t bytes_ = 0;
  double seconds_ = 0;
  void read();
  void write_manifest(const nlohmann::json& m);
};

}  // namespace lb::cli
