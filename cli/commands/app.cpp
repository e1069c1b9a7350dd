// The command line of liebatch: options, subcommands, and the exit status of each kind of error.
#include <charconv>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <liebatch/pack.hpp>

#include "cli/commands/commands.hpp"
#include "cli/config/config_node.hpp"
#include "cli/outputs/checkpoint.hpp"
#include "cli/outputs/output_files.hpp"
#include "cli/outputs/provenance.hpp"

namespace lb::cli {

int report(const std::exception_ptr& e, const std::string& prefix) {
  try {
    std::rethrow_exception(e);
  } catch (const Checkpointed& x) {
    std::cerr << prefix << x.what() << "\n";
    return checkpointed;
  } catch (const ConfigError& x) {
    std::cerr << prefix << x.what() << "\n";
    return bad_input;
  } catch (const IoError& x) {
    std::cerr << prefix << x.what() << "\n";
    return io_error;
  } catch (const std::exception& x) {
    std::cerr << prefix << x.what() << "\n";
    return runtime_error;
  } catch (...) {
    std::cerr << prefix << "an unknown error\n";
    return runtime_error;
  }
}

namespace {
// Numbers in decimal alone. CLI11 reads 0x10 as 16, 0b101 as 5 and 010 as 8 (octal), so
// `--batch 010` ran batches of 8: each option's text is checked here and handed on in canonical
// decimal form.
const CLI::Validator decimal_integer(
    [](std::string& v) {
      long x = 0;
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
      if (ec != std::errc() || end != v.data() + v.size()) return std::string("expected a decimal integer, not '") + v + "'";
      v = std::to_string(x);
      return std::string();
    },
    "");
const CLI::Validator finite_decimal(  // (CLI::Range lets NaN through: checkpoints silently off)
    [](std::string& v) {
      double x = 0;
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);  // (no hex: chars_format::general)
      if (ec != std::errc() || end != v.data() + v.size() || !std::isfinite(x))
        return std::string("expected a finite decimal number, not '") + v + "'";
      return std::string();
    },
    "");
// `-o ''` is a mistake (an unset variable in a script), not a request for the default name.
const CLI::Validator file_name([](std::string& v) { return v.empty() ? std::string("expected a file name, not ''") : std::string(); }, "");
}  // namespace

/// SIGUSR1 where no checkpoint is taken: said, and the run goes on. By default it ends the process
/// (temporaries and a job's parts left in place), and a batch system sends it before a job's limit
/// (Slurm's --signal) to the runs that checkpoint. Checkpoints take it over (CheckpointSignals).
extern "C" void usr1_without_checkpoints(int) {
  static const char note[] = "liebatch: SIGUSR1 ignored: this run takes no checkpoints (--checkpoint-every SECONDS)\n";
  [[maybe_unused]] const auto n = ::write(2, note, sizeof note - 1);
}

