// run, poincare, converge, validate and list: read the config, run on the CPU or GPU, write one HDF5 file
// (renamed into place only when complete), a CSV for small tables, PNG plots, and a summary.
#include "commands.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include <liebatch/ensemble/device.hpp>
#include "gpu_run.hpp"
#include "h5_writer.hpp"
#include "order_fit.hpp"
#include "output_files.hpp"
#include "plot.hpp"
#include "progress.hpp"
#include "registry.hpp"
#include "study.hpp"

namespace lb::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string read_text(const std::string& path) {
  if (const std::string why = unreadable(path); !why.empty()) throw IoError("cannot read config '" + echo(path) + "': " + why);
  std::ifstream in(path);
  if (!in) throw IoError("cannot read config '" + echo(path) + "': " + std::strerror(errno));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string output_path(const Options& o) {
  if (!o.output.empty()) return o.output;
  return fs::path(o.config).stem().string() + ".h5";
}

/// The output's name with another extension ("run.h5" → "run.png").
std::string sibling(const std::string& h5, const std::string& ext) {
  fs::path p(h5);
  p.replace_extension(ext);
  return p.string();
}

/// A member count: exact below a million, else "1.2e+12".
std::string fmt_count(double n) {
  char s[32];
  std::snprintf(s, sizeof s, n < 1e6 ? "%.0f" : "%.3g", n);
  return s;
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

/// Where a command's runs go, and how the output names it.
struct Where {
  bool gpu;
  std::string text;  ///< e.g. "cpu (auto: no CUDA device present)"
};

/// "" when the GPU is usable and this build holds kernels for the model and every method, else why not.
std::string gpu_missing(const ModelRunner& model, const std::vector<std::string>& methods) {
  std::string why = gpu_unavailable_reason();
  for (const auto& m : methods)
    if (why.empty()) why = gpu_method_missing(m);
  return why.empty() ? model.gpu_missing() : why;
}

/// --device cpu; gpu (an error saying why when the GPU or the kernels are missing); or auto: the
/// GPU when it is usable and holds kernels for the model and every method the command runs.
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

/// Bytes a batch holds per member: states, samples and hit slots (×3 with a long double run beside).
double member_bytes(const Study& st, bool extended) {
  const double d = st.model->dim(), q = double(st.model->obs_names().size()), k = st.run.samples;
  double per = 8 * (d * (3 + k) + q * k + 8);
  if (st.run.section.kind != SectionSpec::none) per += 8 * st.run.section.max_hits * (d + q + 2);
  return extended ? 3 * per : per;
}

/// Members per batch: as many as fit 1 GiB (at least 1), or as requested.
std::size_t batch_size(const Study& st, std::size_t requested, bool extended) {
  const std::size_t n = st.init.count;
  if (requested > 0) return std::min(requested, n);
  return std::max<std::size_t>(1, std::min<std::size_t>(n, std::size_t(1024.0 * 1024 * 1024 / member_bytes(st, extended))));
}

/// The files command c writes: the HDF5 output, and beside it a CSV table and a PNG plot (run:
/// the observables' drift, which needs samples).
std::vector<std::string> outputs_of(const std::string& h5, Command c, const Study& st) {
  std::vector<std::string> v{h5};
  if (c == Command::converge || c == Command::validate) v.push_back(sibling(h5, ".csv"));
  const bool drawn = c == Command::run ? st.run.samples >= 2 && !st.model->obs_names().empty() : c != Command::validate;
  if (st.plot && drawn && gnuplot_available()) v.push_back(sibling(h5, ".png"));
  return v;
}

/// Refuses, before any work, a run whose output cannot fit on its file system or whose batches
/// cannot fit in memory, naming both sizes.
void check_resources(const Study& st, Command c, const Options& o, const std::string& out) {
  const double n = double(st.init.count);
  if (c == Command::converge) {  // every member at every step size at once, beside a long double run
    const double runs = n * double(st.converge.steps.size());
    check_memory(runs * member_bytes(st, true), fmt_count(runs) + " runs (members x step sizes) held at once");
    return;
  }
  const double d = st.model->dim(), q = double(st.model->obs_names().size()), k = st.run.samples;
  double per = 8 * (2 * d + 3) + 1 + 8 * k * (1 + d + q);  // initial/, final/, samples/
  if (c == Command::poincare) per += 3 * 8;                 // hits/count, lost, suspected_pairs
  check_space(out, 65536 + n * per,
              fmt_count(n) + " members x " + human_bytes(per) + (c == Command::poincare ? ", before the section's hits" : ""));
  const auto batch = double(batch_size(st, std::size_t(o.batch), c == Command::validate));
  check_memory(batch * member_bytes(st, c == Command::validate), fmt_count(batch) + " members per batch");
}

Study load(const Options& o, Command c) {
  Study st = read_study(read_text(o.config), c, fs::path(o.config).parent_path().string().empty()
                                                      ? std::string(".")
                                                      : fs::path(o.config).parent_path().string());
  st.run.threads = o.threads;
  st.plot = st.plot && o.plot;
  if (c == Command::run && !st.samples_given) st.run.samples = 2;  // observables at t0 and t1 by default
  if (o.precision == "float") {
    if (c != Command::run) throw ConfigError("--precision float: only 'liebatch run' offers float (sections, convergence and "
                                             "validation use double)");
    st.run.single = true;
    // float must resolve the step at the span's largest |t|, or the time grid silently coarsens.
    const float tmax = float(std::max(std::abs(st.run.t0), std::abs(st.run.t1)));
    const double ulp = double(std::nextafter(tmax, INFINITY) - tmax), hmin = *std::min_element(st.run.h.begin(), st.run.h.end());
    if (ulp > 1e-3 * hmin)
      throw ConfigError("config /time: --precision float cannot resolve steps of " + std::to_string(hmin) + " at |t| = " +
                        std::to_string(tmax) + " (float spacing " + std::to_string(ulp) + "); shift the span towards 0 or use double");
  }
  // Nothing is computed before the outputs are known to be writable, to replace no one else's
  // file and to fit.
  const std::string out = output_path(o);
  if (fs::path(out).extension() != ".h5") throw ConfigError("output '" + echo(out) + "': expected a file name ending in .h5");
  st.inputs.push_back(o.config);
  st.outputs = outputs_of(out, c, st);
  check_outputs(st.outputs, st.inputs, o.force);
  check_resources(st, c, o, out);
  // Every member's state is checked now, so a bad one cannot end a long run late.
  Progress progress("checking initial states", o.quiet);
  std::vector<double> y;
  for (std::size_t i0 = 0; i0 < st.init.count; i0 += 65536) {
    st.init.fill(i0, std::min<std::size_t>(65536, st.init.count - i0), y);
    progress(double(i0 + y.size() / std::size_t(st.model->dim())) / double(st.init.count));
  }
  return st;
}

const char* status_name(std::uint8_t s) {
  static const char* names[] = {"running", "ok", "nonfinite", "step_underflow", "step_cap", "dexpinv_singular"};
  return s < 6 ? names[s] : "unknown";
}

std::vector<std::string> status_names() {
  std::vector<std::string> v;
  for (std::uint8_t s = 0; s < 6; ++s) v.push_back(status_name(s));
  return v;
}

/// "9998 ok, 2 nonfinite".
std::string status_summary(const std::vector<std::uint8_t>& status) {
  long count[7] = {};
  for (auto s : status) ++count[std::min<int>(s, 6)];
  std::string r;
  for (std::uint8_t s = 0; s < 7; ++s)
    if (count[s]) r += (r.empty() ? "" : ", ") + std::to_string(count[s]) + " " + status_name(s);
  return r;
}

void write_header(H5Writer& w, const Study& st, const Options& o, const std::string& command, const std::string& device) {
  w.attr("liebatch_version", LIEBATCH_VERSION);
  w.attr("command", command);
  w.attr("command_line", o.command_line);
  w.attr("created", utc_now());
  w.attr("device", device);
  w.attr("model", st.model->name());
  w.attr("method", st.run.method);
  w.attr("precision", st.run.single ? "float" : "double");
  w.attr("initial_states", st.sampler);
  w.attr("config", st.config.dump(2));
  w.write("names/state", st.model->state_names());
  w.write("names/observables", st.model->obs_names());
  w.write("names/status", status_names());
}

/// Points a Poincaré plot draws at most (the first ones; every hit is in the HDF5 file).
constexpr std::size_t max_plotted = 2'000'000;

/// Puts the files in place: the outputs checked again (a file or a link may have appeared at their
/// paths during the run), the CSV written out before the HDF5 file is renamed, so a full disk
/// leaves neither.
void commit(const Study& st, const Options& o, H5Writer& w, TextOutput* table = nullptr) {
  check_outputs(st.outputs, st.inputs, o.force);
  if (table) table->finish();
  w.commit();
  if (table) table->commit();
}

/// The per-member datasets of an ensemble, filled batch by batch (columns = members).
class EnsembleSink {
 public:
  EnsembleSink(H5Writer& w, const Study& st, bool hits) : w_(w), hits_(hits) {
    using K = H5Writer::Kind;
    const auto n = std::uint64_t(st.init.count), d = std::uint64_t(st.model->dim());
    const auto q = std::uint64_t(st.model->obs_names().size()), k = std::uint64_t(st.run.samples);
    w.create("initial/y", K::f64, {d, n});
    w.create("final/y", K::f64, {d, n});
    w.create("final/t", K::f64, {n});
    w.create("final/steps", K::i64, {n});
    w.create("final/rejected", K::i64, {n});
    w.create("final/status", K::u8, {n});
    w.attr("final/status", "values", "0 running, 1 ok, 2 nonfinite, 3 step_underflow, 4 step_cap, 5 dexpinv_singular");
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
  /// Members [i0, i0 + r.out.size) with initial states y0.
  void add(std::size_t i0, const std::vector<double>& y0, const RunResult& r) {
    const auto& o = r.out;
    const auto c0 = std::uint64_t(i0), b = std::uint64_t(o.size);
    w_.write_columns("initial/y", y0, c0, b);
    w_.write_columns("final/y", o.y, c0, b);
    w_.write_columns("final/t", o.t, c0, b);
    w_.write_columns("final/steps", o.steps, c0, b);
    w_.write_columns("final/rejected", o.rejected, c0, b);
    w_.write_columns("final/status", o.status, c0, b);
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

 private:
  H5Writer& w_;
  bool hits_;
};

void note_plot(const std::string& png, const std::string& why, bool quiet) {
  if (!why.empty()) std::cerr << "liebatch: no plot: " << why << "\n";
  else if (!quiet) std::cout << "  plot: " << png << "\n";
}

/// Per observable, the largest |obs(t_k) − obs(t₀)| over the members that finished, against t_k.
struct Drift {
  std::vector<double> t, worst;  ///< [k], [k·nobs + q]
  void add(const EnsembleOutput<double>& o) {
    if (t.empty()) { t.assign(std::size_t(o.samples), 0); worst.assign(std::size_t(o.samples * o.nobs), 0); }
    for (std::size_t i = 0; i < o.size; ++i) {
      if (o.status[i] != std::uint8_t(Status::ok)) continue;
      for (int k = 0; k < o.samples; ++k) {
        t[std::size_t(k)] = o.sample_t[std::size_t(k) * o.size + i];
        for (int q = 0; q < o.nobs; ++q) {
          const auto at = [&](int kk) { return o.sample_obs[(std::size_t(kk) * std::size_t(o.nobs) + std::size_t(q)) * o.size + i]; };
          double& w = worst[std::size_t(k * o.nobs + q)];
          w = std::max(w, std::abs(at(k) - at(0)));
        }
      }
    }
  }
  /// One series per observable, exact zeros left out (no logarithm); observables that never drift
  /// are named in `exact` instead.
  std::vector<Series> series(const std::vector<std::string>& names, std::string& exact) const {
    std::vector<Series> v;
    const std::size_t nobs = names.size();
    for (std::size_t q = 0; q < nobs; ++q) {
      Series s{names[q], {}, {}};
      for (std::size_t k = 1; k < t.size(); ++k)
        if (worst[k * nobs + q] > 0) { s.x.push_back(t[k]); s.y.push_back(worst[k * nobs + q]); }
      if (s.x.empty()) exact += (exact.empty() ? "" : ", ") + names[q];
      else v.push_back(std::move(s));
    }
    return v;
  }
};

int ensemble_command(const Options& opt, Command c) {
  const bool poincare = c == Command::poincare;
  Study st = load(opt, c);
  const Where where = pick_device(opt, *st.model, {st.run.method});
  st.run.gpu = where.gpu;
  H5Writer w(output_path(opt));
  write_header(w, st, opt, poincare ? "poincare" : "run", where.text);
  EnsembleSink sink(w, st, poincare);
  const std::size_t n = st.init.count, batch = batch_size(st, std::size_t(opt.batch), false);
  Progress progress(poincare ? "poincare" : "run", opt.quiet);
  std::vector<std::uint8_t> status;
  long steps = 0, rejected = 0, hits = 0, lost = 0;
  Drift drift;
  Series scatter{"hits", {}, {}};
  int px = st.plot_x, py = st.plot_y;
  if (px < 0) px = st.run.section.kind == SectionSpec::hyperplane && st.run.section.component == 0 ? 1 : 0;
  if (py < 0) py = px + 1 + (st.run.section.kind == SectionSpec::hyperplane && st.run.section.component == px + 1 ? 1 : 0);
  std::string ran_on;
  const auto t_start = Clock::now();
  for (std::size_t i0 = 0; i0 < n; i0 += batch) {
    RunSpec s = st.run;
    s.size = std::min(batch, n - i0);
    st.init.fill(i0, s.size, s.y0);
    s.progress = [&](double f) { progress((double(i0) + f * double(s.size)) / double(n)); };
    const RunResult r = st.model->run(s);
    sink.add(i0, s.y0, r);
    ran_on = r.out.device;
    status.insert(status.end(), r.out.status.begin(), r.out.status.end());
    for (std::size_t i = 0; i < r.out.size; ++i) { steps += r.out.steps[i]; rejected += r.out.rejected[i]; }
    hits += long(r.out.hit_t.size());
    lost += r.out.total_lost_hits();
    if (r.out.samples >= 2) drift.add(r.out);
    for (std::size_t h = 0; h < r.out.hit_t.size() && scatter.x.size() < max_plotted; ++h) {  // (all are in the file)
      scatter.x.push_back(r.out.hit_y[h * std::size_t(r.out.dim) + std::size_t(px)]);
      scatter.y.push_back(r.out.hit_y[h * std::size_t(r.out.dim) + std::size_t(py)]);
    }
  }
  const double wall = std::chrono::duration<double>(Clock::now() - t_start).count();
  progress.finish();
  w.attr("batches", double((n + batch - 1) / batch));
  commit(st, opt, w);
  const bool none_finished = std::none_of(status.begin(), status.end(), [](std::uint8_t s) { return s == std::uint8_t(Status::ok); });

  if (!opt.quiet) {
    std::cout << (poincare ? "poincare: " : "run: ") << st.model->name() << ", " << st.run.method
              << (st.run.adaptive ? " (adaptive)" : "") << ", " << n << " members on " << ran_on
              << (batch < n ? " in " + std::to_string((n + batch - 1) / batch) + " batches" : std::string()) << "\n"
              << "  " << status_summary(status) << "; " << steps << " steps, " << rejected << " rejected; " << wall
              << " s (" << double(steps) / std::max(wall, 1e-9) << " trajectory-steps/s)\n";
    if (poincare)
      std::cout << "  " << hits << " section hits recorded, " << lost << " lost" << (lost ? " (raise max_hits)" : "") << "\n";
    std::cout << "  device: " << where.text << "\n  output: " << w.path() << "\n";
  }
  if (st.plot) {
    const std::string png = sibling(w.path(), ".png");
    const auto names = st.model->state_names();
    if (poincare && !scatter.x.empty())
      note_plot(png, plot(png, {"Poincaré section: " + st.model->name() + ", " + std::to_string(n) + " members", names[std::size_t(px)],
                                names[std::size_t(py)], false, false, true}, {scatter}), opt.quiet);
    else if (!poincare && !drift.t.empty() && !st.model->obs_names().empty()) {
      std::string exact;
      const auto series = drift.series(st.model->obs_names(), exact);
      if (series.empty()) note_plot(png, "every observable is exactly constant", opt.quiet);
      else
        note_plot(png, plot(png, {"observable drift: max over members of |obs(t) - obs(t0)|, " + st.model->name() + ", " + st.run.method +
                                      (exact.empty() ? "" : "; exactly 0: " + exact), "t", "drift", false, true, false}, series),
                  opt.quiet);
    }
  }
  if (none_finished) {
    std::cerr << "liebatch: no member finished (" << status_summary(status) << "); the output records each member's status\n";
    return check_failed;
  }
  return ok;
}

/// max over the state's components of |a − b| / max(1, |b|).
double rel_diff(const double* a, const double* b, int dim, std::size_t stride) {
  double d = 0;
  for (int c = 0; c < dim; ++c) {
    const double x = a[std::size_t(c) * stride], y = b[std::size_t(c) * stride];
    d = std::max(d, std::isnan(x) || std::isnan(y) ? INFINITY : std::abs(x - y) / std::max(1.0, std::abs(y)));
  }
  return d;
}

}  // namespace

int run_command(const Options& o) { return ensemble_command(o, Command::run); }
int poincare_command(const Options& o) { return ensemble_command(o, Command::poincare); }

int converge_command(const Options& opt) {
  Study st = load(opt, Command::converge);
  const auto& cs = st.converge;
  std::vector<std::string> gpu_runs = cs.methods;
  if (cs.reference != "extended") gpu_runs.push_back(cs.ref_method);  // the extended reference runs on the CPU
  const Where where = pick_device(opt, *st.model, gpu_runs);
  st.run.gpu = where.gpu;
  H5Writer w(output_path(opt));
  const std::size_t n = st.init.count, nh = cs.steps.size(), nm = cs.methods.size();
  const int dim = st.model->dim();
  std::vector<double> y0;
  st.init.fill(0, n, y0);

  RunSpec ref = st.run;
  ref.size = n;
  ref.y0 = y0;
  ref.method = cs.ref_method;
  ref.adaptive = false;
  ref.h = {cs.ref_h};
  ref.samples = 0;
  const RunResult rr = cs.reference == "extended" ? st.model->run_extended(ref) : st.model->run(ref);
  for (std::size_t k = 0; k < n; ++k)
    if (rr.out.status[k] != std::uint8_t(Status::ok))
      throw ConfigError("config /converge/reference: the reference run failed for initial state " + std::to_string(k) + " (" +
                        status_name(rr.out.status[k]) + "); choose another reference step or method");
  // Largest |a − b| over the initial states k at step size j (a's member j·n + k) and the state's
  // components; b holds the same members, or one per initial state (the reference). NaN if any
  // member failed.
  const auto max_diff = [&](const EnsembleOutput<double>& a, const EnsembleOutput<double>& b, std::size_t j) {
    double e = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = j * n + k, ib = b.size == a.size ? i : k;
      if (a.status[i] != std::uint8_t(Status::ok) || b.status[ib] != std::uint8_t(Status::ok)) return double(NAN);
      for (int d = 0; d < dim; ++d) {
        const double diff = std::abs(a.y[std::size_t(d) * a.size + i] - b.y[std::size_t(d) * b.size + ib]);
        if (std::isnan(diff)) return double(NAN);
        e = std::max(e, diff);
      }
    }
    return e;
  };

  std::vector<double> error(nm * nh), roundoff(nm * nh), slope(nm * (nh - 1)), order(nm);
  std::vector<std::uint8_t> use(nm * nh);
  std::vector<std::string> notes;
  TextOutput table(sibling(w.path(), ".csv"));  // next to the HDF5 file, renamed in place after it
  auto& csv = table.out();
  csv << csv_mark("converge") << "\nmethod,h,error,roundoff,local_slope,point\n";
  csv.precision(10);
  if (!opt.quiet)
    std::cout << "converge: " << st.model->name() << ", " << n << " initial state(s), reference " << cs.reference << " "
              << cs.ref_method << " h = " << cs.ref_h << "; device " << where.text << "\n";
  std::vector<Series> series;
  Progress progress("converge", opt.quiet);
  std::ostringstream report;  // printed after the progress line
  Series dropped{"not fitted (round-off, pre-asymptotic)", {}, {}, "w points pt 6 ps 2 lc rgb 'black'"};
  for (std::size_t m = 0; m < nm; ++m) {
    RunSpec s = st.run;
    s.method = cs.methods[m];
    s.adaptive = false;
    s.samples = 0;
    s.size = n * nh;
    s.y0.assign(std::size_t(dim) * s.size, 0);
    s.h.assign(s.size, 0);
    for (std::size_t j = 0; j < nh; ++j)
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = j * n + k;
        s.h[i] = cs.steps[j];
        for (int d = 0; d < dim; ++d) s.y0[std::size_t(d) * s.size + i] = y0[std::size_t(d) * n + k];
      }
    s.progress = [&](double f) { progress((double(m) + f / 4) / double(nm)); };
    const RunResult r = st.model->run(s);
    // Each run's round-off: its difference from the same method and steps in long double.
    s.progress = [&](double f) { progress((double(m) + 0.25 + 0.75 * f) / double(nm)); };
    const RunResult x = st.model->run_extended(s);
    const auto at = [&](std::vector<double>& v, std::size_t j) -> double& { return v[m * nh + j]; };
    for (std::size_t j = 0; j < nh; ++j) {
      at(error, j) = max_diff(r.out, rr.out, j);
      at(roundoff, j) = max_diff(r.out, x.out, j);
    }
    const OrderFit fit = fit_order(cs.steps, std::vector<double>(error.begin() + long(m * nh), error.begin() + long((m + 1) * nh)),
                                   std::vector<double>(roundoff.begin() + long(m * nh), roundoff.begin() + long((m + 1) * nh)));
    order[m] = fit.order;
    notes.push_back(fit.note);
    Series ser{cs.methods[m], {}, {}};
    for (std::size_t j = 0; j < nh; ++j) {
      use[m * nh + j] = std::uint8_t(fit.use[j]);
      if (j + 1 < nh) slope[m * (nh - 1) + j] = fit.slope[j];
      csv << cs.methods[m] << "," << cs.steps[j] << "," << at(error, j) << "," << at(roundoff, j) << ","
          << (j + 1 < nh ? fit.slope[j] : NAN) << "," << name(fit.use[j]) << "\n";
      if (std::isfinite(at(error, j)) && at(error, j) > 0) {
        ser.x.push_back(cs.steps[j]);
        ser.y.push_back(at(error, j));
        if (fit.use[j] != PointUse::fitted) { dropped.x.push_back(cs.steps[j]); dropped.y.push_back(at(error, j)); }
      }
    }
    report << "  " << cs.methods[m] << " (order " << method_info(cs.methods[m]).order << "): observed " << order[m] << ", " << fit.note
           << "\n    h, error, round-off, local slope to the next h, use:\n";
    for (std::size_t j = 0; j < nh; ++j)
      report << "    " << cs.steps[j] << "  " << at(error, j) << "  " << at(roundoff, j) << "  "
             << (j + 1 < nh ? std::to_string(fit.slope[j]).substr(0, 5) : std::string("-")) << "  " << name(fit.use[j]) << "\n";
    char legend[64];
    std::snprintf(legend, sizeof legend, " %.2f", order[m]);
    ser.title += legend;
    series.push_back(std::move(ser));
  }
  progress.finish();
  if (!opt.quiet) std::cout << report.str();
  if (!dropped.x.empty()) series.push_back(std::move(dropped));
  write_header(w, st, opt, "converge", where.text);
  w.write("initial/y", y0, {std::uint64_t(dim), n});
  w.write("converge/h", cs.steps, {nh});
  w.write("converge/methods", cs.methods);
  w.write("converge/error", error, {nm, nh});
  w.write("converge/roundoff", roundoff, {nm, nh});
  w.write("converge/local_slope", slope, {nm, nh - 1});
  w.write("converge/point", use, {nm, nh});
  w.write("converge/observed_order", order, {nm});
  w.write("converge/fit", notes);
  w.attr("converge/error", "meaning", "max over initial states of max_d |y_d(t1) - y_ref,d(t1)|");
  w.attr("converge/roundoff", "meaning", "max over initial states of max_d |y_d(t1) - y_ld,d(t1)|: the same method and step in long double");
  w.attr("converge/local_slope", "meaning", "log(e_j / e_j+1) / log(h_j / h_j+1) between neighbouring step sizes above round-off (NaN otherwise)");
  w.attr("converge/point", "values", "0 fitted, 1 round-off (error < 10 x round-off), 2 pre-asymptotic (local slope not settled), 3 failed, "
                                     "4 alone (the only point above round-off)");
  w.attr("converge/observed_order", "meaning", "least-squares slope of log error against log h over the fitted points: the finest "
         "pairs whose local slopes lie within 0.2 (halved steps; 0.2 log 2 / log ratio otherwise) of the finest pair's");
  w.attr("reference", cs.reference + " " + cs.ref_method + " h = " + std::to_string(cs.ref_h));
  commit(st, opt, w, &table);
  if (!opt.quiet) std::cout << "  output: " << w.path() << ", table: " << sibling(w.path(), ".csv") << "\n";
  if (st.plot) {
    const std::string png = sibling(w.path(), ".png");
    note_plot(png, plot(png, {"convergence at t1: " + st.model->name() + " (observed orders over the fitted points)", "h", "error", true, true, false}, series),
              opt.quiet);
  }
  if (std::all_of(order.begin(), order.end(), [](double p) { return std::isnan(p); })) {
    std::cerr << "liebatch: no observed order could be fitted (see the table: failed runs or errors at round-off)\n";
    return check_failed;
  }
  return ok;
}

int validate_command(const Options& opt) {
  Study st = load(opt, Command::validate);
  // Against the GPU: the run on the CPU checked against the same run on the GPU. Against extended:
  // the run (on --device) checked against a long double run of the same method and steps.
  const bool against_gpu = st.validate.against == "gpu";
  if (against_gpu && opt.device == "cpu")
    throw ConfigError("config /validate/against: 'gpu' runs the ensemble on the CPU and on the GPU; drop --device cpu");
  Where where{false, "cpu and gpu (validate against gpu)"};
  if (against_gpu) {
    const std::string why = gpu_missing(*st.model, {st.run.method});
    if (!why.empty()) throw std::runtime_error("config /validate/against: 'gpu': cannot run on the GPU: " + why);
  } else {
    where = pick_device(opt, *st.model, {st.run.method});
  }
  st.run.gpu = where.gpu;
  H5Writer w(output_path(opt));
  write_header(w, st, opt, "validate", where.text);
  EnsembleSink sink(w, st, false);
  const std::size_t n = st.init.count, batch = batch_size(st, std::size_t(opt.batch), true);
  // Per output: relative differences |a − b|/max(1, |b|) per member (and sample), max and median.
  std::vector<std::string> names = {"final state"};
  if (st.run.samples > 0) names.push_back("sampled states");
  if (st.run.samples > 0 && !st.model->obs_names().empty()) names.push_back("sampled observables");
  std::vector<std::vector<double>> diffs(names.size());
  long status_mismatch = 0, max_steps = 1, not_ok = 0;
  std::string reference_device;
  Progress progress("validate", opt.quiet);
  for (std::size_t i0 = 0; i0 < n; i0 += batch) {
    RunSpec s = st.run;
    s.size = std::min(batch, n - i0);
    st.init.fill(i0, s.size, s.y0);
    // Progress: the run a quarter of each batch, its reference (long double: slower) the rest.
    const auto part = [&](double from, double to) {
      return [&, from, to](double f) { progress((double(i0) + (from + f * (to - from)) * double(s.size)) / double(n)); };
    };
    s.progress = part(0, against_gpu ? 0.5 : 0.25);
    const RunResult a = st.model->run(s);
    s.progress = part(against_gpu ? 0.5 : 0.25, 1);
    s.gpu = true;  // the reference: the same run on the GPU, or in long double (always on the CPU)
    const RunResult b = against_gpu ? st.model->run(s) : st.model->run_extended(s);
    reference_device = b.out.device;
    sink.add(i0, s.y0, a);
    const auto& A = a.out;
    const auto& B = b.out;
    for (std::size_t i = 0; i < A.size; ++i) {
      diffs[0].push_back(rel_diff(&A.y[i], &B.y[i], A.dim, A.size));
      status_mismatch += A.status[i] != B.status[i];
      not_ok += A.status[i] != std::uint8_t(Status::ok);
      max_steps = std::max(max_steps, B.steps[i]);
    }
    for (int k = 0; k < A.samples; ++k)
      for (std::size_t i = 0; i < A.size; ++i) {
        const std::size_t o = std::size_t(k) * std::size_t(A.dim) * A.size + i;
        diffs[1].push_back(rel_diff(&A.sample_y[o], &B.sample_y[o], A.dim, A.size));
        if (A.nobs > 0) {
          const std::size_t q = std::size_t(k) * std::size_t(A.nobs) * A.size + i;
          diffs[2].push_back(rel_diff(&A.sample_obs[q], &B.sample_obs[q], A.nobs, A.size));
        }
      }
  }
  const MethodInfo mi = method_info(st.run.method);
  const double eps = std::numeric_limits<double>::epsilon();
  const double bound = st.validate.bound > 0 ? st.validate.bound
                       : st.run.adaptive   ? 100 * std::max(st.run.atol, st.run.rtol)
                                           : 100.0 * mi.stages * double(max_steps) * eps;
  std::vector<double> mx, med;
  bool pass = status_mismatch == 0 && not_ok == 0;  // a member that failed validates nothing
  TextOutput table(sibling(w.path(), ".csv"));
  auto& csv = table.out();
  csv << csv_mark("validate") << "\noutput,max,median,bound\n";
  if (!opt.quiet)
    std::cout << "validate: " << st.model->name() << ", " << st.run.method << ", " << n << " members: "
              << (against_gpu ? "CPU against GPU, double" : "double on " + where.text + " against long double") << "\n";
  for (std::size_t o = 0; o < names.size(); ++o) {
    auto& d = diffs[o];
    std::sort(d.begin(), d.end());
    const double m = d.back(), md = d[d.size() / 2];
    mx.push_back(m);
    med.push_back(md);
    pass = pass && m <= bound;
    csv << names[o] << "," << m << "," << md << "," << bound << "\n";
    if (!opt.quiet) std::cout << "  " << names[o] << ": max " << m << ", median " << md << (m <= bound ? "  ok" : "  ABOVE BOUND") << "\n";
  }
  if (!opt.quiet)
    std::cout << "  members not ok (" << (against_gpu ? "CPU run" : "double run") << "): " << not_ok << "; statuses differing: " << status_mismatch << "\n  bound " << bound
              << (st.validate.bound > 0 ? " (from the config)"
                  : st.run.adaptive     ? " (100 x tolerance: the two runs may take different steps)"
                                        : " (100 x stages x steps x eps: round-off accumulated over the steps)")
              << "\n  " << (pass ? "PASS" : "FAIL") << "\n";
  w.write("validate/outputs", names);
  w.write("validate/max", mx, {mx.size()});
  w.write("validate/median", med, {med.size()});
  w.attr("validate_bound", bound);
  w.attr("validate_result", pass ? "pass" : "fail");
  w.attr("validate_against", against_gpu ? "gpu (final/ and samples/ hold the CPU run; the GPU run, same method and steps, is its reference)"
                                         : "extended (long double CPU run, same method and steps)");
  w.attr("validate_reference_device", reference_device);
  commit(st, opt, w, &table);
  return pass ? ok : check_failed;
}

int list_command(const std::string& what) {
  if (what == "models" || what == "all") std::cout << describe_models();
  if (what == "methods" || what == "all") {
    const auto gpu = gpu_methods();
    std::cout << (what == "all" ? "\n" : "") << "methods (name: order[, embedded order], stages; [gpu]: has GPU kernels in this build):\n";
    for (const auto& m : method_list())
      std::cout << "  " << m.name << ": order " << m.order << (m.order_hat ? ", pair " + std::to_string(m.order) + "(" + std::to_string(m.order_hat) + ")" : "")
                << ", " << m.stages << " stages - " << m.what
                << (std::find(gpu.begin(), gpu.end(), m.name) != gpu.end() ? " [gpu]" : "") << "\n";
  }
  if (what == "presets" || what == "all") {
    std::cout << (what == "all" ? "\n" : "") << "presets (model: preset):\n";
    for (const auto& m : models())
      for (const auto& p : m.presets) std::cout << "  " << m.name << ": " << p << "\n";
  }
  return ok;
}

}  // namespace lb::cli
