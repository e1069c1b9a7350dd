// The binding `liebatch._liebatch`: the command line's registry, checks and commands, called in
// process. Configs are read by the command line's own reader (read_study), so a Python call and a
// config refuse the same input with the same words; liebatch/__init__.py names the arguments.
// Results leave as numpy arrays that own the engine's vectors (moved, not copied).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include <dlfcn.h>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "cli/commands/command.hpp"
#include "cli/commands/progress.hpp"
#include "cli/models/gpu_run.hpp"
#include "cli/models/method_list.hpp"
#include "cli/models/plugin.hpp"
#include "cli/models/registry.hpp"
#include <liebatch/ensemble/device.hpp>
#include <liebatch/ensemble/statistics.hpp>
#include "cli/outputs/memory_sink.hpp"

namespace py = pybind11;
using namespace lb::cli;

namespace {

/// A numpy array owning v (moved into a capsule), of shape `dims`, C order.
template <class V> py::array take(std::vector<V>&& v, const Sink::Dims& dims) {
  std::uint64_t n = 1;
  for (const auto d : dims) n *= d;
  if (n != v.size())  // an array over memory it does not own: never
    throw std::logic_error("liebatch: an array of " + std::to_string(v.size()) + " numbers cannot take a shape of " + std::to_string(n));
  auto* owned = new std::vector<V>(std::move(v));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<V>*>(p); });
  const std::vector<py::ssize_t> shape(dims.begin(), dims.end());
  return py::array_t<V>(shape, owned->data(), owner);
}

/// A MemoryStore as ({path: array or list of str}, {path: {name: value}}), its vectors moved.
py::tuple to_python(MemoryStore&& s) {
  py::dict arrays, attrs;
  for (auto& [path, a] : s.arrays) {
    if (a.is_strings) arrays[py::str(path)] = py::cast(a.strings);
    else if (a.kind == Sink::Kind::f64) arrays[py::str(path)] = take(std::move(a.f64), a.dims);
    else if (a.kind == Sink::Kind::i64) arrays[py::str(path)] = take(std::move(a.i64), a.dims);
    else arrays[py::str(path)] = take(std::move(a.u8), a.dims);
  }
  for (auto& [path, values] : s.attrs) {
    py::dict d;
    for (auto& [name, v] : values) d[py::str(name)] = std::visit([](auto& x) { return py::cast(x); }, v);
    attrs[py::str(path)] = d;
  }
  return py::make_tuple(arrays, attrs);
}

/// Runs work(stop, done) on a thread of its own with the GIL released, so other Python threads
/// run. Every 50 ms this thread checks for signals (Ctrl-C: the run is stopped and
/// KeyboardInterrupt raised once its thread has ended) and reports progress: the command line's
/// bar (progress True) or a callable given the fraction done, at most every 0.1 s, GIL held.
template <class Work> void run_in_thread(Work&& work, const py::object& progress, const char* label) {
  std::atomic<bool> stop{false};
  std::atomic<double> done{0};
  std::mutex m;
  std::condition_variable cv;
  bool finished = false;
  std::exception_ptr error;
  std::thread worker([&] {
    try {
      work(stop, done);
    } catch (...) {
      error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(m);
    finished = true;
    cv.notify_one();
  });
  // However this function is left, the run's thread is joined first (it uses the locals above;
  // an exception stops the run), with the GIL released so that its end never waits on Python.
  struct Join {
    std::thread& t;
    ~Join() {
      py::gil_scoped_release nogil;
      t.join();
    }
  } join{worker};
  const bool bar = py::isinstance<py::bool_>(progress) && progress.cast<bool>();
  const bool call = !progress.is_none() && !py::isinstance<py::bool_>(progress);
  Progress shown(label, !bar, {}, bar);  // asked for: drawn where stderr is no terminal too (a notebook, a log)
  auto last = std::chrono::steady_clock::now();
  try {
    for (;;) {
      {
        py::gil_scoped_release nogil;
        std::unique_lock<std::mutex> lock(m);
        if (cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return finished; })) break;
      }
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();  // KeyboardInterrupt
      shown(done.load());
      const auto now = std::chrono::steady_clock::now();
      if (call && now - last >= std::chrono::milliseconds(100)) {
        last = now;
        progress(done.load());  // a callable that raises stops the run, and its error is raised
      }
    }
  } catch (...) {
    stop = true;  // the Join above waits for the run's current leg
    throw;
  }
  if (error) std::rethrow_exception(error);
  shown(1.0);
  if (call) progress(1.0);  // the end, always reported
}

