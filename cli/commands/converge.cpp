// liebatch converge: every method at every step size against a reference, the round-off of each
// run against the same run in long double, observed orders fitted, a table and a log-log plot.
#include "cli/commands/command.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <optional>
#include <cstdio>
#include <iostream>
#include <sstream>

#include "cli/models/method_list.hpp"
#include "cli/commands/order_fit.hpp"
#include "cli/outputs/output_bytes.hpp"
#include "cli/plots/plot.hpp"
#include "cli/commands/progress.hpp"

namespace lb::cli {

namespace {

/// What converge keeps of a run: its members' final states and statuses.
EnsembleOutput<double> final_of(EnsembleOutput<double>&& o) {
  EnsembleOutput<double> f;
  f.size = o.size, f.dim = o.dim, f.y = std::move(o.y), f.status = std::move(o.status);
  return f;
}

/// A local slope as the report prints it: rounded to three decimals (the first five characters of
/// to_string cut 2.9999 to "2.999"), NaN as "nan".
std::string slope_text(double p) {
  char s[32];
  std::snprintf(s, sizeof s, "%.3f", p);
  return s;
}

}  // namespace

std::vector<std::string> converge_device_methods(const Study& st) {
  std::vector<std::string> m = st.converge.methods;
  if (st.converge.reference != "extended") m.push_back(st.converge.ref_method);
  return m;
}

int converge_command(const Options& opt) {
  Study st = load(opt, Command::converge);
  const auto& cs = st.converge;
  const Where where = pick_device(opt, *st.model, converge_device_methods(st));
  st.run.gpu = where.gpu;
  const std::size_t n = st.init.count, nh = cs.steps.size(), nm = cs.methods.size();
  const int dim = st.model->dim();
  std::vector<double> y0;
  st.init.fill(0, n, y0, cpu_threads(st.run.threads));

  // The runs, the units of work that a job of ranks shares out (Options::team): 0 the reference,
  // then each method m at every step size (1 + 2m) and the same in long double (2 + 2m), whose
  // difference is the run's round-off. A method's member j·n + k is initial state k at step j.
  const auto method_run = [&](std::size_t m) {
    RunSpec s = st.run;
    s.method = cs.methods[m];
    s.adaptive = false;
    s.samples = 0;
    s.size = n * nh;
    s.y0.assign(std::size_t(dim) * s.size, 0);
    s.h.assign(s.size, 0);
    s.members.resize(s.size);
    for (std::size_t j = 0; j < nh; ++j)
      for (std::size_t k = 0; k < n; ++k) {
        const std::size_t i = j * n + k;
        s.h[i] = cs.steps[j];
        s.members[i] = k;
        for (int d = 0; d < dim; ++d) s.y0[std::size_t(d) * s.size + i] = y0[std::size_t(d) * n + k];
      }
    return s;
  };
  const std::size_t units = 1 + 2 * nm;
  const auto mine = [&](std::size_t u) { return !opt.team || opt.team->mine(u); };
  std::vector<EnsembleOutput<double>> runs(units);
  if (!opt.quiet)
    std::cout << "converge: " << st.model->name() << ", " << n << " initial state(s), reference " << cs.reference << " " << cs.ref_method
              << " h = " << cs.ref_h << "; device " << where.text << "\n";
  // Its temporary made now: an output that cannot be written fails before the runs.
  const auto out = !opt.team || opt.team->rank == 0 ? open_output(opt) : nullptr;
  Progress progress("converge", opt.quiet, opt.progress, opt.progress_always);
  for (std::size_t u = 0; u < units; ++u) {
    if (!mine(u)) continue;
    if (u == 0) {
      RunSpec ref = st.run;
      ref.size = n;
      ref.y0 = y0;
      ref.method = cs.ref_method;
      ref.adaptive = false;
      ref.h = {cs.ref_h};
      ref.samples = 0;
      runs[0] = final_of((cs.reference == "extended" ? st.model->run_extended(ref) : st.model->run(ref)).out);
      for (std::size_t k = 0; k < n; ++k)
        if (runs[0].status[k] != std::uint8_t(Status::ok))
          throw ConfigError("config /converge/reference: the reference run failed for initial state " + std::to_string(k) + " (" +
                            status_name(runs[0].status[k]) + "); choose another reference step or method");
      continue;
    }
    const std::size_t m = (u - 1) / 2;
    RunSpec s = method_run(m);
    if (u % 2) {
      s.progress = [&](double f) { progress((double(m) + f / 4) / double(nm)); };
      runs[u] = final_of(st.model->run(s).out);
    } else {
      s.progress = [&](double f) { progress((double(m) + 0.25 + 0.75 * f) / double(nm)); };
      runs[u] = final_of(st.model->run_extended(s).out);
    }
  }
  if (opt.team) {  // every run's results to rank 0, which writes the output
    std::vector<std::string> bytes(units);
    for (std::size_t u = 0; u < units; ++u)
      if (mine(u)) bytes[u] = to_bytes(runs[u]);
    opt.team->to_root(bytes);
    if (opt.team->rank != 0) return ok;
    for (std::size_t u = 0; u < units; ++u)
      if (!mine(u)) runs[u] = output_of(bytes[u]);
  }
  progress.finish();
  const EnsembleOutput<double>& rr = runs[0];
  Sink& w = *out;
  // Largest |a − b| over the initial states k at step size j (a's member j·n + k) and the state's
  // components; b holds the same members, or one per initial state (the reference). NaN if any
  // member failed.
  const auto max_diff = [&](const EnsembleOutput<double>& a, const EnsembleOutput<double>& b, std::size_t j, int d0 = 0, int d1 = -1) {
    if (d1 < 0) d1 = dim;
    double e = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t i = j * n + k, ib = b.size == a.size ? i : k;
      if (a.status[i] != std::uint8_t(Status::ok) || b.status[ib] != std::uint8_t(Status::ok)) return double(NAN);
      for (int d = d0; d < d1; ++d) {
        const double diff = std::abs(a.y[std::size_t(d) * a.size + i] - b.y[std::size_t(d) * b.size + ib]);
        if (std::isnan(diff)) return double(NAN);
        e = std::max(e, diff);
      }
    }
    return e;
  };

