// A job of several processes (ranks.hpp). run and poincare: rank 0 reads and checks the config
// (its verdict, broadcast, is the job's: a bad config is one message and one exit status); the
// members are cut into blocks, dealt to the ranks in turn, and each block runs as the slice
// `--members A:B` of the config into a part file; rank 0 then joins the parts with `merge`, which
// checks that they cover every member once, into the output. Results do not depend on how members
// are batched, so the output equals the single process's, bitwise (tests/python/test_mpi.py).
#include "cli/ranks/ranks.hpp"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <liebatch/ensemble/device.hpp>

#include "cli/commands/command.hpp"
#include "cli/commands/progress.hpp"
#include "cli/config/config_node.hpp"
#include "cli/outputs/checkpoint.hpp"
#include "cli/outputs/output_files.hpp"
#include "cli/ranks/gpu_of_rank.hpp"

namespace lb::cli {
namespace fs = std::filesystem;

bool under_launcher() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

MpiJob::MpiJob(int& argc, char**& argv) {
  // This rank's GPU, chosen before MPI_Init where the launcher says the node-local rank: a CUDA-
  // aware MPI may initialise CUDA there, and CUDA reads CUDA_VISIBLE_DEVICES once.
  const char* set = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::optional<std::string> visible = set ? std::optional<std::string>(set) : std::nullopt;
  const auto narrow_gpus = [&](int local) {
    gpu_ = gpu_of_rank(local, visible ? visible->c_str() : nullptr, driver_gpus());
    if (!gpu_.empty()) ::setenv("CUDA_VISIBLE_DEVICES", gpu_.c_str(), 1);
  };
  const int told = launcher_local_rank();
  if (told >= 0) narrow_gpus(told);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int local = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_size(node, &node_ranks_);
  MPI_Comm_free(&node);
  // MPI's node communicator has the last word: a launcher's variable may be stale (a Slurm step's
  // SLURM_LOCALID under another launcher), and nothing has used CUDA yet on this path.
  if (told != local) narrow_gpus(local);
}

MpiJob::~MpiJob() { MPI_Finalize(); }

namespace {

/// Members per block: at most a batch, at least 16, and about 8 blocks per rank, so that members
/// whose cost differs by where they lie in the config (a chaotic region of a grid) spread evenly.
std::size_t block_size(std::size_t n, int ranks, std::size_t batch) {
  const std::size_t even = (n + 8 * std::size_t(ranks) - 1) / (8 * std::size_t(ranks));
  return std::max<std::size_t>(1, std::min(batch, std::max<std::size_t>(16, even)));
}

/// CPU threads of each rank: --threads, or this node's cores shared by its `node_ranks` ranks.
int threads_per_rank(const Options& o, int node_ranks) {
  if (o.threads > 0) return o.threads;
  return std::max(1, int(std::max(1u, std::thread::hardware_concurrency())) / node_ranks);
}

/// A new directory beside the output for the parts, hidden, named by rank 0's process id.
fs::path parts_dir(const std::string& out) {
  const fs::path parent = fs::absolute(out).parent_path();
  for (int k = 0;; ++k) {
    const fs::path d = parent / (".liebatch-parts-" + std::to_string(::getpid()) + (k ? "-" + std::to_string(k) : ""));
    std::error_code ec;
    if (fs::create_directory(d, ec)) return d;
    if (ec || k == 100) throw IoError("cannot create a directory for the ranks' parts beside '" + echo(out) + "': " + ec.message());
  }
}

/// Which blocks of `blocks` this rank runs, one after another (--balance): cyclic, block k on rank k
/// mod K; contiguous, the K runs of consecutive blocks; dynamic, the next block not yet taken, from a
/// counter on rank 0 (one-sided fetch-and-add), to whichever rank is free first. Made and ended by
/// every rank together.
class Dealer {
 public:
  Dealer(const std::string& balance, std::size_t blocks, int rank, int size) : dynamic_(balance == "dynamic") {
    const std::size_t r = std::size_t(rank), k = std::size_t(size);
    if (balance == "contiguous") next_ = blocks * r / k, end_ = blocks * (r + 1) / k, step_ = 1;
    else next_ = r, end_ = blocks, step_ = k;
    if (!dynamic_) return;
    std::uint64_t* counter = nullptr;
    MPI_Win_allocate(MPI_Aint(rank == 0 ? sizeof(std::uint64_t) : 0), sizeof(std::uint64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &counter,
                     &win_);
    if (rank == 0) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win_);
      *counter = 0;
      MPI_Win_unlock(0, win_);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win_);
  }
  /// Every rank, once it has taken its last block. (Not in a destructor: a rank whose error ends the
  /// job with MPI_Abort must not wait in a collective call on its way there.)
  void end() {
    if (!dynamic_) return;
    MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);
  }
  Dealer(const Dealer&) = delete;
  Dealer& operator=(const Dealer&) = delete;
  /// The next block of this rank's, or none.
  std::optional<std::size_t> next() {
    std::size_t k = next_;
    if (dynamic_) {
      const std::uint64_t one = 1;
      std::uint64_t got = 0;
      MPI_Fetch_and_op(&one, &got, MPI_UINT64_T, 0, 0, MPI_SUM, win_);
      MPI_Win_flush(0, win_);
      k = std::size_t(got);
    }
    next_ += step_;
    return k < end_ ? std::optional(k) : std::nullopt;
  }