/// Pauses often enough for Ctrl-C to stop a run soon (RunOptions::stop takes effect at the end of
/// a leg; short_pauses), leaving the chunks as the command line's, so that a section keeps as many
/// hits (max_hits counts per member and chunk). Without a section, a chunk also gathers at most
/// 1/16 of the samples: the engine holds a chunk's samples for every member beside the whole
/// output it returns (in one batch), so they stay under a tenth of it.
void short_legs(RunSpec& s, bool section) {
  if (s.samples > 1 && !section) s.samples_per_chunk = std::clamp((s.samples - 1) / 16, 1, s.samples_per_chunk);
  s.pauses = short_pauses(s);
}

/// A number for a message: "1.23e-08".
std::string fmt(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", x);
  return b;
}

/// The rows of a (rows, cols) array; a ValueError naming `what` otherwise.
std::size_t rows(const py::array_t<double, py::array::c_style>& a, int cols, const char* what) {
  if (a.ndim() != 2 || a.shape(1) != cols)
    throw py::value_error(std::string(what) + ": expected an array of shape (n, " + std::to_string(cols) + ") or (" + std::to_string(cols) +
                          ",)");
  return std::size_t(a.shape(0));
}

/// A model from the "model" object of a config and its "parameter_sampler" ("" : none), as JSON text.
std::shared_ptr<ModelRunner> model_of(const std::string& model, const std::string& sampler) {
  // Read as a config is (a number past double's range named), within one, so that errors name
  // the config's paths, which lb turns into argument names.
  const auto j = parse_config("{\"model\": " + model + "}");
  Node n(j.at("model"), "/model");
  auto r = make_model(n);
  if (!sampler.empty()) {
    const auto ps = parse_config("{\"parameter_sampler\": " + sampler + "}");
    r->set_rule(read_sampler(Node(ps.at("parameter_sampler"), "/parameter_sampler"), *r), 1, false);
  }
  return r;
}

