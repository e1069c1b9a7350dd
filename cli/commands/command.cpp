#include "cli/commands/command.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include <sys/stat.h>

#include <liebatch/ensemble/batch_plan.hpp>
#include <liebatch/ensemble/device.hpp>
#include <liebatch/methods/step.hpp>
#include <liebatch/pack.hpp>
#include "cli/models/gpu_run.hpp"
#include "cli/outputs/checkpoint.hpp"
#include "cli/outputs/memory_sink.hpp"
#include "cli/plots/plot.hpp"
#include "cli/commands/progress.hpp"
#include "cli/outputs/provenance.hpp"

namespace lb::cli {
namespace {

namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  if (const std::string why = unreadable(path); !why.empty()) throw IoError("cannot read config '" + echo(path) + "': " + why);
  std::ifstream in(path);
  if (!in) throw IoError("cannot read config '" + echo(path) + "': " + std::strerror(errno));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A member count: exact below a million, else "1.2e+12".
std::string fmt_count(double n) {
  char s[32];
  std::snprintf(s, sizeof s, n < 1e6 ? "%.0f" : "%.3g", n);
  return s;
}

/// Host bytes per member of a batch: its initial state, its results and the engine's buffers (in host
/// memory on the CPU; counted on the GPU too, so the batches do not depend on the device;
/// batch_plan.hpp); ×3 with a long double run beside.
double member_bytes(const Study& st, bool extended) {
  const RunShape s{.dim = st.model->dim(),
                   .nobs = int(st.model->obs_names().size()),
                   .samples = st.run.samples,
                   .sample_slots = chunk_plan(st.run).slots(),
                   .hit_slots = st.run.section.kind != SectionSpec::none ? st.run.section.max_hits : 0};
  const double per = double(8 * std::size_t(s.dim) + result_bytes(s) + buffer_bytes(s));
  return extended ? 3 * per : per;
}

}  // namespace

std::string output_path(const Options& o) {
  if (!o.output.empty()) return o.output;
  return fs::path(o.config).stem().string() + ".h5";
}

std::unique_ptr<Sink> open_output(const Options& o) {
  if (o.memory) return std::make_unique<MemorySink>(o.memory);
  return open_sink(output_path(o));
}

std::string sibling(const std::string& h5, const std::string& ext) {
  fs::path p(h5);
  p.replace_extension(ext);
  return p.string();
}

std::string gpu_missing(const ModelRunner& model, const std::vector<std::string>& methods) {
  std::string why = gpu_unavailable_reason();
  for (const auto& m : methods)
    if (why.empty()) why = model.gpu_missing(m);
  return why.empty() ? model.gpu_missing("") : why;
}

Where pick_device(const Options& o, const ModelRunner& model, const std::vector<std::string>& methods) {
  if (o.device == "cpu") return {false, "cpu (requested)"};
  const std::string why = gpu_missing(model, methods);
  if (o.device == "gpu") {
    if (!why.empty()) throw std::runtime_error("device 'gpu' requested but unusable: " + why);
    return {true, "gpu (requested)"};
  }
  if (why.empty()) return {true, "gpu (auto: CUDA device found)"};
  return {false, "cpu (auto: " + why + ")"};
}

std::size_t batch_size(const Study& st, std::size_t requested, bool extended) {
  const double avail = batch_memory_share * available_memory();
  const double budget = requested > 0 ? avail : std::min(batch_host_bytes, avail);
  return batch_members(st.init.count, std::size_t(member_bytes(st, extended)), budget, requested);
}

std::size_t checkpoint_batch_size(const Study& st, std::size_t requested) {
  const std::size_t b = batch_size(st, requested, false);
  if (requested > 0) return b;
  const std::size_t fit = std::size_t(checkpoint_batch_bytes / member_bytes(st, false));
  return std::min(b, std::max<std::size_t>({fit, st.run.gpu ? std::size_t(1) << 18 : 1}));
}

namespace {

/// The files command c writes: the HDF5 output, and beside it a CSV table and a PNG plot (run:
/// the observables' drift, which needs samples).
std::vector<std::string> outputs_of(const std::string& h5, Command c, const Study& st) {
  std::vector<std::string> v{h5};
  if (c == Command::converge || c == Command::validate) v.push_back(sibling(h5, ".csv"));
  const bool drawn = c == Command::run ? st.run.samples >= 2 && !st.model->obs_names().empty() : c != Command::validate;
  if (st.plot && drawn && gnuplot_available()) v.push_back(sibling(h5, ".png"));
  return v;
}

}  // namespace

void check_resources(const Study& st, Command c, const Options& o, const std::string& out) {
  const double n = double(st.members.count());
  if (c == Command::converge) {  // every member at every step size at once, beside a long double run
    const double runs = n * double(st.converge.steps.size());
    check_memory(runs * member_bytes(st, true), fmt_count(runs) + " runs (members x step sizes) held at once");
    return;
  }
  const double d = st.model->dim(), q = double(st.model->obs_names().size()), k = st.run.samples;
  double per = 8 * (2 * d + 3) + 1 + 8 * k * (1 + d + q);  // initial/, final/, samples/
  if (c == Command::poincare) per += 3 * 8;                // hits/count, lost, suspected_pairs
  // A run with checkpoints stages its arrays beside the output, then writes the output from them;
  // a resumed one finds what it staged already on the disk (counted as used there).
  const double copies = o.checkpoint_every > 0 || o.resume ? 2 : 1;
  double staged = 0;
  if (o.resume && !out.empty()) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(Checkpoint::dir_of(out), ec)) {
      struct stat sb {};
      if (::lstat(e.path().c_str(), &sb) == 0 && S_ISREG(sb.st_mode)) staged += 512.0 * double(sb.st_blocks);
    }
  }
  if (!out.empty())
    check_space(out, copies * (65536 + n * per) - staged,
                fmt_count(n) + " members x " + human_bytes(per) + (c == Command::poincare ? ", before the section's hits" : "") +
                    (copies > 1 ? ", twice: staged for checkpoints, then written" : ""));
  const auto batch = double(batch_size(st, std::size_t(o.batch), c == Command::validate));
  const double held = out.empty() ? n * per : 0;  // an output kept in memory
  check_memory(batch * member_bytes(st, c == Command::validate) + held,
               fmt_count(batch) + " members per batch" + (held > 0 ? " and an output of " + fmt_count(n) + " members in memory" : ""));
}

