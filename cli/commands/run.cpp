// liebatch run and liebatch poincare: an ensemble in batches, per-member arrays, section hits,
// the observables' drift plotted, a summary.
#include "cli/commands/command.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>

#include <liebatch/pack.hpp>

#include "cli/commands/progress.hpp"
#include "cli/outputs/checkpoint.hpp"
#include "cli/outputs/provenance.hpp"
#include "cli/plots/plot.hpp"

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
          const double d = std::abs(at(k) - at(0));
          if (std::isnan(d) || d > w) w = d;  // a NaN stays: it is no drift of 0
        }
      }
    }
  }
  /// One series per observable, exact zeros and NaN left out (no logarithm); observables that never
  /// drift are named in `exact` instead, those NaN at some sample in `nan`.
  std::vector<Series> series(const std::vector<std::string>& names, std::string& exact, std::string& nan) const {
    std::vector<Series> v;
    const std::size_t nobs = names.size();
    for (std::size_t q = 0; q < nobs; ++q) {
      Series s{names[q], {}, {}};
      bool nans = false;
      for (std::size_t k = 1; k < t.size(); ++k) {
        nans = nans || std::isnan(worst[k * nobs + q]);
        if (worst[k * nobs + q] > 0) {
          s.x.push_back(t[k]);
          s.y.push_back(worst[k * nobs + q]);
        }
      }
      if (nans) nan += (nan.empty() ? "" : ", ") + names[q];
      if (!s.x.empty()) v.push_back(std::move(s));
      else if (!nans) exact += (exact.empty() ? "" : ", ") + names[q];
    }
    return v;
  }
};

/// What the summary and the plot take from every batch: counts, sums, the drift and the hits'
/// scatter, kept in a checkpoint.
struct Tally {
  std::vector<long> status = std::vector<long>(status_count + 1, 0);  ///< members per status (the last: other codes)
  long steps = 0, rejected = 0, hits = 0, lost = 0, suspected = 0;
  // An implicit method's Newton iterations: members' means (their sum and largest), most in one step.
  long newton_most = 0;
  double newton_sum = 0, newton_worst = 0;
  Drift drift;
  Series scatter{"hits", {}, {}};

  /// Members i0… of a batch; the scatter plots state components px, py, coloured by `colour`
  /// (-1: the member, ≥ 0: that observable, else none).
  void add(const EnsembleOutput<double>& o, std::size_t i0, bool adaptive, int px, int py, int colour) {
    for (auto s : o.status) ++status[std::min<std::size_t>(s, status_count)];
    for (std::size_t i = 0; i < o.size; ++i) {
      steps += o.steps[i];
      rejected += o.rejected[i];
    }
    for (std::size_t i = 0; i < o.iterations.size(); ++i) {
      const double m = newton_mean(o, i, adaptive);
      if (std::isnan(m)) continue;  // no step attempted
      newton_sum += m;
      newton_worst = std::max(newton_worst, m);
      newton_most = std::max<long>(newton_most, o.iterations_max[i]);
    }
    hits += long(o.hit_t.size());
    lost += o.total_lost_hits();
    for (long s : o.suspects) suspected += s;
    if (o.samples >= 2) drift.add(o);
    for (std::size_t h = 0; h < o.hit_t.size() && scatter.x.size() < max_plotted; ++h) {  // (all are in the file)
      scatter.x.push_back(o.hit_y[h * std::size_t(o.dim) + std::size_t(px)]);
      scatter.y.push_back(o.hit_y[h * std::size_t(o.dim) + std::size_t(py)]);
      if (colour == -1) scatter.c.push_back(double(i0 + o.hit_member[h]));
      if (colour >= 0) scatter.c.push_back(o.hit_obs[h * std::size_t(o.nobs) + std::size_t(colour)]);
    }
  }
  Parts parts() const {
    Parts p;
    p.put(status);
    p.put(std::vector<long>{steps, rejected, hits, lost, newton_most, suspected});
    p.put(std::vector<double>{newton_sum, newton_worst});
    for (const auto* v : {&drift.t, &drift.worst, &scatter.x, &scatter.y, &scatter.c}) p.put(*v);
    return p;
  }
  void restore(const Parts& p) {
    std::vector<long> l(6);
    std::vector<double> d(2);
    p.get(0, status, Parts::Fit::exact);
    p.get(1, l, Parts::Fit::exact);
    p.get(2, d, Parts::Fit::exact);
    steps = l[0], rejected = l[1], hits = l[2], lost = l[3], newton_most = l[4], suspected = l[5];
    newton_sum = d[0], newton_worst = d[1];
    std::size_t k = 3;
    for (auto* v : {&drift.t, &drift.worst, &scatter.x, &scatter.y, &scatter.c}) p.get(k++, *v, Parts::Fit::whole);
  }
};

}  // namespace