/// lb.solve's core: the config (without initial states) read as `liebatch run|poincare` reads
/// it, the members' states y0 (members × dim, C order; or one row, the state of every point of
/// the parameter grid, with `one` true), each checked against the model's manifold (projected
/// where `normalize`); member i takes grid point i / (members / G) of the parameter sweeps, as a
/// config's i-th member does. Returns the output's arrays and attributes in the HDF5 file's layout.
py::tuple solve(const std::string& config, bool poincare, py::array_t<double, py::array::c_style> y0, bool one, bool single, bool normalize,
                double tolerance, const std::string& device, int threads, bool simd, const py::object& progress) {
  Study st = read_study(config, poincare ? Command::poincare : Command::run, ".", single);
  ModelRunner& model = *st.model;
  const int dim = model.dim(), r = model.multipliers();
  if (y0.ndim() != 2 || (y0.shape(1) != dim && y0.shape(1) != dim - r))
    throw py::value_error("y0: expected an array of shape (members, " + std::to_string(dim) + ")" +
                          (r > 0 ? " or (members, " + std::to_string(dim - r) + ") without the multipliers" : "") + ", got shape (" +
                          std::to_string(y0.shape(0)) + (y0.ndim() > 1 ? ", " + std::to_string(y0.shape(1)) : "") + ")");
  const std::size_t grid = model.rule().grid();
  if (one && y0.shape(0) != 1) throw py::value_error("y0: one state expected");
  const auto n = one ? grid : std::size_t(y0.shape(0)), cols = std::size_t(y0.shape(1));  // (repeated here, after the checks)
  if (n == 0) throw py::value_error("y0: no members (shape (0, " + std::to_string(cols) + "))");
  if (n % grid != 0)
    throw py::value_error("y0: " + std::to_string(n) + " members for a parameter grid of " + std::to_string(grid) +
                          " points; expected a multiple of it (member i takes grid point i / (members / points))");
  model.set_rule(model.rule().sampler, n / grid, model.rule().single);
  st.init.count = n;  // the header records them (members_begin, _end, _total), as a whole run's
  st.members.begin = 0, st.members.end = n;
  st.sampler = std::to_string(n) + " states given (lb.solve's y0)" +
               (grid > 1 ? ", " + std::to_string(n / grid) + " for each of " + std::to_string(grid) + " parameter grid points" : "");
  Options opt;  // as the command line's options would give them, for the device and the header
  opt.device = device;
  opt.precision = single ? "float" : "double";
  opt.command_line = "lb.solve";
  const Where where = pick_device(opt, model, {st.run.method});
  check_resources(st, poincare ? Command::poincare : Command::run, opt, "");  // as run_config's: refused, not std::bad_alloc

  RunSpec s = st.run;
  s.size = n;
  s.gpu = where.gpu;
  s.threads = threads;
  s.simd = simd;
  short_legs(s, poincare);
  s.y0.assign(std::size_t(dim) * n, 0.0);
  std::vector<double> y(static_cast<std::size_t>(dim));
  const auto in = y0.unchecked<2>();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t d = 0; d < cols; ++d) {
      y[d] = in(one ? 0 : py::ssize_t(i), py::ssize_t(d));
      if (!std::isfinite(y[d]))
        throw py::value_error("y0[" + std::to_string(i) + ", " + std::to_string(d) + "] is " + fmt(y[d]) + "; expected finite numbers");
    }
    if (cols < std::size_t(dim)) model.complete(y.data(), i);
    if (const double e = model.defect(y.data(), i); !(e <= tolerance)) {
      if (!normalize)
        throw py::value_error("y0[" + std::to_string(i) + "] is off the model's manifold: defect " + fmt(e) + " > tolerance " +
                              fmt(tolerance) + " (normalize=True projects it)");
      model.project(y.data(), i);
      if (!(model.defect(y.data(), i) <= tolerance))
        throw py::value_error("y0[" + std::to_string(i) + "] cannot be projected onto the model's manifold (e.g. a zero |q|)");
    }
    for (int d = 0; d < dim; ++d) s.y0[std::size_t(d) * n + i] = y[std::size_t(d)];
  }

  // The config as lb.solve was given it: its states are the output's initial/y, not the one state
  // a config needs to be read (a text where the states go, so that the config is not run as it).
  st.config["initial"] = {{"states", "lb.solve's y0: the output's initial/y"}, {"tolerance", tolerance}, {"normalize", normalize}};
  MemoryStore store;
  {  // the header as the command line writes it
    MemorySink w(std::shared_ptr<MemoryStore>(&store, [](MemoryStore*) {}));
    write_header(w, st, opt, poincare ? "poincare" : "run", where.text);
  }
  RunResult res;
  double seconds = 0;  // ModelRunner::run alone: what the binding adds is the rest (bench/python_overhead.py)
  run_in_thread(
      [&](std::atomic<bool>& stop, std::atomic<double>& done) {
        s.stop = &stop;
        s.progress = [&done](double f) { done = std::max(done.load(), f); };  // never shown going back
        const auto t0 = std::chrono::steady_clock::now();
        res = model.run(s);
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      },
      progress, poincare ? "poincare" : "run");

  auto& o = res.out;
  auto put = [&](const std::string& path, auto&& v, Sink::Dims dims) {
    auto& a = store.arrays[path];
    using V = typename std::decay_t<decltype(v)>::value_type;
    if constexpr (std::is_same_v<V, double>) a.kind = Sink::Kind::f64, a.f64 = std::move(v);
    else if constexpr (std::is_same_v<V, long>) a.kind = Sink::Kind::i64, a.i64 = std::move(v);
    else a.kind = Sink::Kind::u8, a.u8 = std::move(v);
    a.dims = std::move(dims);
  };
  const std::uint64_t N = n, D = std::uint64_t(dim), Q = std::uint64_t(o.nobs), K = std::uint64_t(o.samples);
  const auto varied = model.varied_parameters();
  auto values = std::move(res.parameters);
  for (std::size_t p = 0; p < varied.size(); ++p)
    put("parameters/" + varied[p].first, std::move(values[p]),
        varied[p].second == 1 ? Sink::Dims{N} : Sink::Dims{std::uint64_t(varied[p].second), N});
  if (!o.iterations.empty()) {  // an implicit method's Newton iterations (before steps and status move)
    std::vector<double> mean(n);
    for (std::size_t i = 0; i < n; ++i) mean[i] = newton_mean(o, i, s.adaptive);
    put("final/newton_mean", std::move(mean), {N});
    put("final/newton_max", std::vector<long>(o.iterations_max.begin(), o.iterations_max.end()), {N});
  }
  put("initial/y", std::move(s.y0), {D, N});
  put("final/y", std::move(o.y), {D, N});
  put("final/t", std::move(o.t), {N});
  put("final/steps", std::move(o.steps), {N});
  put("final/rejected", std::move(o.rejected), {N});
  put("final/status", std::move(o.status), {N});
  if (K > 0) {
    put("samples/t", std::move(o.sample_t), {K, N});
    put("samples/y", std::move(o.sample_y), {K, D, N});
    put("samples/observables", std::move(o.sample_obs), {K, Q, N});
  }
  if (poincare) {
    const std::uint64_t H = o.hit_t.size();
    put("hits/member", std::vector<long>(o.hit_member.begin(), o.hit_member.end()), {H});
    put("hits/index", std::vector<long>(o.hit_index.begin(), o.hit_index.end()), {H});
    put("hits/t", std::move(o.hit_t), {H});
    put("hits/y", std::move(o.hit_y), {H, D});
    put("hits/observables", std::move(o.hit_obs), Q > 0 ? Sink::Dims{H, Q} : Sink::Dims{0});  // as create_rows (no rows of 0)
    put("hits/count", std::move(o.hits), {N});
    put("hits/lost", std::move(o.lost_hits), {N});
    put("hits/suspected_pairs", std::move(o.suspects), {N});
  }
  {  // the attributes the command line's arrays carry
    MemorySink w(std::shared_ptr<MemoryStore>(&store, [](MemoryStore*) {}));
    describe_status(w);
    if (store.arrays.count("final/newton_mean")) describe_newton(w);
    w.attr("batches", 1.0);
  }
  store.attrs[""]["ran_on"] = o.device;
  store.attrs[""]["run_seconds"] = seconds;
  return to_python(std::move(store));
}

