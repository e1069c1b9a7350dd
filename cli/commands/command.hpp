// What the commands share: the config loaded and checked before any work (outputs writable and
// fitting, memory enough, every initial state valid), the device chosen, batches, the output's
// header and per-member arrays, statuses in words, and the files put in place at the end.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands/commands.hpp"
#include "cli/outputs/output_files.hpp"
#include "cli/outputs/sink.hpp"
#include "cli/commands/study.hpp"

namespace lb::cli {

/// Reads and checks the config for command c; refuses, before any work, outputs that would
/// replace someone else's file or not fit, batches that do not fit in memory, and bad initial states.
Study load(const Options& o, Command c);

/// Now, as "2026-11-28T17:30:00Z" (the outputs' `created`).
std::string utc_now();

/// The output file: -o, or the config's name with .h5 in the current directory.
std::string output_path(const Options& o);
/// The output's sink: the file's (open_sink), or Options::memory's.
std::unique_ptr<Sink> open_output(const Options& o);
/// The output's name with another extension ("run.h5" → "run.png").
std::string sibling(const std::string& out, const std::string& ext);

/// Where a command's runs go, and how the output names it.
struct Where {
  bool gpu;
  std::string text;  ///< e.g. "cpu (auto: no CUDA device present)"
};
/// "" when the GPU is usable and this build holds kernels for the model and every method, else why not.
std::string gpu_missing(const ModelRunner& model, const std::vector<std::string>& methods);
/// --device cpu; gpu (an error saying why when the GPU or the kernels are missing); or auto: the
/// GPU when it is usable and holds kernels for the model and every method the command runs.
Where pick_device(const Options& o, const ModelRunner& model, const std::vector<std::string>& methods);
/// A batch's host memory unless --batch asks for more: the output is written batch by batch, so a run
/// of any size needs no more.
inline constexpr double batch_host_bytes = 1 << 30;
/// Members per batch (batch_plan.hpp): at most `requested` (0: as many as fit in batch_host_bytes),
/// and never more than fit in 70 % of the available memory.
std::size_t batch_size(const Study& st, std::size_t requested, bool extended);
/// A batch's host bytes at most where a run takes checkpoints: the state of the batch in flight,
/// its results so far included, is what each checkpoint writes.
inline constexpr double checkpoint_batch_bytes = 1 << 27;
/// Members per batch of a run that takes checkpoints: batch_size, and within checkpoint_batch_bytes
/// unless asked for (`requested`) or on the GPU, which needs 2^18 members to fill it.
std::size_t checkpoint_batch_size(const Study& st, std::size_t requested);

/// Refuses, before any work, a run whose output cannot fit on its file system (`out`; "" : kept in
/// memory, as lb.solve's and lb.run_config's) or whose batches cannot fit in memory, naming both sizes.
void check_resources(const Study& st, Command c, const Options& o, const std::string& out);

/// What must be the same for a run or poincare to go on from a checkpoint: every input of its
/// results (the config, members, precision, device, SIMD packs, pauses, liebatch's version).
nlohmann::json checkpoint_identity(const Study& st, bool poincare, bool gpu);

/// The methods converge runs on its device: the study's, and the reference's unless that is a
/// long double (`extended`) run, which is on the CPU.
std::vector<std::string> converge_device_methods(const Study& st);

/// Where validate runs its ensemble and its reference (--device, /validate/against), or the
/// config error or missing GPU that prevents it.
Where validate_where(const Options& o, const Study& st);

/// Whether any member of the output `path` of a run or poincare finished (final/status `ok`).
bool any_member_finished(const std::string& path);

/// "9998 ok, 2 nonfinite" (names from LB_STATUSES), from the statuses or from their counts (the
/// last: codes outside the list).
std::string status_summary(const std::vector<std::uint8_t>& status);
std::string status_summary(const std::vector<long>& counts);

/// The members [A, B) of `spec` ("A:B"; "" : all `total`), checked: integers, A < B <= total, and
/// only for `run` and `poincare` (a ConfigError naming --members otherwise).
Study::Members member_range(const std::string& spec, std::size_t total, Command c);

/// The attributes and names every output starts with: version, command, device, model, method,
/// the config, the members run (a slice's range), the names of the state's components,
/// observables and statuses.
void write_header(Sink& w, const Study& st, const Options& o, const std::string& command, const std::string& device);
/// The hit records of a section: arrays of rows, one per hit, in member order (hits/count, lost and
/// suspected_pairs are per member).
inline constexpr const char* hit_records[] = {"hits/member", "hits/index", "hits/t", "hits/y", "hits/observables"};

/// The per-member arrays of an ensemble (initial/, final/, samples/, and hits/ for a section),
/// created for every member of the study's range and filled batch by batch (a slice's column j is
/// member begin + j; hits/member holds the config's member index).
class MemberArrays {
 public:
  MemberArrays(Sink& w, const Study& st, bool hits);
  /// Members [i0, i0 + r.out.size) (the config's indices) with initial states y0.
  void add(std::size_t i0, const std::vector<double>& y0, const RunResult& r);
  /// The Newton iterations' arrays, created now (a resumed run whose implicit method may run no
  /// further batch); add() creates them with the first batch that counts iterations.
  void newton_arrays();

 private:
  Sink& w_;
  const ModelRunner& model_;
  bool hits_, adaptive_, newton_ = false;
  std::uint64_t n_;
  std::size_t first_;  ///< the first member's index (a slice's columns start at 0)
};

/// The attributes that say what arrays hold: final/status's values; the meaning of an implicit
/// method's final/newton_mean and final/newton_max.
void describe_status(Sink& w);
void describe_newton(Sink& w);

/// Member i's Newton iterations per step attempt (an implicit method's run): the failed attempt
/// that ends a fixed-step member counts as one.
double newton_mean(const EnsembleOutput<double>& o, std::size_t i, bool adaptive);

/// Puts the files in place: the outputs checked again (a file or a link may have appeared at their
/// paths during the run), the CSV written out before the main output is committed, so a full disk
/// leaves neither.
void commit(const Study& st, const Options& o, Sink& w, TextOutput* table = nullptr);

/// Reports a plot written to `png`, or why none was ("" : written).
void note_plot(const std::string& png, const std::string& why, bool quiet);
/// Says so where the PNG or CSV beside the output `h5` is liebatch's from an earlier run (older
/// than the output: this run wrote none), which would pass for this run's. A table this run wrote
/// (`wrote_table`) is never older in fact, but it is written out before the output is committed,
/// so its time may be earlier; a plot is written after.
void note_earlier_outputs(const std::string& h5, bool wrote_table);

}  // namespace lb::cli