nlohmann::json checkpoint_identity(const Study& st, bool poincare, bool gpu) {
  return {{"liebatch", std::string(LIEBATCH_VERSION) + " (commit " + source_commit() + ")"},
          {"command", poincare ? "poincare" : "run"},
          {"config", st.config},
          {"initial_states", st.sampler},     // a states file's hash: its file changed is another run
          {"model_source", st.model_source},  // and so is a user's model whose header changed
          {"device", gpu ? "gpu" : "cpu"},
          {"precision", st.run.single ? "float" : "double"},
          {"cpu_simd", pack_arch()},
          {"members", {st.members.begin, st.members.end}},
          {"pauses", st.run.pauses},
          {"samples_per_chunk", st.run.samples_per_chunk}};
}

namespace {

int ensemble_command(const Options& opt, Command c) {
  const bool poincare = c == Command::poincare;
  Study st = load(opt, c);
  const Where where = pick_device(opt, *st.model, {st.run.method});
  st.run.gpu = where.gpu;
  // With checkpoints, the arrays are staged in the checkpoint's directory and the output is written
  // at the end; members pause often enough to be checkpointed soon (short_pauses).
  std::unique_ptr<Checkpoint> ck;
  std::unique_ptr<Sink> out;
  StagedSink* staged = nullptr;
  if (!opt.memory && (opt.checkpoint_every > 0 || opt.resume)) {
    // A checkpoint within a chunk holds its sample slots: one sample a chunk makes them two per
    // member. (A section's chunks stay: its hits are kept per member and chunk.)
    if (st.run.section.kind == SectionSpec::none) st.run.samples_per_chunk = 1;
    st.run.pauses = short_pauses(st.run);
    const std::string path = output_path(opt);
    ck = std::make_unique<Checkpoint>(path, checkpoint_identity(st, poincare, where.gpu), opt.resume, opt.restart, opt.checkpoint_every);
    out = std::make_unique<StagedSink>(path, ck->dir(), ck->resumed() ? &ck->rows() : nullptr);
    staged = static_cast<StagedSink*>(out.get());
  } else {
    if (opt.restart && !opt.memory) Checkpoint::remove(Checkpoint::dir_of(output_path(opt)));
    out = open_output(opt);
  }
  Sink& w = *out;
  write_header(w, st, opt, poincare ? "poincare" : "run", where.text);
  MemberArrays sink(w, st, poincare);
  if (staged && staged->staged("final/newton_mean")) sink.newton_arrays();
  // This process's members: all, or a slice [first, first + n) of them (--members); a resumed run
  // keeps its batches and starts where its checkpoint was.
  const std::size_t first = st.members.begin, n = st.members.count();
  std::size_t batch = ck ? checkpoint_batch_size(st, std::size_t(opt.batch)) : batch_size(st, std::size_t(opt.batch), false), start = first;
  Progress progress(poincare ? "poincare" : "run", opt.quiet, opt.progress, opt.progress_always);
  Tally tally;
  if (ck) {
    batch = ck->value("batch", batch);
    ck->set_value("batch", batch);
    if (ck->resumed()) {
      tally.restore(ck->tally());
      start = ck->next_member();
      if (batch == 0 || start < first || start > first + n || (start - first) % batch != 0)
        throw IoError("checkpoint file 'manifest.json' in '" + echo(ck->dir()) + "' is damaged (member " + std::to_string(start) +
                      " does not start a batch of " + std::to_string(batch) + "); run again with --restart to start over");
    } else {
      ck->save(*staged, first, nullptr, tally.parts());  // generation 0: --resume works from the start
    }
  }
  int px = st.plot_x, py = st.plot_y;
  if (px < 0) px = st.run.section.kind == SectionSpec::hyperplane && st.run.section.component == 0 ? 1 : 0;
  if (py < 0) py = px + 1 + (st.run.section.kind == SectionSpec::hyperplane && st.run.section.component == px + 1 ? 1 : 0);
  // A state of one or two components (a user's model) has no component to step over.
  const int dim = st.model->dim();
  if (st.plot_x < 0) px = std::min(px, dim - 1);
  if (st.plot_y < 0 && py >= dim) py = px == 0 ? std::min(1, dim - 1) : 0;
  std::string ran_on;
  double lane_used = 0, lane_slots = 0;  // over every batch: a batch's device text gives its own
  const auto t_start = Clock::now();
  for (std::size_t i0 = start; i0 < first + n; i0 += batch) {
    RunSpec s = st.run;
    s.size = std::min(batch, first + n - i0);
    s.member0 = i0;
    if (i0 == first && s.size == n && !st.states.empty()) s.y0 = std::move(st.states);
    else st.init.fill(i0, s.size, s.y0, cpu_threads(s.threads));
    s.progress = [&](double f) { progress((double(i0 - first) + f * double(s.size)) / double(n)); };
    if (ck) {  // within a batch at the engine's pauses, between batches here
      s.checkpoint_due = [&] { return ck->due(); };
      s.checkpoint = [&, i0](const EngineState& e) { ck->save(*staged, i0, &e, tally.parts()); };
      if (i0 == start) s.resume = ck->engine();
    }
    const RunResult r = st.model->run(s);
    sink.add(i0, s.y0, r);
    ran_on = r.out.device;
    if (r.out.lane_occupancy > 0) {
      double used = 0;
      for (std::size_t k = 0; k < r.out.size; ++k) used += double(r.out.steps[k] + r.out.rejected[k]);
      lane_used += used, lane_slots += used / r.out.lane_occupancy;
    }
    tally.add(r.out, i0, st.run.adaptive, px, py, st.plot_colour);
    if (ck && ck->due()) ck->save(*staged, i0 + s.size, nullptr, tally.parts());
  }
  if (ran_on.empty()) ran_on = where.text;  // (a resumed run with every batch done)
  if (const auto at = ran_on.find(" % of lanes busy"); at != std::string::npos && lane_slots > 0) {
    const std::size_t from = ran_on.rfind(' ', at - 1) + 1;
    ran_on.replace(from, at - from, std::to_string(std::lround(100 * lane_used / lane_slots)));
  }
  const double wall = std::chrono::duration<double>(Clock::now() - t_start).count();
  progress.finish();
  w.attr("batches", double((n + batch - 1) / batch));
  commit(st, opt, w);
  const std::string written = w.path();
  if (ck) {
    out.reset();  // the staged files closed first: NFS keeps a removed file that is open, and its directory
    ck->remove();
  }
  const long steps = tally.steps, rejected = tally.rejected, hits = tally.hits, lost = tally.lost;
  const auto& scatter = tally.scatter;
  const auto& drift = tally.drift;
  const bool none_finished = tally.status[std::size_t(Status::ok)] == 0;

  if (!opt.quiet) {
    std::cout << (poincare ? "poincare: " : "run: ") << st.model->name() << ", " << st.run.method << (st.run.adaptive ? " (adaptive)" : "")
              << ", " << n << " members"
              << (n < st.init.count
                      ? " (" + std::to_string(first) + " to " + std::to_string(first + n - 1) + " of " + std::to_string(st.init.count) + ")"
                      : std::string())
              << " on " << ran_on << (batch < n ? " in " + std::to_string((n + batch - 1) / batch) + " batches" : std::string()) << "\n"
              << "  " << status_summary(tally.status) << "; " << steps << " steps, " << rejected << " rejected; " << wall << " s"
              << (ck && ck->resumed() ? " since the resume\n"
                                      : " (" + std::to_string(double(steps) / std::max(wall, 1e-9)) + " trajectory-steps/s)\n");
    if (tally.newton_most > 0) {
      char line[160];
      std::snprintf(line, sizeof line, "  Newton iterations per step: mean %.2f (largest member mean %.2f), at most %ld in one step\n",
                    tally.newton_sum / double(n), tally.newton_worst, tally.newton_most);
      std::cout << line;
    }
    if (ck && ck->saved() > 0)
      std::cout << "  checkpoints: " << ck->saved() << (ck->resumed() ? " (resumed)" : "") << ", the last "
                << human_bytes(double(ck->bytes())) << " (" << double(ck->bytes()) / double(n)
                << " bytes per member) beside the staged arrays; " << ck->seconds() << " s spent on them\n";
    if (poincare)
      std::cout << "  " << hits << " section hits recorded, " << lost << " lost"
                << (lost ? " (raise max_hits: " + std::to_string(st.run.section.max_hits) + " per member in each of the run's " +
                               std::to_string(chunk_plan(st.run).chunks) + " chunks)"
                         : "")
                << ", " << tally.suspected << " suspected pairs"
                << (tally.suspected ? " (two crossings inside a step that its re-take did not confirm: hits/suspected_pairs; a "
                                      "shorter step resolves them)"
                                    : "")
                << "\n";
    std::cout << "  device: " << where.text << "\n  output: " << written << "\n";
  }
  if (st.plot) {
    const std::string png = sibling(written, ".png");
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
    else if (!poincare && none_finished && !drift.t.empty() && !st.model->obs_names().empty())
      note_plot(png, "no member finished, so no drift", opt.quiet);
    else if (!poincare && !drift.t.empty() && !st.model->obs_names().empty()) {
      std::string exact, nan;
      const auto series = drift.series(st.model->obs_names(), exact, nan);
      if (series.empty()) note_plot(png, nan.empty() ? "every observable is exactly constant" : "the drift is NaN: " + nan, opt.quiet);
      else
        note_plot(png,
                  plot(png,
                       {"observable drift: max over members of |obs(t) - obs(t0)|, " + st.model->name() + ", " + st.run.method +
                            (exact.empty() ? "" : "; exactly 0: " + exact) + (nan.empty() ? "" : "; NaN: " + nan),
                        "t", "drift", false, true, false},
                       series),
                  opt.quiet);
    }
  }
  if (!opt.memory) note_earlier_outputs(written, false);
  if (none_finished) {
    if (!opt.quiet)  // (a job of ranks runs its blocks quiet, and says it once for the job)
      std::cerr << "liebatch: no member finished (" << status_summary(tally.status) << "); the output records each member's status\n";
    return check_failed;
  }
  return ok;
}

}  // namespace

int run_command(const Options& o) { return ensemble_command(o, Command::run); }
int poincare_command(const Options& o) { return ensemble_command(o, Command::poincare); }

}  // namespace lb::cli