/// lb.run_config's core: command `cmd` of the config (its text, and the path relative names start
/// from), the output kept in memory. Returns (arrays, attributes, exit status).
py::tuple run_config(const std::string& text, const std::string& path, const std::string& cmd, const std::string& device,
                     const std::string& precision, int threads, bool simd, long batch, const std::string& members,
                     const py::object& progress) {
  Options o;
  o.config = path;
  o.config_text = text;
  o.device = device;
  o.precision = precision;
  o.threads = threads;
  o.simd = simd;
  o.batch = batch;
  o.members = members;
  o.quiet = !(py::isinstance<py::bool_>(progress) && progress.cast<bool>());  // the command's summary with the bar
  o.plot = false;
  o.command_line = "lb.run_config(" + path + ", " + cmd + ")";
  o.memory = std::make_shared<MemoryStore>();
  int status = 0;
  run_in_thread(
      [&](std::atomic<bool>& stop, std::atomic<double>& done) {
        o.stop = &stop;
        o.progress = [&done](double f) { done = f; };
        status = cmd == "run"        ? run_command(o)
                 : cmd == "poincare" ? poincare_command(o)
                 : cmd == "converge" ? converge_command(o)
                                     : validate_command(o);
      },
      progress, cmd.c_str());
  py::tuple t = to_python(std::move(*o.memory));
  return py::make_tuple(t[0], t[1], status);
}

