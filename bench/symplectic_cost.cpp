// The price of the symplectic methods on the heavy top, on the CPU (issue 17's benchmark): SLGI
// θ = ½ ([CCLMO22 §3.2]) and Hamilton–Pontryagin Störmer–Verlet with τ = exp and Cayley ([BRM07
// §4]) against RKMK4 ([MK99], [CCLMO22 §2.2]) on the Brüls–Cardona top ([CCLMO22 §3.4.4], from
// [BC10]) in spatial form (HeavyTopSpatial), RKMK4 also on se*(3) (HeavyTop), through run_cpu:
//   1. ns per member-step of an ensemble of perturbed tops at h = 0.01, one thread and all threads,
//      each run ≥ 1 s; RKMK4 on packs and one member at a time (the implicit methods never run on
//      packs: Newton branches per member), and the Newton iterations per step;
//   2. the price at equal energy error: one top to T (1000: 10⁵ steps of 0.01); for each target of
//      the largest |E − E₀|/E₀ at t ∈ 0.01·ℕ ∩ [0, T], the largest h = 0.01/k on a grid of ratio
//      ≈ √2 that meets it, and the wall time of that run (one thread, one member).
// Usage: bench_symplectic_cost [members (2048)] [T (1000)]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <liebatch/ensemble/cpu.hpp>
#include <liebatch/ensemble/sampling.hpp>
#include <liebatch/methods/methods.hpp>
#include <liebatch/methods/symplectic.hpp>
#include <liebatch/models/heavy_top_spatial.hpp>

#include "timing.hpp"

