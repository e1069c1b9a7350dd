// liebatch validate: the same ensemble in double against long double (or on the CPU against the
// GPU): differences per output, a bound from the method's round-off, pass or fail.
#include "cli/commands/command.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <optional>
#include <sstream>
#include <iostream>
#include <limits>

#include <liebatch/methods/half_explicit_tableau.hpp>

#include "cli/models/method_list.hpp"
#include "cli/commands/progress.hpp"
#include "cli/outputs/output_bytes.hpp"

namespace lb::cli {
namespace {

/// max over the state's components c0 … c1−1 of |a − b| / max(1, |b|): ∞ where one is NaN, 0
/// where both are (a sample neither run reached, after a failure they share, is no difference).
double rel_diff(const double* a, const double* b, int c0, int c1, std::size_t stride) {
  double d = 0;
  for (int c = c0; c < c1; ++c) {
    const double x = a[std::size_t(c) * stride], y = b[std::size_t(c) * stride];
    const bool nx = std::isnan(x), ny = std::isnan(y);
    d = std::max(d, nx && ny ? 0.0 : nx || ny ? INFINITY : std::abs(x - y) / std::max(1.0, std::abs(y)));
  }
  return d;
}

/// The bits of a non-negative double: they order as the values do (+0, subnormals, …, +∞).
std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

/// For each list of non-negative differences, held in parts by the ranks of `team`, its element
/// ⌊N/2⌋ in order (N: the list's length over the ranks). That is the least v with more than ⌊N/2⌋
/// elements ≤ v: found by halving an interval of v's bits, each halving's counts summed over the
/// ranks. Exact, and no difference leaves its rank: 64 sums of one count per list at most.
std::vector<double> medians(std::vector<std::vector<double>>& lists, const Team& team) {
  const std::size_t m = lists.size();
  std::vector<std::uint64_t> need(m), lo(m, 0), hi(m, bits(INFINITY)), count(m);
  for (std::size_t l = 0; l < m; ++l) {
    std::sort(lists[l].begin(), lists[l].end());
    need[l] = lists[l].size();
  }
  team.reduce(need);
  for (auto& k : need) k = k / 2 + 1;
  // Each list's median lies in [lo, hi]: at least need[l] elements are ≤ hi, fewer are < lo.
  // (Every rank holds the same lo and hi, so every rank takes part in the same sums.)
  while (lo != hi) {
    for (std::size_t l = 0; l < m; ++l) {
      const double v = std::bit_cast<double>(lo[l] + (hi[l] - lo[l]) / 2);
      count[l] = std::uint64_t(std::upper_bound(lists[l].begin(), lists[l].end(), v) - lists[l].begin());
    }
    team.reduce(count);
    for (std::size_t l = 0; l < m; ++l) {
      if (lo[l] == hi[l]) continue;
      const std::uint64_t mid = lo[l] + (hi[l] - lo[l]) / 2;
      if (count[l] >= need[l]) hi[l] = mid;
      else lo[l] = mid + 1;
    }
  }
  std::vector<double> median;
  for (auto b : lo) median.push_back(std::bit_cast<double>(b));
  return median;
}

}  // namespace

Where validate_where(const Options& opt, const Study& st) {
  // Against the GPU: the run on the CPU checked against the same run on the GPU. Against extended:
  // the run (on --device) checked against a long double run of the same method and steps.
  if (st.validate.against != "gpu") return pick_device(opt, *st.model, {st.run.method});
  if (opt.device == "cpu")
    throw ConfigError("config /validate/against: 'gpu' runs the ensemble on the CPU and on the GPU; drop --device cpu");
  const std::string why = gpu_missing(*st.model, {st.run.method});
  if (!why.empty()) throw std::runtime_error("config /validate/against: 'gpu': cannot run on the GPU: " + why);
  return {false, "cpu and gpu (validate against gpu)"};
}

int validate_command(const Options& opt) {
  Study st = load(opt, Command::validate);
  const bool against_gpu = st.validate.against == "gpu";
  const Where where = validate_where(opt, st);
  st.run.gpu = where.gpu;
  // In a job of ranks (opt.team) the batches go round the ranks, one each a round; rank 0 writes
  // every member's arrays, its batches' and those the others send, and holds no more of them at
  // a time than a single process would hold of one batch. The differences stay where they were
  // computed: their maxima and medians are reduced over the ranks (below).
  const Team* team = opt.team;
  const bool root = !team || team->rank == 0;
  const std::size_t ranks = team ? std::size_t(team->size) : 1;
  std::unique_ptr<Sink> out;
  std::optional<MemberArrays> sink;
  if (root) {
    out = open_output(opt);
    write_header(*out, st, opt, "validate", where.text);
    sink.emplace(*out, st, false);
  }
  const std::size_t n = st.init.count;
  const std::size_t batch = std::max<std::size_t>(1, batch_size(st, std::size_t(opt.batch), true) / ranks);
  const std::size_t batches = (n + batch - 1) / batch;
  // Per output: relative differences |a − b|/max(1, |b|) per member (and sample), max and median.
  // A constrained system's multipliers are an output of their own (below, their bound).
  const int dim = st.model->dim(), r = st.model->multipliers(), qv = dim - r;
  const std::string states = r > 0 ? " (q, v)" : " state";
  std::vector<std::string> names;
  std::vector<bool> multipliers;  // whether output o is a constrained system's multipliers
  auto output = [&](const std::string& name, bool lambda) {
    names.push_back(name);
    multipliers.push_back(lambda);
  };
  output("final" + states, false);
  if (r > 0) output("final multipliers", true);
  const std::size_t samples_at = names.size();
  if (st.run.samples > 0) output("sampled" + states, false);
  if (st.run.samples > 0 && r > 0) output("sampled multipliers", true);
  const std::size_t obs_at = names.size();
  if (st.run.samples > 0 && !st.model->obs_names().empty()) output("sampled observables", false);
  std::vector<std::vector<double>> diffs(names.size());
  long status_mismatch = 0, max_steps = 1, not_ok = 0;
  std::string reference_device;
  Progress progress("validate", opt.quiet, opt.progress, opt.progress_always);
  for (std::size_t j0 = 0; j0 < batches; j0 += ranks) {  // a round: batch j0 + u on rank u
    const std::size_t round = std::min(ranks, batches - j0);
    std::vector<std::string> sent(team ? round : 0);  // what each rank's batch gives rank 0
    for (std::size_t u = 0; u < round; ++u) {
      if (team && !team->mine(u)) continue;
      const std::size_t i0 = (j0 + u) * batch;
      RunSpec s = st.run;
      s.size = std::min(batch, n - i0);
      s.member0 = i0;
      st.init.fill(i0, s.size, s.y0, cpu_threads(s.threads));
      // Progress: the run a quarter of each batch, its reference (long double: slower) the rest; a
      // job's rank 0 draws its own batches' as the job's (the others run alongside).
      const auto part = [&](double from, double to) {
        return [&, from, to](double f) { progress((double(i0) + (from + f * (to - from)) * double(s.size) * double(ranks)) / double(n)); };
      };
      s.progress = part(0, against_gpu ? 0.5 : 0.25);
      const RunResult a = st.model->run(s);
      s.progress = part(against_gpu ? 0.5 : 0.25, 1);
      s.gpu = true;  // the reference: the same run on the GPU, or in long double (always on the CPU)
      const RunResult b = against_gpu ? st.model->run(s) : st.model->run_extended(s);
      reference_device = b.out.device;
      if (team) sent[u] = to_bytes(a.out);
      else sink->add(i0, s.y0, a);
      const auto& A = a.out;
      const auto& B = b.out;
      for (std::size_t i = 0; i < A.size; ++i) {
        diffs[0].push_back(rel_diff(&A.y[i], &B.y[i], 0, qv, A.size));
        if (r > 0) diffs[1].push_back(rel_diff(&A.y[i], &B.y[i], qv, dim, A.size));
        status_mismatch += A.status[i] != B.status[i];
        not_ok += A.status[i] != std::uint8_t(Status::ok);
        max_steps = std::max(max_steps, B.steps[i]);
      }
      for (int k = 0; k < A.samples; ++k)
        for (std::size_t i = 0; i < A.size; ++i) {
          const std::size_t o = std::size_t(k) * std::size_t(A.dim) * A.size + i;
          diffs[samples_at].push_back(rel_diff(&A.sample_y[o], &B.sample_y[o], 0, qv, A.size));
          if (r > 0) diffs[samples_at + 1].push_back(rel_diff(&A.sample_y[o], &B.sample_y[o], qv, dim, A.size));
          if (A.nobs > 0) {
            const std::size_t q = std::size_t(k) * std::size_t(A.nobs) * A.size + i;
            diffs[obs_at].push_back(rel_diff(&A.sample_obs[q], &B.sample_obs[q], 0, A.nobs, A.size));
          }
        }
    }
    if (!team) continue;
    team->to_root(sent);
    if (!root) continue;
    std::vector<double> y0;
    for (std::size_t u = 0; u < round; ++u) {
      const std::size_t i0 = (j0 + u) * batch;
      RunResult a{output_of(sent[u]), {}, {}, {}};
      a.parameters = st.model->member_parameters(i0, a.out.size, cpu_threads(st.run.threads));  // (not sent)
      st.init.fill(i0, a.out.size, y0, cpu_threads(st.run.threads));
      sink->add(i0, y0, a);
    }
  }
  // Each output's largest difference and its median, the element ⌊N/2⌋ of its N differences in
  // order, as a single process's sort finds it; in a job, from the ranks' parts (medians()).
  std::vector<double> mx, med(names.size());
  if (team) {
    std::vector<std::uint64_t> sums{std::uint64_t(status_mismatch), std::uint64_t(not_ok)}, maxima{std::uint64_t(max_steps)};
    for (const auto& d : diffs) maxima.push_back(d.empty() ? 0 : bits(*std::max_element(d.begin(), d.end())));
    team->reduce(sums);
    team->reduce(maxima, true);
    status_mismatch = long(sums[0]), not_ok = long(sums[1]), max_steps = long(maxima[0]);
    for (std::size_t o = 0; o < names.size(); ++o) mx.push_back(std::bit_cast<double>(maxima[1 + o]));
    med = medians(diffs, *team);
    if (!root) return ok;  // (rank 0's status is the job's)
  } else {
    for (std::size_t o = 0; o < names.size(); ++o) {
      auto& d = diffs[o];
      std::sort(d.begin(), d.end());
      mx.push_back(d.back());
      med[o] = d[d.size() / 2];
    }
  }
  const MethodInfo mi = method_info(st.run.method);
  const double eps = std::numeric_limits<double>::epsilon();
  const double bound = st.validate.bound > 0 ? st.validate.bound
                       : st.run.adaptive     ? 100 * std::max(st.run.atol, st.run.rtol)
                                             : 100.0 * mi.stages * double(max_steps) * eps;
  // The multipliers come from stage solves that divide by h·a_{i+1,i} ([ArnHE] (4c)): a rounding
  // difference of the velocities reappears in λ up to 1/(h·min|a_{i+1,i}|) times larger
  // (docs/constrained.md §2, §7). Adaptive runs keep the tolerance's bound for every part.
  double lambda_bound = bound;
  if (r > 0 && !(st.validate.bound > 0) && !st.run.adaptive) {
    double a = INFINITY;
    for (int i = 1; i <= tableaux::hedop5.stages; ++i) a = std::min(a, std::abs(tableaux::hedop5.a[i][i - 1].as<double>()));
    lambda_bound = bound / (*std::min_element(st.run.h.begin(), st.run.h.end()) * a);
  }
  std::vector<double> bounds;
  bool pass = status_mismatch == 0 && not_ok == 0;  // a member that failed validates nothing
  std::optional<TextOutput> table;                  // next to the HDF5 file, renamed in place after it; none for an output in memory
  Sink& w = *out;
  if (!opt.memory) table.emplace(sibling(w.path(), ".csv"));
  std::ostringstream unused;
  std::ostream& csv = table ? table->out() : unused;
  csv.precision(17);  // every number as it is (6 digits showed a maximum above its bound as equal to it)
  csv << csv_mark("validate") << "\noutput,max,median,bound\n";
  if (!opt.quiet)
    std::cout << "validate: " << st.model->name() << ", " << st.run.method << ", " << n
              << " members: " << (against_gpu ? "CPU against GPU, double" : "double on " + where.text + " against long double") << "\n";
  for (std::size_t o = 0; o < names.size(); ++o) {
    const double m = mx[o], md = med[o], b = multipliers[o] ? lambda_bound : bound;
    bounds.push_back(b);
    pass = pass && m <= b;
    csv << csv_field(names[o]) << "," << m << "," << md << "," << b << "\n";
    if (!opt.quiet)
      std::cout << "  " << names[o] << ": max " << m << ", median " << md << ", bound " << b << (m <= b ? "  ok" : "  ABOVE BOUND") << "\n";
  }
  if (!opt.quiet) {
    std::cout << "  members not ok (" << (against_gpu ? "CPU run" : "double run") << "): " << not_ok
              << "; statuses differing: " << status_mismatch << "\n  bound " << bound
              << (st.validate.bound > 0 ? " (from the config)"
                  : st.run.adaptive     ? " (100 x tolerance: the two runs may take different steps)"
                                        : " (100 x stages x steps x eps: round-off accumulated over the steps)");
    if (lambda_bound != bound)
      std::cout << "; the multipliers' " << lambda_bound << " (that over h min|a_{i+1,i}|: their stage solves divide by it)";
    std::cout << "\n  " << (pass ? "PASS" : "FAIL") << "\n";
  }
  w.write("validate/outputs", names);
  w.write("validate/max", mx, {mx.size()});
  w.write("validate/median", med, {med.size()});
  w.write("validate/bound", bounds, {bounds.size()});
  w.attr("validate_bound", bound);
  w.attr("validate_result", pass ? "pass" : "fail");
  w.attr("validate_against", against_gpu
                                 ? "gpu (final/ and samples/ hold the CPU run; the GPU run, same method and steps, is its reference)"
                                 : "extended (long double CPU run, same method and steps)");
  w.attr("validate_reference_device", reference_device);
  commit(st, opt, w, table ? &*table : nullptr);
  if (!opt.memory) note_earlier_outputs(w.path(), true);
  return pass ? ok : check_failed;
}

}  // namespace lb::cli