/// {field: array} of ObservableStats laid out as `shape` (the histogram's bins last).
py::dict stats_arrays(const std::vector<lb::ObservableStats>& v, Sink::Dims shape) {
  std::vector<long> count, failed, nan, under, over, bins;
  std::vector<double> mean, var, min, max, lo, hi;
  for (const auto& s : v) {
    count.push_back(s.count), failed.push_back(s.failed), nan.push_back(s.nan), under.push_back(s.under), over.push_back(s.over);
    mean.push_back(s.mean), var.push_back(s.var), min.push_back(s.min), max.push_back(s.max), lo.push_back(s.lo), hi.push_back(s.hi);
    bins.insert(bins.end(), s.bins.begin(), s.bins.end());
  }
  py::dict d;
  for (auto [name, x] : {std::pair{"count", &count}, {"failed", &failed}, {"nan", &nan}, {"under", &under}, {"over", &over}})
    d[name] = take(std::move(*x), shape);
  for (auto [name, x] : {std::pair{"mean", &mean}, {"var", &var}, {"min", &min}, {"max", &max}, {"lo", &lo}, {"hi", &hi}})
    d[name] = take(std::move(*x), shape);
  shape.push_back(v.empty() ? 0 : v[0].bins.size());
  d["bins"] = take(std::move(bins), shape);
  return d;
}

/// lb.statistics' core: lb::statistics (ensemble/statistics.hpp) of an output's observables at each
/// sample (k, q, n) and over its hit records (h, q), from the members whose status is ok.
py::dict statistics(const py::array_t<double, py::array::c_style>& obs, const py::array_t<std::uint8_t, py::array::c_style>& status,
                    const py::array_t<long, py::array::c_style>& hit_member, const py::array_t<double, py::array::c_style>& hit_obs,
                    int bins, std::optional<double> lo, std::optional<double> hi, int threads) {
  if (obs.ndim() != 3 || status.ndim() != 1 || obs.shape(2) != status.shape(0))
    throw py::value_error("output: expected samples/observables (samples, observables, members) and final/status (members)");
  if (hit_member.ndim() != 1 || hit_obs.ndim() != 2 || hit_obs.shape(0) != hit_member.shape(0) || hit_obs.shape(1) != obs.shape(1))
    throw py::value_error("output: expected hits/member (hits) and hits/observables (hits, observables) of the same hits");
  if (bins < 1) throw py::value_error("bins: expected an integer >= 1, got " + std::to_string(bins));
  if (lo.has_value() != hi.has_value() || (lo && !(*lo < *hi)))
    throw py::value_error("lo, hi: give both, with lo < hi, or neither (the range of the values)");
  lb::EnsembleOutput<double> o;
  o.size = std::size_t(status.shape(0));
  o.samples = int(obs.shape(0));
  o.nobs = int(obs.shape(1));
  o.sample_obs.assign(obs.data(), obs.data() + obs.size());
  o.status.assign(status.data(), status.data() + status.size());
  for (py::ssize_t j = 0; j < hit_member.size(); ++j) {
    if (hit_member.data()[j] < 0 || std::size_t(hit_member.data()[j]) >= o.size) throw py::value_error("hits/member: out of range");
    o.hit_member.push_back(std::size_t(hit_member.data()[j]));
  }
  o.hit_obs.assign(hit_obs.data(), hit_obs.data() + hit_obs.size());
  lb::EnsembleStatistics s;
  {
    py::gil_scoped_release nogil;
    s = lb::statistics(o, {lb::Binning{bins, lo, hi}}, threads);
  }
  py::dict d;
  d["samples"] = stats_arrays(s.at, {std::uint64_t(o.samples), std::uint64_t(o.nobs)});
  d["hits"] = stats_arrays(s.hits, {std::uint64_t(o.nobs)});
  return d;
}

}  // namespace