  std::vector<double> error(nm * nh), roundoff(nm * nh), slope(nm * (nh - 1)), order(nm);
  // A constrained system's error in q, v and λ apart (ModelRunner::parts).
  const std::vector<int> parts = st.model->parts();
  std::vector<double> part_error(nm * nh * parts.size());
  std::vector<std::uint8_t> use(nm * nh);
  std::vector<std::string> notes;
  std::optional<TextOutput> table;  // next to the HDF5 file, renamed in place after it; none for an output in memory
  if (!opt.memory) table.emplace(sibling(w.path(), ".csv"));
  std::ostringstream unused;
  std::ostream& csv = table ? table->out() : unused;
  csv << csv_mark("converge") << "\nmethod,h,error,roundoff,local_slope,point\n";
  csv.precision(17);  // every number as it is, as validate's table
  std::vector<Series> series;
  std::ostringstream report;  // printed after the progress line
  Series dropped{"not fitted (round-off, pre-asymptotic)", {}, {}, "w points pt 6 ps 2 lc rgb 'black'"};
  for (std::size_t m = 0; m < nm; ++m) {
    const EnsembleOutput<double>&r = runs[1 + 2 * m], &x = runs[2 + 2 * m];
    const auto at = [&](std::vector<double>& v, std::size_t j) -> double& { return v[m * nh + j]; };
    for (std::size_t j = 0; j < nh; ++j) {
      at(error, j) = max_diff(r, rr, j);
      for (std::size_t p = 0, d0 = 0; p < parts.size(); d0 += std::size_t(parts[p]), ++p)
        part_error[(m * nh + j) * parts.size() + p] = max_diff(r, rr, j, int(d0), int(d0) + parts[p]);
      at(roundoff, j) = max_diff(r, x, j);
    }
    const OrderFit fit =
        fit_order(cs.steps, std::vector<double>(error.begin() + long(m * nh), error.begin() + long((m + 1) * nh)),
                  std::vector<double>(roundoff.begin() + long(m * nh), roundoff.begin() + long((m + 1) * nh)), st.run.t1 - st.run.t0);
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
        if (fit.use[j] != PointUse::fitted) {
          dropped.x.push_back(cs.steps[j]);
          dropped.y.push_back(at(error, j));
        }
      }
    }
    report << "  " << cs.methods[m] << " (order " << method_info(cs.methods[m]).order << "): observed " << order[m] << ", " << fit.note
           << "\n    h, error, round-off, local slope to the next h, use:\n";
    for (std::size_t j = 0; j < nh; ++j)
      report << "    " << cs.steps[j] << "  " << at(error, j) << "  " << at(roundoff, j) << "  "
             << (j + 1 < nh ? slope_text(fit.slope[j]) : std::string("-")) << "  " << name(fit.use[j]) << "\n";
    if (parts.size() == 3) {
      report << "    error in q, v, lambda apart:\n";
      for (std::size_t j = 0; j < nh; ++j) {
        const double* e = &part_error[(m * nh + j) * 3];
        report << "    " << cs.steps[j] << "  " << e[0] << "  " << e[1] << "  " << e[2] << "\n";
      }
    }
    char legend[64];
    std::snprintf(legend, sizeof legend, " %.2f", order[m]);
    ser.title += legend;
    series.push_back(std::move(ser));
  }
  if (!opt.quiet) std::cout << report.str();
  if (!dropped.x.empty()) series.push_back(std::move(dropped));
  write_header(w, st, opt, "converge", where.text);
  w.write("initial/y", y0, {std::uint64_t(dim), n});
  if (st.model->rule().varies()) {  // each member's parameters, as a run writes them
    const auto keys = st.model->varied_parameters();
    auto values = st.model->member_parameters(0, n, cpu_threads(st.run.threads));
    for (std::size_t p = 0; p < keys.size(); ++p)
      w.write("parameters/" + keys[p].first, values[p], keys[p].second == 1 ? Sink::Dims{n} : Sink::Dims{std::uint64_t(keys[p].second), n});
  }
  w.write("converge/h", cs.steps, {nh});
  w.write("converge/methods", cs.methods);
  w.write("converge/error", error, {nm, nh});
  w.write("converge/roundoff", roundoff, {nm, nh});
  w.write("converge/local_slope", slope, {nm, nh - 1});
  w.write("converge/point", use, {nm, nh});
  w.write("converge/observed_order", order, {nm});
  if (!parts.empty()) {
    w.write("converge/error_parts", part_error, {nm, nh, parts.size()});
    w.attr("converge/error_parts", "meaning", "converge/error of a constrained system's q (embedded), v and lambda apart");
  }
  w.write("converge/fit", notes);
  w.attr("converge/error", "meaning", "max over initial states of max_d |y_d(t1) - y_ref,d(t1)|");
  w.attr("converge/roundoff", "meaning",
         "max over initial states of max_d |y_d(t1) - y_ld,d(t1)|: the same method and step in long double");
  w.attr("converge/local_slope", "meaning",
         "log(e_j / e_j+1) / log(h_j / h_j+1) between neighbouring step sizes above round-off (NaN otherwise)");
  w.attr("converge/point", "values",
         "0 fitted, 1 round-off (error < 10 x round-off), 2 pre-asymptotic (local slope not settled), 3 failed, "
         "4 alone (the only point above round-off), 5 step >= span (one step: no asymptotic information)");
  w.attr("converge/observed_order", "meaning",
         "least-squares slope of log error against log h over the fitted points: the finest "
         "pairs whose local slopes lie within 0.2 (halved steps; 0.2 log 2 / log ratio otherwise) of the finest pair's");
  char ref_h[32];
  std::snprintf(ref_h, sizeof ref_h, "%g", cs.ref_h);
  w.attr("reference", cs.reference + " " + cs.ref_method + " h = " + ref_h);
  commit(st, opt, w, table ? &*table : nullptr);
  if (!opt.quiet) std::cout << "  output: " << w.path() << ", table: " << sibling(w.path(), ".csv") << "\n";
  if (st.plot) {
    const std::string png = sibling(w.path(), ".png");
    note_plot(
        png,
        plot(png, {"convergence at t1: " + st.model->name() + " (observed orders over the fitted points)", "h", "error", true, true, false},
             series),
        opt.quiet);
  }
  if (!opt.memory) note_earlier_outputs(w.path(), true);
  if (std::all_of(order.begin(), order.end(), [](double p) { return std::isnan(p); })) {
    std::cerr
        << "liebatch: no observed order could be fitted (see the table: failed runs, errors at round-off or steps as long as the span)\n";
    return check_failed;
  }
  return ok;
}

}  // namespace lb::cli