namespace {

std::vector<std::string> status_names() {
  std::vector<std::string> v;
  for (int s = 0; s < status_count; ++s) v.push_back(status_name(std::uint8_t(s)));
  return v;
}

}  // namespace

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

Study::Members member_range(const std::string& spec, std::size_t total, Command c) {
  if (spec.empty()) return {0, total};
  if (c != Command::run && c != Command::poincare)
    throw ConfigError(
        "--members: only 'liebatch run' and 'liebatch poincare' run a slice of the members (converge and validate "
        "summarise all of them)");
  const auto number = [&](const std::string& x) {
    if (x.empty() || x.size() > 18 || x.find_first_not_of("0123456789") != std::string::npos)
      throw ConfigError("--members: '" + echo(spec) + "' is not A:B (members A to B - 1, integers)");
    return std::size_t(std::stoull(x));
  };
  const auto colon = spec.find(':');
  if (colon == std::string::npos) number("");
  const std::size_t a = number(spec.substr(0, colon)), b = number(spec.substr(colon + 1));
  if (a >= b || b > total)
    throw ConfigError("--members: " + spec + " is " + (a >= b ? "empty" : "out of range") + "; the config has " + std::to_string(total) +
                      " members, so 0 <= A < B <= " + std::to_string(total));
  return {a, b};
}

Study load(const Options& o, Command c) {
  if (o.precision == "float" && c != Command::run)
    throw ConfigError("--precision float: only 'liebatch run' offers float (sections, convergence and validation use double)");
  const std::string dir = fs::path(o.config).parent_path().string();
  const bool given = !o.config_text.empty();
  Study st = read_study(given ? o.config_text : read_text(o.config), c, dir.empty() ? std::string(".") : dir, o.precision == "float");
  st.run.threads = o.threads;
  st.run.simd = o.simd;
  st.run.stop = o.stop;
  st.plot = st.plot && o.plot && !o.memory;
  st.members = member_range(o.members, st.init.count, c);
  if (c == Command::run && !st.samples_given) st.run.samples = 2;  // observables at t0 and t1 by default
  // Stopped from outside (Python's Ctrl-C) at the end of a leg, or a progress bar drawn (moving
  // within a chunk): legs short, bitwise the same.
  if ((o.stop || Progress::drawn(o.quiet, bool(o.progress), o.progress_always)) && c != Command::converge)
    st.run.pauses = std::max(st.run.pauses, short_pauses(st.run));
  if (!given) st.inputs.push_back(o.config);
  // Nothing is computed before the outputs are known to be writable, to replace no one else's
  // file and to fit.
  const std::string out = o.memory ? "" : output_path(o);
  if (!o.memory) {
    if (const std::string why = sink_format_error(out); !why.empty()) throw ConfigError(why);
    st.outputs = outputs_of(out, c, st);
    check_outputs(st.outputs, st.inputs, o.force);
    // A stopped run's checkpoint is never overwritten by accident.
    std::error_code ec;
    if (!o.resume && !o.restart && fs::exists(fs::symlink_status(Checkpoint::dir_of(out), ec)))
      throw ConfigError(Checkpoint::in_the_way(out));
  }
  check_resources(st, c, o, out);
  // Every member's state is checked now, so a bad one cannot end a long run late.
  Progress progress("checking initial states", o.quiet, {}, o.progress_always);
  constexpr std::size_t block = 65536;  // members checked at a time
  std::vector<double> y;
  for (std::size_t i0 = st.members.begin; i0 < st.members.end; i0 += block) {
    st.init.fill(i0, std::min(block, st.members.end - i0), y, cpu_threads(st.run.threads));
    progress(double(i0 - st.members.begin + y.size() / std::size_t(st.model->dim())) / double(st.members.count()));
  }
  if (st.members.count() <= block) st.states = std::move(y);  // made in one fill: a run of one batch takes them
  return st;
}