PYBIND11_MODULE(_liebatch, m) {
  m.doc() = "liebatch's binding: the command line's models, methods, checks and commands (use the package liebatch)";
  m.attr("__version__") = LIEBATCH_VERSION;
  // The command line's classes of error: a bad config (exit 2) is a ValueError naming the key, a
  // model that does not compile a CompileError (a ValueError), a file error (exit 3) an OSError,
  // a run ended by Ctrl-C a KeyboardInterrupt.
  static py::exception<CompileError> compile_error(m, "CompileError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const CompileError& e) {
      compile_error(e.what());
    } catch (const ConfigError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const IoError& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    } catch (const nlohmann::json::exception& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  m.def("models", [] {
    py::list v;
    for (const auto& info : models()) {
      const ModelNames names = names_of(info);
      v.append(py::dict(py::arg("name") = info.name, py::arg("summary") = info.summary, py::arg("state") = info.state,
                        py::arg("components") = names.components, py::arg("observables") = names.observables,
                        py::arg("parameters") = info.parameters, py::arg("presets") = info.presets));
    }
    return v;
  });
  m.def("methods", [] {
    py::list v;
    const auto gpu = gpu_methods();
    for (const auto& x : method_list())
      v.append(py::dict(py::arg("name") = x.name, py::arg("order") = x.order, py::arg("order_hat") = x.order_hat,
                        py::arg("stages") = x.stages, py::arg("what") = x.what, py::arg("serves") = x.serves,
                        py::arg("gpu") = std::find(gpu.begin(), gpu.end(), x.name) != gpu.end()));
    return v;
  });
  m.def("plugin_cache", &plugin_cache, "where compiled user models are cached");
  m.def(
      "merge",
      [](const std::vector<std::string>& parts, const std::vector<std::string>& names, const std::string& output, bool force) {
        Options o;
        o.output = output;
        o.force = force;
        o.quiet = true;
        o.command_line = "lb.merge(" + std::to_string(parts.size()) + " parts, " + output + ")";
        py::gil_scoped_release unlocked;
        return merge_command(parts, o, "", names);
      },
      py::arg("parts"), py::arg("names"), py::arg("output"), py::arg("force"), "liebatch merge: slices of one run joined into one file");
  // A model compiled at run time (a user's, or a chain length the build lacks) links against the
  // command's code in this module: Python opened it with RTLD_LOCAL, so it is made global before
  // the first plugin is loaded (and only then: its libraries join the global scope with it).
  lb::cli::before_first_plugin() = [] {
    Dl_info self;
    if (dladdr(reinterpret_cast<void*>(&solve), &self) == 0 || !self.dli_fname)
      throw std::runtime_error("user models: cannot make the module's code global: dladdr does not find its file");
    if (dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL) == nullptr)
      throw std::runtime_error(std::string("user models: cannot make the module's code global: ") + dlerror());
  };
  m.def(
      "gpu_unavailable", [] { return lb::gpu_unavailable_reason(); }, "why the GPU cannot run here (\"\" when it can)");

  py::class_<ModelRunner, std::shared_ptr<ModelRunner>>(m, "Model", "a model of the command line, from a config's \"model\" object")
      .def(py::init(&model_of), py::arg("json"), py::arg("sampler"),
           py::call_guard<py::gil_scoped_release>())  // a user's model may compile for seconds
      .def_property_readonly("name", &ModelRunner::name)
      .def_property_readonly("dim", &ModelRunner::dim)
      .def_property_readonly("algebra_dim", &ModelRunner::algebra_dim)
      .def_property_readonly("multipliers", &ModelRunner::multipliers)
      .def_property_readonly("state_names", &ModelRunner::state_names)
      .def_property_readonly("observable_names", &ModelRunner::obs_names)
      .def_property_readonly("preset_initial", &ModelRunner::preset_initial)
      .def_property_readonly("varied_parameters", &ModelRunner::varied_parameters)
      .def_property_readonly("grid", [](const ModelRunner& r) { return r.rule().grid(); })
      .def_property_readonly("describe_parameters", [](const ModelRunner& r) { return r.rule().describe(); })
      .def("refusal", &ModelRunner::refusal, py::arg("method"))
      .def("gpu_missing", &ModelRunner::gpu_missing, py::arg("method") = "")
      .def(
          "parameters",
          [](ModelRunner& r, std::size_t members) {
            const std::size_t g = r.rule().grid();
            if (members == 0 || members % g != 0)
              throw py::value_error("members: expected a positive multiple of the grid's " + std::to_string(g) + " points, got " +
                                    std::to_string(members));
            check_memory(double(members) * (8.0 * double(r.rule().numbers()) + 64),
                         std::to_string(members) + " members' parameters");  // refused, not std::bad_alloc
            r.set_rule(r.rule().sampler, members / g, false);
            auto v = r.member_parameters(0, members, lb::cpu_threads(0));
            const auto keys = r.varied_parameters();
            py::dict d;
            for (std::size_t p = 0; p < keys.size(); ++p)
              d[py::str(keys[p].first)] =
                  take(std::move(v[p]), keys[p].second == 1 ? Sink::Dims{members} : Sink::Dims{std::uint64_t(keys[p].second), members});
            return d;
          },
          py::arg("members"), "each member's varied parameters, drawn by the model's sampler")
      .def(
          "defect",
          [](const ModelRunner& r, const py::array_t<double, py::array::c_style>& y) {
            const auto n = rows(y, r.dim(), "y");
            py::array_t<double> d(static_cast<py::ssize_t>(n));
            for (std::size_t i = 0; i < n; ++i) d.mutable_at(py::ssize_t(i)) = r.defect(y.data(py::ssize_t(i), 0), base_model);
            return d;
          },
          py::arg("y"), "each state's distance from the model's manifold")
      .def(
          "project",
          [](const ModelRunner& r, const py::array_t<double, py::array::c_style>& y) {
            const auto n = rows(y, r.dim(), "y");
            py::array_t<double> out({py::ssize_t(n), py::ssize_t(r.dim())});
            std::copy_n(y.data(), n * std::size_t(r.dim()), out.mutable_data());
            for (std::size_t i = 0; i < n; ++i) r.project(out.mutable_data(py::ssize_t(i), 0), base_model);
            return out;
          },
          py::arg("y"), "the nearest states on the manifold")
      .def(
          "perturb",
          [](const ModelRunner& r, const py::array_t<double, py::array::c_style>& y, const py::array_t<double, py::array::c_style>& xi) {
            const auto n = rows(y, r.dim(), "y");
            if (rows(xi, r.algebra_dim(), "xi") != n) throw py::value_error("xi: expected as many rows as y (" + std::to_string(n) + ")");
            py::array_t<double> out({py::ssize_t(n), py::ssize_t(r.dim())});
            for (std::size_t i = 0; i < n; ++i)
              r.perturb(y.data(py::ssize_t(i), 0), xi.data(py::ssize_t(i), 0), out.mutable_data(py::ssize_t(i), 0), base_model);
            return out;
          },
          py::arg("y"), py::arg("xi"), "exp(xi)·y by the group's action (the samplers' perturbation)")
      .def(
          "on_energy_level",
          [](const ModelRunner& r, const py::array_t<double, py::array::c_style>& y, double E) {
            if (!r.has_energy_level()) throw py::value_error("model " + r.name() + " cannot target an energy level");
            const auto n = rows(y, r.dim(), "y");
            py::array_t<double> out({py::ssize_t(n), py::ssize_t(r.dim())});
            py::array_t<bool> ok(static_cast<py::ssize_t>(n));
            std::copy_n(y.data(), n * std::size_t(r.dim()), out.mutable_data());
            for (std::size_t i = 0; i < n; ++i)
              ok.mutable_at(py::ssize_t(i)) = r.energy_level(out.mutable_data(py::ssize_t(i), 0), E, base_model);
            return py::make_tuple(out, ok);
          },
          py::arg("y"), py::arg("energy"), "the states with their velocities rescaled to energy E, and where that was reachable");

  m.def("solve", &solve, py::arg("config"), py::arg("poincare"), py::arg("y0"), py::arg("one"), py::arg("single"), py::arg("normalize"),
        py::arg("tolerance"), py::arg("device"), py::arg("threads"), py::arg("simd"), py::arg("progress"));
  m.def("statistics", &statistics, py::arg("obs"), py::arg("status"), py::arg("hit_member"), py::arg("hit_obs"), py::arg("bins"),
        py::arg("lo"), py::arg("hi"), py::arg("threads"));
  m.def("run_config", &run_config, py::arg("text"), py::arg("path"), py::arg("command"), py::arg("device"), py::arg("precision"),
        py::arg("threads"), py::arg("simd"), py::arg("batch"), py::arg("members"), py::arg("progress"));
}