 private:
  bool dynamic_;
  std::size_t next_ = 0, end_ = 0, step_ = 1;
  MPI_Win win_ = MPI_WIN_NULL;
};

/// The job's progress, drawn by rank 0 alone: the members of the blocks done on every rank, added
/// up in a counter on rank 0 (one-sided adds), and rank 0's own block in flight. Made and ended by
/// every rank together; a rank calls MPI here only from its main thread, as the engine calls its
/// progress there.
class JobProgress {
 public:
  JobProgress(const std::string& label, const Options& o, std::size_t members, int rank)
      : rank_(rank), n_(double(members)), bar_(label, o.quiet || rank != 0, {}, o.progress_always) {
    std::uint64_t* counts = nullptr;  // members done, ranks through their blocks
    MPI_Win_allocate(MPI_Aint(rank == 0 ? 2 * sizeof(std::uint64_t) : 0), sizeof(std::uint64_t), MPI_INFO_NULL, MPI_COMM_WORLD, &counts,
                     &win_);
    if (rank == 0) {
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win_);
      counts[0] = counts[1] = 0;
      MPI_Win_unlock(0, win_);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win_);
  }
  JobProgress(const JobProgress&) = delete;
  JobProgress& operator=(const JobProgress&) = delete;
  /// A block of `members` done (or found done) on this rank.
  void done(std::uint64_t members) { add(0, members); }
  /// Rank 0: the bar, with `in_flight` members of its own block done besides.
  void draw(double in_flight) {
    if (rank_ == 0) bar_((double(read(0)) + in_flight) / n_);
  }
  /// Every rank, through its blocks (or stopped): rank 0 then draws until every rank is.
  void end(int size) {
    add(1, 1);
    while (rank_ == 0 && read(1) < std::uint64_t(size)) {
      draw(0);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    draw(0);  // every rank's blocks counted now: the bar ends where the job did (100 % unless stopped)
    bar_.finish();
    MPI_Win_unlock_all(win_);
    MPI_Win_free(&win_);
  }

 private:
  void add(int at, std::uint64_t x) {
    MPI_Accumulate(&x, 1, MPI_UINT64_T, 0, at, 1, MPI_UINT64_T, MPI_SUM, win_);
    MPI_Win_flush(0, win_);
  }
  std::uint64_t read(int at) {
    std::uint64_t x = 0, none = 0;
    MPI_Fetch_and_op(&none, &x, MPI_UINT64_T, 0, at, MPI_NO_OP, win_);
    MPI_Win_flush(0, win_);
    return x;
  }
  int rank_;
  double n_;
  Progress bar_;
  MPI_Win win_ = MPI_WIN_NULL;
};