std::string status_summary(const std::vector<std::uint8_t>& status) {
  std::vector<long> count(status_count + 1, 0);  // the last: codes outside the list
  for (auto s : status) ++count[std::min<int>(s, status_count)];
  return status_summary(count);
}

std::string status_summary(const std::vector<long>& count) {
  std::string r;
  for (int s = 0; s <= status_count; ++s)
    if (count[std::size_t(s)]) r += (r.empty() ? "" : ", ") + std::to_string(count[std::size_t(s)]) + " " + status_name(std::uint8_t(s));
  return r;
}

void write_header(Sink& w, const Study& st, const Options& o, const std::string& command, const std::string& device) {
  w.attr("liebatch_version", LIEBATCH_VERSION);
  w.attr("liebatch_commit", source_commit());
  w.attr("command", command);
  w.attr("command_line", o.command_line);
  w.attr("created", utc_now());
  w.attr("device", device);
  w.attr("cpu_simd", pack_arch());
  w.attr("model", st.model->name());
  if (!st.model_source.empty()) w.attr("model_source", st.model_source);
  std::string methods = st.run.method;  // converge's: each it compares
  if (command == "converge") {
    methods.clear();
    for (const auto& m : st.converge.methods) methods += (methods.empty() ? "" : ", ") + m;
  }
  w.attr("method", methods);
  w.attr("precision", st.run.single ? "float" : "double");
  w.attr("initial_states", st.sampler);
  w.attr("config", st.config.dump(2));
  w.attr("members_begin", double(st.members.begin));  // a slice's members (merge joins slices)
  w.attr("members_end", double(st.members.end));
  w.attr("members_total", double(st.init.count));
  w.write("names/state", st.model->state_names());
  w.write("names/observables", st.model->obs_names());
  w.write("names/status", status_names());
  if (st.model->rule().varies()) {
    std::vector<std::string> keys;
    for (const auto& [key, size] : st.model->varied_parameters()) keys.push_back(key);
    w.write("names/parameters", keys);
    w.attr("parameters", st.model->rule().describe());
  }
}

void describe_status(Sink& w) {
  std::string values;
  for (int s = 0; s < status_count; ++s) values += (s ? ", " : "") + std::to_string(s) + " " + status_name(std::uint8_t(s));
  w.attr("final/status", "values", values);
}

void describe_newton(Sink& w) {
  w.attr("final/newton_mean", "meaning", "Newton iterations per step attempt");
  w.attr("final/newton_max", "meaning", "most Newton iterations in one step attempt");
}

double newton_mean(const EnsembleOutput<double>& o, std::size_t i, bool adaptive) {
  const bool failed = !adaptive && o.status[i] == std::uint8_t(Status::nonlinear_solve_failed);
  const long attempts = o.steps[i] + o.rejected[i] + (failed ? 1 : 0);
  return attempts > 0 ? double(o.iterations[i]) / double(attempts) : std::nan("");  // none attempted: no mean
}

