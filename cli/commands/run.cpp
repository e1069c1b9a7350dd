// liebatch run and liebatch poincare: an ensemble in batches, per-member arrays, section hits,
// the observables' drift plotted, a summary.
#include "cli/commands/command.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/plots/plot.hpp"
#include "cli/commands/progress.hpp"

namespace lb::cli {
namespace {

using Clock = std::chrono::steady_clock;

/// Points a Poincaré plot draws at most (the first ones; every hit is in the output).
constexpr std::size_t max_plotted = 2'000'000;

/// Per observable, the largest |obs(t_k) − obs(t₀)| over the members that finished, against t_k.
struct Drift {
  std::vector<double> t, worst;  ///< [k], [k·nobs + q]
  void add(const EnsembleOutput<double>& o) {
    if (t.empty()) {
      t.assign(std::size_t(o.samples), 0);
      worst.assign(std::size_t(o.samples * o.nobs), 0);
    }
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
        if (worst[k * nobs + q] > 0) {
          s.x.push_back(t[k]);
          s.y.push_back(worst[k * nobs + q]);
        }
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
  const auto out = open_output(opt);
  Sink& w = *out;
  write_header(w, st, opt, poincare ? "poincare" : "run", where.text);
  MemberArrays sink(w, st, poincare);
  // This process's members: all, or a slice [first, first + n) of them (--members).
  const std::size_t first = st.members.begin, n = st.members.count(), batch = batch_size(st, std::size_t(opt.batch), false);
  Progress progress(poincare ? "poincare" : "run", opt.quiet, opt.progress);
  std::vector<std::uint8_t> status;
  long steps = 0, rejected = 0, hits = 0, lost = 0;
  // An implicit method's Newton iterations: members' means (their mean and largest), most in one step.
  double newton_sum = 0, newton_worst = 0;
  long newton_most = 0;
  Drift drift;
  Series scatter{"hits", {}, {}};
  int px = st.plot_x, py = st.plot_y;
  if (px < 0) px = st.run.section.kind == SectionSpec::hyperplane && st.run.section.component == 0 ? 1 : 0;
  if (py < 0) py = px + 1 + (st.run.section.kind == SectionSpec::hyperplane && st.run.section.component == px + 1 ? 1 : 0);
  std::string ran_on;
  const auto t_start = Clock::now();
  for (std::size_t i0 = first; i0 < first + n; i0 += batch) {
    RunSpec s = st.run;
    s.size = std::min(batch, first + n - i0);
    s.member0 = i0;
    st.init.fill(i0, s.size, s.y0);
    s.progress = [&](double f) { progress((double(i0 - first) + f * double(s.size)) / double(n)); };
    const RunResult r = st.model->run(s);
    sink.add(i0, s.y0, r);
    ran_on = r.out.device;
    status.insert(status.end(), r.out.status.begin(), r.out.status.end());
    for (std::size_t i = 0; i < r.out.size; ++i) {
      steps += r.out.steps[i];
      rejected += r.out.rejected[i];
    }
    for (std::size_t i = 0; i < r.out.iterations.size(); ++i) {
      const double m = newton_mean(r.out, i, st.run.adaptive);
      newton_sum += m;
      newton_worst = std::max(newton_worst, m);
      newton_most = std::max<long>(newton_most, r.out.iterations_max[i]);
    }
    hits += long(r.out.hit_t.size());
    lost += r.out.total_lost_hits();
    if (r.out.samples >= 2) drift.add(r.out);
    for (std::size_t h = 0; h < r.out.hit_t.size() && scatter.x.size() < max_plotted; ++h) {  // (all are in the file)
      scatter.x.push_back(r.out.hit_y[h * std::size_t(r.out.dim) + std::size_t(px)]);
      scatter.y.push_back(r.out.hit_y[h * std::size_t(r.out.dim) + std::size_t(py)]);
      if (st.plot_colour == -1) scatter.c.push_back(double(i0 + r.out.hit_member[h]));
      if (st.plot_colour >= 0) scatter.c.push_back(r.out.hit_obs[h * std::size_t(r.out.nobs) + std::size_t(st.plot_colour)]);
    }
  }
  const double wall = std::chrono::duration<double>(Clock::now() - t_start).count();
  progress.finish();
  w.attr("batches", double((n + batch - 1) / batch));
  commit(st, opt, w);
  const bool none_finished = std::none_of(status.begin(), status.end(), [](std::uint8_t s) { return s == std::uint8_t(Status::ok); });

  if (!opt.quiet) {
    std::cout << (poincare ? "poincare: " : "run: ") << st.model->name() << ", " << st.run.method << (st.run.adaptive ? " (adaptive)" : "")
              << ", " << n << " members"
              << (n < st.init.count
                      ? " (" + std::to_string(first) + " to " + std::to_string(first + n - 1) + " of " + std::to_string(st.init.count) + ")"
                      : std::string())
              << " on " << ran_on << (batch < n ? " in " + std::to_string((n + batch - 1) / batch) + " batches" : std::string()) << "\n"
              << "  " << status_summary(status) << "; " << steps << " steps, " << rejected << " rejected; " << wall << " s ("
              << double(steps) / std::max(wall, 1e-9) << " trajectory-steps/s)\n";
    if (newton_most > 0) {
      char line[160];
      std::snprintf(line, sizeof line, "  Newton iterations per step: mean %.2f (largest member mean %.2f), at most %ld in one step\n",
                    newton_sum / double(n), newton_worst, newton_most);
      std::cout << line;
    }
    if (poincare) std::cout << "  " << hits << " section hits recorded, " << lost << " lost" << (lost ? " (raise max_hits)" : "") << "\n";
    std::cout << "  device: " << where.text << "\n  output: " << w.path() << "\n";
  }
  if (st.plot) {
    const std::string png = sibling(w.path(), ".png");
    const auto names = st.model->state_names();
    if (poincare && !scatter.x.empty())
      note_plot(png,
                plot(png,
                     {"Poincaré section: " + st.model->name() + ", " + std::to_string(n) + " members" +
                          (st.plot_colour == -1 ? ", each member's hits one colour" : ""),
                      names[std::size_t(px)], names[std::size_t(py)], false, false, true,
                      st.plot_colour == -1  ? Colour::cycle
                      : st.plot_colour >= 0 ? Colour::palette
                                            : Colour::series,
                      st.plot_colour >= 0 ? st.model->obs_names()[std::size_t(st.plot_colour)] : ""},
                     {scatter}),
                opt.quiet);
    else if (!poincare && !drift.t.empty() && !st.model->obs_names().empty()) {
      std::string exact;
      const auto series = drift.series(st.model->obs_names(), exact);
      if (series.empty()) note_plot(png, "every observable is exactly constant", opt.quiet);
      else
        note_plot(png,
                  plot(png,
                       {"observable drift: max over members of |obs(t) - obs(t0)|, " + st.model->name() + ", " + st.run.method +
                            (exact.empty() ? "" : "; exactly 0: " + exact),
                        "t", "drift", false, true, false},
                       series),
                  opt.quiet);
    }
  }
  if (none_finished) {
    std::cerr << "liebatch: no member finished (" << status_summary(status) << "); the output records each member's status\n";
    return check_failed;
  }
  return ok;
}

}  // namespace

int run_command(const Options& o) { return ensemble_command(o, Command::run); }
int poincare_command(const Options& o) { return ensemble_command(o, Command::poincare); }

}  // namespace lb::cli