int cli_main(int argc, const char* const* argv, const RankedCommand& ranked) {
  // Past the file-size limit (ulimit -f) a write then fails with EFBIG, reported as a full disk,
  // instead of the signal killing the process with its temporary files in place.
  std::signal(SIGXFSZ, SIG_IGN);
  struct sigaction usr1 {};
  usr1.sa_handler = usr1_without_checkpoints;
  usr1.sa_flags = SA_RESTART;
  sigemptyset(&usr1.sa_mask);
  sigaction(SIGUSR1, &usr1, nullptr);
  CLI::App app{"liebatch: Lie group integrators for large ensembles of mechanical systems"};
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       std::string("liebatch ") + LIEBATCH_VERSION + " (commit " + source_commit() + ")\nCPU packs: " + pack_arch());
  Options o;
  // As a shell would read it back: a word with more than letters, digits and -_./=:,+@% quoted.
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    const bool plain =
        !a.empty() && a.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./=:,+@%") == std::string::npos;
    std::string quoted = "'";
    for (char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    o.command_line += (i ? " " : "") + (plain ? a : quoted + "'");
  }

  auto common = [&](CLI::App* c) {
    // Not CLI11's ExistingFile: a config that cannot be read is a file error (3), with the reason.
    c->add_option("config", o.config, "JSON config file")->required();
    c->add_option("-o,--output", o.output, "HDF5 output file (default: the config's name with .h5, here)")->check(file_name);
    c->add_option("--device", o.device, "auto | cpu | gpu")->check(CLI::IsMember({"auto", "cpu", "gpu"}));
    c->add_option("--precision", o.precision, "double | float (float: run only)")->check(CLI::IsMember({"double", "float"}));
    c->add_option("--threads", o.threads, "CPU threads (default: all)")->transform(decimal_integer)->check(CLI::Range(0, 4096));
    c->add_flag("!--no-simd", o.simd, "CPU: one member per thread, not packs of members in SIMD lanes");
    c->add_option("--batch", o.batch,
                  "most members per batch (default: as many as fit in 1 GiB; never more than fit in 70 % of the available memory)")
        ->transform(decimal_integer)
        ->check(CLI::Range(0L, 1L << 40));
    c->add_flag("-q,--quiet", o.quiet, "no progress and no summary");
    c->add_flag("--progress", o.progress_always,
                "draw progress on stderr even where it is no terminal (under mpirun, whose stderr is a pipe; a log)");
    c->add_flag("!--no-plot", o.plot, "do not write PNG plots");
    c->add_flag("--force", o.force, "replace existing files that liebatch did not write (never an input, a read-only file or a symlink)");
  };
  auto slice = [&](CLI::App* c) {
    c->add_option("--members", o.members, "A:B: only members A to B - 1 of the config's (a slice; `liebatch merge` joins slices)");
    c->add_option("--balance", o.balance,
                  "a job of ranks (mpirun): cyclic (block k on rank k mod K, the default) | contiguous | dynamic (the next block "
                  "to the first rank free)")
        ->check(CLI::IsMember({"cyclic", "contiguous", "dynamic"}));
    c->add_option("--checkpoint-every", o.checkpoint_every,
                  "checkpoint every SECONDS into OUTPUT.ckpt/ (also on SIGUSR1; SIGTERM: checkpoint, then exit 5)")
        ->check(finite_decimal)
        ->check(CLI::Range(1e-3, 1e9));
    auto* resume = c->add_flag("--resume", o.resume, "go on from the output's checkpoint, as if never stopped");
    c->add_flag("--restart", o.restart, "remove the output's checkpoint and start over")->excludes(resume);
  };
  auto* run = app.add_subcommand("run", "integrate an ensemble; final states, samples and observables to HDF5");
  common(run);
  slice(run);
  auto* poincare = app.add_subcommand("poincare", "an ensemble with a Poincaré section; hits to HDF5 and a scatter PNG");
  common(poincare);
  slice(poincare);
  // run's and poincare's options named on converge or validate: said so, not CLI11's "arguments
  // were not expected: 0:3 --members". Hidden from their help.
  auto not_slices = [](CLI::App* c) {
    const auto why = [c](const std::string& flag) {
      return CLI::ValidationError(flag, "is for run and poincare; " + c->get_name() +
                                            " takes no slices, balance or checkpoints (under mpirun its work is dealt to the ranks)");
    };
    for (const std::string flag : {"--members", "--balance", "--checkpoint-every"})
      c->add_option_function<std::string>(flag, [=](const std::string&) { throw why(flag); })->group("");
    for (const std::string flag : {"--resume", "--restart"}) c->add_flag_callback(flag, [=] { throw why(flag); })->group("");
  };
  auto* converge = app.add_subcommand("converge", "step sizes x methods against a reference: errors, observed orders, log-log PNG");
  common(converge);
  not_slices(converge);
  auto* validate =
      app.add_subcommand("validate", "the same ensemble in double and in long double (or on the GPU): differences and pass/fail");
  common(validate);
  not_slices(validate);
  auto* merge = app.add_subcommand("merge", "slices of one run or poincare (--members A:B) joined into the whole run's output");
  std::vector<std::string> parts;
  merge->add_option("parts", parts, "the slices' HDF5 files")->required();
  merge->add_option("-o,--output", o.output, "the merged HDF5 file")->required()->check(file_name);
  merge->add_flag("-q,--quiet", o.quiet, "no summary");
  merge->add_flag("--force", o.force, "replace an existing file that liebatch did not write (never a part, a read-only file or a symlink)");
  auto* list = app.add_subcommand("list", "models (with parameters), methods, presets");
  std::string what = "all";
  list->add_option("what", what, "models | methods | presets | all")->check(CLI::IsMember({"models", "methods", "presets", "all"}));
  UserModelArgs user;
  auto* source = list->add_option("--source", user.source, "models: only the user's model in this header (compiled if not cached)");
  list->add_option("--type", user.type, "with --source: the model's class template");
  list->add_option("--methods", user.methods, "with --source: the methods it is compiled for (default rkmk4 rkmk54)")->needs(source);

  // A first word that is no command: named (CLI11 says only that a command is required).
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      found = found || sub->get_name() == argv[1];
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    if (!found) {
      std::cerr << "liebatch: unknown command '" << echo(argv[1]) << "'; expected one of " << known
                << "\nRun with --help for more information.\n";
      return bad_input;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "liebatch: " << echo(e.what(), 240) << "\nRun with --help for more information.\n";
    return bad_input;
  }
  try {
    if (ranked)
      for (const auto& [sub, name] :
           {std::pair<CLI::App*, const char*>{run, "run"}, {poincare, "poincare"}, {converge, "converge"}, {validate, "validate"}})
        if (*sub) return ranked(o, name);
    // One of several tasks of an srun step that no MPI joins (no PMI plugin, or a liebatch built
    // without MPI): each would write the same output and checkpoint.
    if (const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
        tasks && std::atol(tasks) > 1 && (*run || *poincare || *converge || *validate))
      throw ConfigError(std::string("srun started this as one of ") + echo(tasks) +
                        " tasks, but not as a rank of an MPI job (no PMI_SIZE or PMIX_RANK, or a liebatch built without "
                        "LIEBATCH_MPI): each task would write the same output; use srun --mpi=pmix (or pmi2), or one task");
    if (*run) return run_command(o);
    if (*poincare) return poincare_command(o);
    if (*converge) return converge_command(o);
    if (*validate) return validate_command(o);
    if (*merge) return merge_command(parts, o);
    return list_command(what, user);
  } catch (...) {
    return report(std::current_exception());
  }
}

}  // namespace lb::cli