MemberArrays::MemberArrays(Sink& w, const Study& st, bool hits)
    : w_(w), model_(*st.model), hits_(hits), adaptive_(st.run.adaptive), n_(st.members.count()), first_(st.members.begin) {
  using K = Sink::Kind;
  const auto n = std::uint64_t(n_), d = std::uint64_t(st.model->dim());
  const auto q = std::uint64_t(st.model->obs_names().size()), k = std::uint64_t(st.run.samples);
  w.create("initial/y", K::f64, {d, n});
  for (const auto& [key, size] : model_.varied_parameters())  // a member's parameters, (members) or (size, members)
    size == 1 ? w.create("parameters/" + key, K::f64, {n}) : w.create("parameters/" + key, K::f64, {std::uint64_t(size), n});
  w.create("final/y", K::f64, {d, n});
  w.create("final/t", K::f64, {n});
  w.create("final/steps", K::i64, {n});
  w.create("final/rejected", K::i64, {n});
  w.create("final/status", K::u8, {n});
  describe_status(w);
  if (k > 0) {
    w.create("samples/t", K::f64, {k, n});
    w.create("samples/y", K::f64, {k, d, n});
    w.create("samples/observables", K::f64, {k, q, n});
  }
  if (hits) {
    w.create_rows("hits/member", K::i64, 0);
    w.create_rows("hits/index", K::i64, 0);
    w.create_rows("hits/t", K::f64, 0);
    w.create_rows("hits/y", K::f64, d);
    w.create_rows("hits/observables", K::f64, q);
    w.create("hits/count", K::i64, {n});
    w.create("hits/lost", K::i64, {n});
    w.create("hits/suspected_pairs", K::i64, {n});
  }
}

void MemberArrays::add(std::size_t i0, const std::vector<double>& y0, const RunResult& r) {
  const auto& o = r.out;
  const auto c0 = std::uint64_t(i0 - first_), b = std::uint64_t(o.size);
  w_.write_columns("initial/y", y0, c0, b);
  if (model_.rule().varies()) {
    const auto keys = model_.varied_parameters();
    for (std::size_t p = 0; p < keys.size(); ++p) w_.write_columns("parameters/" + keys[p].first, r.parameters[p], c0, b);
  }
  w_.write_columns("final/y", o.y, c0, b);
  w_.write_columns("final/t", o.t, c0, b);
  w_.write_columns("final/steps", o.steps, c0, b);
  w_.write_columns("final/rejected", o.rejected, c0, b);
  w_.write_columns("final/status", o.status, c0, b);
  if (!o.iterations.empty()) {  // an implicit method: its Newton iterations per member
    newton_arrays();            // created with the first batch: only implicit methods count iterations
    std::vector<double> mean(o.size);
    for (std::size_t i = 0; i < o.size; ++i) mean[i] = newton_mean(o, i, adaptive_);
    w_.write_columns("final/newton_mean", mean, c0, b);
    w_.write_columns("final/newton_max", std::vector<long>(o.iterations_max.begin(), o.iterations_max.end()), c0, b);
  }
  if (o.samples > 0) {
    w_.write_columns("samples/t", o.sample_t, c0, b);
    w_.write_columns("samples/y", o.sample_y, c0, b);
    w_.write_columns("samples/observables", o.sample_obs, c0, b);
  }
  if (hits_) {
    std::vector<long> member, index(o.hit_index.begin(), o.hit_index.end());
    for (auto m : o.hit_member) member.push_back(long(i0 + m));
    w_.append_rows("hits/member", member, 0);
    w_.append_rows("hits/index", index, 0);
    w_.append_rows("hits/t", o.hit_t, 0);
    w_.append_rows("hits/y", o.hit_y, std::uint64_t(o.dim));
    w_.append_rows("hits/observables", o.hit_obs, std::uint64_t(o.nobs));
    w_.write_columns("hits/count", o.hits, c0, b);
    w_.write_columns("hits/lost", o.lost_hits, c0, b);
    w_.write_columns("hits/suspected_pairs", o.suspects, c0, b);
  }
}

void MemberArrays::newton_arrays() {
  if (newton_) return;
  newton_ = true;
  w_.create("final/newton_mean", Sink::Kind::f64, {n_});
  w_.create("final/newton_max", Sink::Kind::i64, {n_});
  describe_newton(w_);
}

void commit(const Study& st, const Options& o, Sink& w, TextOutput* table) {
  check_outputs(st.outputs, st.inputs, o.force);
  if (table) table->finish();
  w.commit();
  if (table) table->commit();
}

void note_plot(const std::string& png, const std::string& why, bool quiet) {
  if (!why.empty()) std::cerr << "liebatch: no plot: " << why << "\n";
  else if (!quiet) std::cout << "  plot: " << png << "\n";
}

void note_earlier_outputs(const std::string& h5, bool wrote_table) {
  for (const auto& [ext, what] : {std::pair{".png", "plot"}, {".csv", "table"}}) {
    if (wrote_table && std::string_view(ext) == ".csv") continue;
    const std::string file = sibling(h5, ext);
    std::error_code ec;
    const auto made = fs::last_write_time(file, ec);
    if (!ec && fs::is_regular_file(fs::symlink_status(file, ec)) && made < fs::last_write_time(h5, ec) && !ec && written_by_liebatch(file))
      std::cerr << "liebatch: note: '" << echo(file) << "' beside the output is an earlier run's " << what << "; this run wrote none\n";
  }
}

}  // namespace lb::cli