namespace {

using Top = lb::HeavyTopSpatial<double>;
using Body = lb::HeavyTop<double>;
using Out = lb::EnsembleOutput<double>;
constexpr double h_ref = 0.01;          // the reference step, h|ω| = 1.5 on the 150 rad/s spin
constexpr double targets[] = {1e-3, 1e-4, 1e-5};
constexpr double max_run_seconds = 40;  // a scan tries no h whose one-top run, at part 1's ns per step, would take longer

/// The perturbed Brüls–Cardona tops of examples/long_time_top.cpp (its Philox seed): attitude
/// exp(0.05 ξ̂), ξ ∈ [−1, 1]³, body momentum × s, s ∈ [0.95, 1.05].
lb::Ensemble<Top> spatial_tops(std::size_t n) {
  const Top m{Body::bruls_cardona()};
  lb::Ensemble<Top> e;
  e.size = n;
  e.model.v = {m};
  lb::sample_y0(e, {.dim = 4, .seed = 20221103}, [&](const double* u, Top::point& y) {
    const auto xi = lb::vec3(2 * u[0] - 1, 2 * u[1] - 1, 2 * u[2] - 1);
    y = Top::from_body(lb::SO3<double>::exp(0.05 * xi).R, (0.95 + 0.1 * u[3]) * m.top.bruls_cardona_initial().seg<0, 3>());
    return true;
  });
  return e;
}

/// The same tops in body form (Π, Γ) on se*(3).
lb::Ensemble<Body> body_tops(const lb::Ensemble<Top>& s) {
  lb::Ensemble<Body> e;
  e.size = s.size;
  e.model.v = {s.model[0].top};
  e.y0.resize(6 * s.size);
  for (std::size_t i = 0; i < s.size; ++i) {
    const auto b = Top::body(s.state(i));
    for (int d = 0; d < 6; ++d) e.y0[std::size_t(d) * s.size + i] = b[d];
  }
  return e;
}

/// ns per member-step of e with steps of h_ref, the step count grown until a run takes ≥ 1 s; that
/// run's output in out.
template <class Method, class Model> double ns_per_step(lb::Ensemble<Model> e, const lb::RunOptions& o, Out& out) {
  for (long steps = 4;;) {
    e.t1.v = {double(steps) * h_ref};
    e.control.v[0].h = h_ref;
    e.control.v[0].max_attempts = steps + 1;
    const double s = lb::bench::seconds([&] { out = lb::run_cpu<Method>(e, o); });
    if (s >= 1) {
      double work = 0;
      for (long k : out.steps) work += double(k);
      return 1e9 * s / work;
    }
    steps = long(std::ceil(double(steps) * std::min(8.0, 1.2 / s)));
  }
}

/// One top to T with steps of h_ref/k: the largest |E − E₀|/E₀ at the samples t ∈ h_ref·ℕ (∞ when
/// the run fails), its Newton iterations per step and its wall time.
struct Run {
  double err, iterations, seconds;
  long steps;
};

template <class Method, class Model> Run one_top(const Model& m, const typename Model::space::point& y0, double T, long k) {
  lb::Ensemble<Model> e;
  e.size = 1;
  e.model.v = {m};
  e.y0.assign(y0.v, y0.v + Model::space::point::size);
  e.t1.v = {T};
  e.control.v[0].h = h_ref / double(k);
  e.control.v[0].max_attempts = 2 * k * std::lround(T / h_ref);
  e.samples = int(std::lround(T / h_ref)) + 1;
  lb::RunOptions o;
  o.threads = 1;
  o.simd = false;
  const Out r = lb::run_cpu<Method>(e, o);
  Run run{0, r.iterations.empty() ? 0 : double(r.iterations[0]) / double(r.steps[0]), r.integrate_seconds, r.steps[0]};
  if (r.status[0] != std::uint8_t(lb::Status::ok)) run.err = std::numeric_limits<double>::infinity();
  const double E0 = r.sample_obs[0];  // observable 0 is the energy for both forms
  for (int s = 0; s < e.samples; ++s)
    run.err = std::max(run.err, std::abs(r.sample_obs[std::size_t(s) * std::size_t(r.nobs)] - E0) / std::abs(E0));
  return run;
}

/// Grid index j → k: h = h_ref/k, k = 1, 2, 3, 4, 6, 8, 11, 16, … (≈ √2 apart, integers so that
/// the samples at h_ref·ℕ fall on steps).
long grid_k(int j) { return j == 0 ? 1 : std::lround(std::pow(2.0, (j + 1) / 2.0)); }

struct Found {
  int j = -1;  ///< -1: not met within max_run_seconds
  double err_larger = 0;  ///< the error at the next larger h (j − 1), which fails the target
};

struct Result {
  std::string name;
  bool implicit = false;
  double ns1 = 0, ns_all = 0, iterations = 0;  ///< part 1: ns per member-step; Newton iterations per step
  int iterations_max = 0;
  std::map<int, Run> runs;  ///< part 2: one-top runs by grid index
  std::vector<Found> found;  ///< per target
};

/// The largest grid h meeting `target`: bisects between the largest index known to fail and the
/// smallest known to meet, each try at the index the method's order predicts from the last error
/// (error ∝ h^order, so 2·log₂(err/target)/order grid steps of √2).
template <class F> Found largest_h(Result& r, F&& run, double target, int order, int j_cap) {
  int fail = -1, meet = j_cap + 1;
  for (const auto& [j, x] : r.runs) {
    if (x.err <= target) meet = std::min(meet, j);
    else fail = std::max(fail, j);
  }
  int j = fail + 1;
  if (fail >= 0 && std::isfinite(r.runs[fail].err)) j = fail + int(std::lround(2 * std::log2(r.runs[fail].err / target) / order));
  while (fail + 1 < meet) {
    j = std::clamp(j, fail + 1, meet - 1);
    if (!r.runs.count(j)) r.runs[j] = run(j);
    const double e = r.runs[j].err;
    const long predicted = std::isfinite(e) ? std::lround(2 * std::log2(e / target) / order) : 1;
    if (e <= target) meet = j, j += int(std::min(-1L, predicted));
    else fail = j, j += int(std::max(1L, predicted));
  }
  if (meet > j_cap) return {};
  return {meet, meet > 0 ? r.runs[meet - 1].err : 0};
}

template <class Method, class Model>
Result measure(const char* name, const lb::Ensemble<Model>& tops, const typename Model::space::point& y0, bool simd, int order,
               double T) {
  Result r;
  r.name = name;
  r.implicit = lb::method_implicit<Method>();
  lb::RunOptions o;
  o.simd = simd;
  o.threads = 1;
  Out out;
  r.ns1 = ns_per_step<Method>(tops, o, out);
  if (r.implicit) {
    double its = 0, steps = 0;
    for (std::size_t i = 0; i < out.size; ++i) its += double(out.iterations[i]), steps += double(out.steps[i]);
    r.iterations = its / steps;
    r.iterations_max = *std::max_element(out.iterations_max.begin(), out.iterations_max.end());
  }
  o.threads = 0;
  r.ns_all = ns_per_step<Method>(tops, o, out);
  if (order == 0) return r;  // part 1 only
  int j_cap = 0;
  while (double(grid_k(j_cap + 1)) * T / h_ref * r.ns1 * 1e-9 <= max_run_seconds) ++j_cap;
  for (double target : targets)
    r.found.push_back(largest_h(r, [&](int j) { return one_top<Method>(tops.model[0], y0, T, grid_k(j)); }, target, order, j_cap));
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 2048;
  const double T = argc > 2 ? std::atof(argv[2]) : 1000;
  if (n == 0 || !(T >= h_ref)) {
    std::fprintf(stderr, "usage: bench_symplectic_cost [members > 0] [T >= 0.01]\n");
    return 2;
  }
  const auto spatial = spatial_tops(n);
  const auto body = body_tops(spatial);
  const Top top{Body::bruls_cardona()};
  const auto body_y0 = top.top.bruls_cardona_initial();
  const auto spatial_y0 = Top::from_body(lb::Mat3<double>::identity(), body_y0.seg<0, 3>());
  // The symplectic methods' error is O(h²) and bounded in time ([HLW06 §IX.8]); RKMK4's is O(h⁴)
  // per unit time and drifts, so at long T it needs the smaller h.
  std::vector<Result> rs;
  rs.push_back(measure<lb::methods::rkmk4>("RKMK4, SO(3) x R^3, packs", spatial, spatial_y0, true, 0, T));
  rs.push_back(measure<lb::methods::rkmk4>("RKMK4, SO(3) x R^3, one at a time", spatial, spatial_y0, false, 4, T));
  rs.push_back(measure<lb::methods::rkmk4>("RKMK4, se*(3), packs", body, body_y0, true, 0, T));
  rs.push_back(measure<lb::methods::rkmk4>("RKMK4, se*(3), one at a time", body, body_y0, false, 4, T));
  rs.push_back(measure<lb::methods::slgi_half>("SLGI theta = 1/2", spatial, spatial_y0, false, 2, T));
  rs.push_back(measure<lb::methods::hp_sv_exp>("HP-SV exp", spatial, spatial_y0, false, 2, T));
  rs.push_back(measure<lb::methods::hp_sv_cay>("HP-SV Cayley", spatial, spatial_y0, false, 2, T));
  const Result &packs = rs[0], &scalar = rs[1];

  std::printf("1. Cost per step: %zu perturbed Bruls-Cardona tops, h = %g, run_cpu, each run >= 1 s; all threads = %d; "
              "RKMK4 on packs of %d doubles or one member at a time, the implicit methods one at a time\n\n",
              n, h_ref, lb::cpu_threads(0), lb::Pack<double>::size);
  std::printf("| method | ns per member-step, 1 thread | ns, %d threads | / RKMK4 packs (1 thread) | / RKMK4 one at a time | "
              "Newton iterations per step | most in one step |\n|---|---:|---:|---:|---:|---:|---:|\n", lb::cpu_threads(0));
  for (const Result& r : rs) {
    std::printf("| %s | %.0f | %.0f | %.2f | %.2f |", r.name.c_str(), r.ns1, r.ns_all, r.ns1 / packs.ns1, r.ns1 / scalar.ns1);
    if (r.implicit) std::printf(" %.2f | %d |\n", r.iterations, r.iterations_max);
    else std::printf(" - | - |\n");
  }

  std::printf("\n2. Price at equal energy error: the Bruls-Cardona top to T = %g (%.0f steps of %g), max |E-E0|/E0 at t in %g*N; "
              "largest h = %g/k (k = 1, 2, 3, 4, 6, 8, 11, 16, ...) meeting the target; wall time of that run (one thread, one "
              "member at a time, samples every %g); RKMK4 on packs priced as its run x part 1's packs / one-at-a-time ratio\n\n",
              T, T / h_ref, h_ref, h_ref, h_ref, h_ref);
  std::printf("| method | target | h | steps | max dE/E0 | at the next larger h | Newton it./step | one top (s) | / RKMK4 | "
              "/ RKMK4 on packs |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (std::size_t t = 0; t < std::size(targets); ++t) {
    const Found& base = scalar.found[t];
    const double base_s = base.j >= 0 ? scalar.runs.at(base.j).seconds : std::nan("");
    for (const Result& r : rs) {
      if (r.found.empty()) continue;
      const Found& f = r.found[t];
      if (f.j < 0) {
        std::printf("| %s | %.0e | not met with runs <= %.0f s | | | | | | | |\n", r.name.c_str(), targets[t], max_run_seconds);
        continue;
      }
      const Run& x = r.runs.at(f.j);
      std::printf("| %s | %.0e | %.3g | %ld | %.2e | %.2e | ", r.name.c_str(), targets[t], h_ref / double(grid_k(f.j)), x.steps, x.err,
                  f.err_larger);
      if (r.implicit) std::printf("%.2f", x.iterations);
      else std::printf("-");
      std::printf(" | %.3g | %.2f | %.2f |\n", x.seconds, x.seconds / base_s, x.seconds / (base_s * packs.ns1 / scalar.ns1));
    }
  }
  std::printf("\n('at the next larger h' 0: met at the grid's largest h)\n");
}