/// The ranks of MPI_COMM_WORLD as a Team: units' bytes sent to rank 0, one message each; sums and
/// maxima over the ranks.
struct MpiTeam : Team {
  MpiTeam(int r, int k) { rank = r, size = k; }
  void to_root(std::vector<std::string>& units) const override {
    for (std::size_t u = 0; u < units.size(); ++u) {
      const int owner = int(u % std::size_t(size));
      if (owner == 0) continue;
      // Its size, then pieces of at most 1 GiB (MPI counts in int).
      constexpr std::uint64_t piece = std::uint64_t(1) << 30;
      std::uint64_t n = units[u].size();
      if (rank == owner) {
        MPI_Send(&n, 1, MPI_UINT64_T, 0, int(u), MPI_COMM_WORLD);
        for (std::uint64_t at = 0; at < n; at += piece)
          MPI_Send(units[u].data() + at, int(std::min(piece, n - at)), MPI_BYTE, 0, int(u), MPI_COMM_WORLD);
      } else if (rank == 0) {
        MPI_Recv(&n, 1, MPI_UINT64_T, owner, int(u), MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        units[u].resize(n);
        for (std::uint64_t at = 0; at < n; at += piece)
          MPI_Recv(units[u].data() + at, int(std::min(piece, n - at)), MPI_BYTE, owner, int(u), MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    }
  }
  void reduce(std::vector<std::uint64_t>& x, bool max) const override {
    MPI_Allreduce(MPI_IN_PLACE, x.data(), int(x.size()), MPI_UINT64_T, max ? MPI_MAX : MPI_SUM, MPI_COMM_WORLD);
  }
};

/// --device gpu: whether every rank has a usable GPU; where not, the first rank without says so,
/// once for the job. (Rank 0 checks its kernels for the model with the config.) Every rank together.
bool every_rank_has_a_gpu(const Options& o, int rank, int size) {
  if (o.device != "gpu") return true;
  const std::string why = gpu_unavailable_reason();
  int missing[2] = {!why.empty(), why.empty() ? size : rank}, all[2] = {0, 0};  // count, first rank without
  MPI_Allreduce(&missing[0], &all[0], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&missing[1], &all[1], 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (all[1] == rank)
    std::cerr << "liebatch: device 'gpu' requested but unusable on " << all[0] << " of " << size << " ranks; rank " << rank << ": " << why
              << "\n";
  return all[0] == 0;
}

/// Each rank's `s` (its first 63 characters), in rank order and apart by spaces, on rank 0. Every
/// rank together.
std::string each_rank(const std::string& s, int rank, int size) {
  constexpr int width = 64;
  char mine[width] = {};
  s.copy(mine, width - 1);
  std::vector<char> all(rank == 0 ? std::size_t(width) * std::size_t(size) : 0);
  MPI_Gather(mine, width, MPI_CHAR, all.data(), width, MPI_CHAR, 0, MPI_COMM_WORLD);
  std::string joined;
  for (int r = 0; rank == 0 && r < size; ++r) joined += (r ? " " : "") + std::string(all.data() + std::size_t(r) * width);
  return joined;
}

void bcast(std::string& s, int rank) {
  std::uint64_t n = s.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank != 0) s.resize(n);
  MPI_Bcast(s.data(), int(n), MPI_CHAR, 0, MPI_COMM_WORLD);
}

}  // namespace

int MpiJob::operator()(const Options& o, const std::string& command) {
  const Command c = command == "run"        ? Command::run
                    : command == "poincare" ? Command::poincare
                    : command == "converge" ? Command::converge
                                            : Command::validate;
  // Caught from the start on every rank: SIGUSR1 or SIGTERM while rank 0 checks the config must
  // not end a rank (their default action), nor one between two blocks.
  std::optional<CheckpointSignals> signals;
  if (o.checkpoint_every > 0 || o.resume) signals.emplace();
  // Before rank 0 touches a file (a checkpoint's directory made or removed).
  if (!every_rank_has_a_gpu(o, rank_, size_)) return runtime_error;
  if (c == Command::converge || c == Command::validate) return shared(o, c);
  // Rank 0's verdict on the config, and what the ranks need of it. With checkpoints the blocks' parts
  // and checkpoints live in the output's checkpoint directory, whose job.json keeps the blocks.
  std::exception_ptr error;
  std::uint64_t plan[5] = {0, 0, 0, 0, 0};  // first member, members, members per block, checkpoints, on the GPU
  double every = 0;                      // seconds between a block's checkpoints
  bool plot = false;
  std::string dir_name;
  if (rank_ == 0) try {
      if (!o.members.empty())
        throw ConfigError("--members: a job of " + std::to_string(size_) +
                          " ranks shares the members out itself; slices are for single processes (`liebatch merge` joins them)");
      Study st = load(o, c);
      st.run.gpu = pick_device(o, *st.model, {st.run.method}).gpu;  // --device gpu that cannot run: refused here, once
      const bool ckpt = o.checkpoint_every > 0 || o.resume;
      const std::size_t batch = ckpt ? checkpoint_batch_size(st, std::size_t(o.batch)) : batch_size(st, std::size_t(o.batch), false);
      plan[0] = st.members.begin;
      plan[1] = st.members.count();
      plan[2] = block_size(plan[1], size_, batch);
      plan[3] = ckpt;
      plan[4] = st.run.gpu;
      if (ckpt) {
        // What must match to resume, checked once here: rank 0's device and SIMD packs stand for
        // every rank's (each block's own checkpoint names them too).
        const nlohmann::json id = checkpoint_identity(st, c == Command::poincare, st.run.gpu);
        const std::string out = output_path(o);
        const Checkpoint::Job job = Checkpoint::job(out, id, o.resume, o.restart, {plan[2], o.checkpoint_every});
        plan[2] = job.block;
        every = o.checkpoint_every > 0 ? o.checkpoint_every : job.every;
        dir_name = fs::absolute(Checkpoint::dir_of(out)).string();  // (ranks may start elsewhere)
      } else {
        if (o.restart) Checkpoint::remove(Checkpoint::dir_of(output_path(o)));
        dir_name = parts_dir(output_path(o)).string();  // (an output where none can be written: refused here, once)
      }
      plot = st.plot && o.plot;
    } catch (...) {
      error = std::current_exception();
    }
  int verdict = error ? report(error) : ok;
  MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (verdict != ok) return verdict;

  // From here an error on any rank ends the job: the others may be waiting for it.
  const bool ckpt = [&] {
    MPI_Bcast(plan, 5, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    MPI_Bcast(&every, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    return plan[3] != 0;
  }();
  std::optional<RemovedOnSignal> parts;  // the parts' directory, where rank 0 made it for this job
  try {
    const std::size_t first = plan[0], n = plan[1], b = plan[2], blocks = (n + b - 1) / b;
    bcast(dir_name, rank_);
    // Without checkpoints the parts are this job's alone: whichever rank fails removes them, and so
    // does each rank that SIGTERM ends (the launcher's, after MPI_Abort or a rank killed).
    if (!ckpt) parts.emplace(dir_name);
    const auto part = [&](std::size_t k) { return (fs::path(dir_name) / ("part-" + std::to_string(k) + ".h5")).string(); };
    Options block = o;
    block.quiet = true;
    block.plot = false;
    block.threads = threads_per_rank(o, node_ranks_);
    block.checkpoint_every = every;
    // In every block of this rank: no member finished; counts of blocks found done, of blocks resumed
    // from their checkpoints, and of ranks stopped by SIGTERM.
    int none_finished = 1;
    std::uint64_t counts[3] = {0, 0, 0};
    enum { done, resumed, stopped };
    std::vector<int> owner(blocks, 0);  // each block's rank + 1, where this rank ran it
    Dealer dealer(o.balance, blocks, rank_, size_);
    JobProgress progress(command, o, n, rank_);
    while (const auto next = dealer.next()) {
      const std::size_t k = *next, a = first + k * b, members = std::min(a + b, first + n) - a;
      owner[k] = rank_ + 1;
      if (ckpt) {
        if (CheckpointSignals::ending()) {
          counts[stopped] = 1;
          break;
        }
        if (fs::exists(part(k))) {  // done before the job was stopped (its file is put in place whole)
          try {
            if (any_member_finished(part(k))) none_finished = 0;
            ++counts[done];
            progress.done(members);
            continue;
          } catch (const IoError&) {  // cut short by a crash of its node: the block runs again
            fs::remove(part(k));
          }
        }
        block.resume = fs::exists(Checkpoint::dir_of(part(k)) + "/manifest.json");
        block.restart = !block.resume;  // (a checkpoint killed before its first manifest: started over)
        counts[resumed] += block.resume;
      }
      block.members = std::to_string(a) + ":" + std::to_string(a + members);
      block.output = part(k);
      block.progress = [&](double f) { progress.draw(f * double(members)); };
      try {
        if ((c == Command::run ? run_command(block) : poincare_command(block)) != check_failed) none_finished = 0;
      } catch (const Checkpointed&) {  // SIGTERM: this block checkpointed
        counts[stopped] = 1;
        break;
      }
      progress.done(members);
    }
    progress.end(size_);
    int all_none = 0;
    MPI_Allreduce(&none_finished, &all_none, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    dealer.end();
    MPI_Allreduce(MPI_IN_PLACE, owner.data(), int(blocks), MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, counts, 3, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    if (counts[stopped] > 0) {  // stopped by SIGTERM: every block done or checkpointed
      if (rank_ == 0)
        std::cerr << "liebatch: stopped by SIGTERM after a checkpoint of every block in flight, in '" << echo(dir_name)
                  << "'; run the same command with --resume to go on (with any number of ranks)\n";
      MPI_Barrier(MPI_COMM_WORLD);
      return checkpointed;
    }
    const std::string gpus = plan[4] ? "; CUDA device of each rank: " + each_rank(gpu_.empty() ? "default" : gpu_, rank_, size_) : "";
    if (rank_ == 0) {
      const std::string resumed_note = o.resume ? " (resumed: " + std::to_string(counts[done]) + " blocks were done, " +
                                                      std::to_string(counts[resumed]) + " went on from their checkpoints)"
                                                : "";
      std::vector<std::string> files;
      for (std::size_t k = 0; k < blocks; ++k) files.push_back(part(k));
      Options join = o;
      join.output = output_path(o);
      join.quiet = true;
      // How the job ran, for its balance: each block's rank (a listing HDF5 keeps in an attribute).
      std::string ranks;
      for (std::size_t k = 0; k < blocks && ranks.size() < 30000; ++k) ranks += (k ? " " : "") + std::to_string(owner[k] - 1);
      merge_command(files, join,
                    "a job of " + std::to_string(size_) + " ranks: " + std::to_string(blocks) + " blocks of " + std::to_string(b) +
                        " members, --balance " + o.balance + resumed_note + "; rank of each block: " +
                        (ranks.size() < 30000 ? ranks : "(not listed: " + std::to_string(blocks) + " blocks)") + gpus);
      if (ckpt) {
        make_durable(join.output);  // before the checkpoint goes
        Checkpoint::remove(dir_name);
      } else fs::remove_all(dir_name);
      if (!o.quiet)
        std::cout << command << ": " << n << " members in " << blocks << " blocks of " << b << " over " << size_ << " ranks ("
                  << block.threads << (block.threads == 1 ? " thread" : " threads") << " each)" << resumed_note
                  << "\n  output: " << join.output << "\n"
                  << (plot ? "  plot: not drawn by a job of ranks (`liebatch` without mpirun draws it)\n" : "");
      if (all_none) std::cerr << "liebatch: no member finished; the output records each member's status\n";
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return all_none ? check_failed : ok;
  } catch (...) {
    const int status = report(std::current_exception(), "liebatch: rank " + std::to_string(rank_) + ": ");
    if (parts) {  // (a checkpoint's directory stays, to resume from)
      std::error_code ec;
      fs::remove_all(dir_name, ec);
    }
    MPI_Abort(MPI_COMM_WORLD, status);
    return status;
  }
}

int MpiJob::shared(const Options& o, Command c) {
  // Rank 0's verdict on the config; then every rank runs its share of the work (Team), and rank 0
  // the rest of the command: converge's differences and fit, validate's verdict, the output.
  int verdict = ok;
  if (rank_ == 0) try {
      const Study st = load(o, c);
      // --device gpu that cannot run, validate against a GPU it lacks: refused here, once.
      if (c == Command::converge) pick_device(o, *st.model, converge_device_methods(st));
      else validate_where(o, st);
    } catch (...) {
      verdict = report(std::current_exception());
    }
  MPI_Bcast(&verdict, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (verdict != ok) return verdict;
  const MpiTeam team(rank_, size_);
  Options share = o;
  share.team = &team;
  share.threads = threads_per_rank(o, node_ranks_);
  if (rank_ != 0) share.quiet = true, share.plot = false;
  else if (!o.quiet && size_ > 1)
    std::cout << (c == Command::converge ? "converge: its runs" : "validate: its batches") << " dealt to " << size_
              << " ranks, the results joined on rank 0\n";
  int status = ok;
  try {
    status = c == Command::converge ? converge_command(share) : validate_command(share);
  } catch (...) {
    status = report(std::current_exception(), "liebatch: rank " + std::to_string(rank_) + ": ");
    MPI_Abort(MPI_COMM_WORLD, status);
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return status;
}

}  // namespace lb::cli
