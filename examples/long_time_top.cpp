// Long-time behaviour of the Brüls–Cardona top ([CCLMO22 §3.4.4], from [BC10]) in the spirit of
// [CCLMO22] Fig. 3: h = 0.01 (h|ω| = 1.5 on the 150 rad/s spin) with the symplectic SLGI θ = ½
// ([CCLMO22 §3.2]) and Hamilton–Pontryagin Störmer–Verlet, τ = exp ([BRM07 §4]), against RKMK4.
//   1. one top: relative energy error |E − E₀|/|E₀|, |π_z − π_z(0)| and ‖QᵀQ − I‖ every 10 steps;
//   2. an ensemble of perturbed tops (attitude exp(0.05 ξ̂), ξ ∈ [−1, 1]³, body momentum × s,
//      s ∈ [0.95, 1.05], from a Philox box sampler): every 10 steps, the 10 %, 50 % and 90 %
//      quantiles of the relative energy error over the members.
// Usage: long_time_top [steps (10000, a multiple of 10)] [members (10000)] [output directory (.)]
// (the figures in examples/figures: 10000 steps, 10000 members, 10 min on 2 cores, nearly all of it
// SLGI's Newton solves; docs/symplectic.md §8).
// Writes long_time_top.csv, long_time_top_ensemble.csv and, with gnuplot, the two PNGs. Exit status
// 0 when every member ends ok and, for both symplectic methods, π_z stays within 1e-10 everywhere
// and the energy error of the single top stays bounded (last 10 % of the run within 1.1 × the
// first 10 %).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <liebatch/liebatch.hpp>
#include <liebatch/methods/symplectic.hpp>
#include <liebatch/models/heavy_top_spatial.hpp>

#include <liebatch/ensemble/cpu.hpp>
#include <liebatch/ensemble/sampling.hpp>

#include "gnuplot_png.hpp"

using Top = lb::HeavyTopSpatial<double>;
using Out = lb::EnsembleOutput<double>;
constexpr double step_size = 0.01;  // h
constexpr int n_methods = 3;
const char* const method_names[n_methods] = {"SLGI theta=1/2", "HP-SV exp", "RKMK4"};

/// Runs e with each method in the order of method_names and hands use(j, output) each output
/// before the next run (at full size an ensemble's samples take 1.2 GB per method).
template <class Use> void each_method(const lb::Ensemble<Top>& e, Use&& use) {
  const lb::RunOptions o;
  use(0, lb::run_cpu<lb::methods::slgi_half>(e, o));
  use(1, lb::run_cpu<lb::methods::hp_sv_exp>(e, o));
  use(2, lb::run_cpu<lb::methods::rkmk4>(e, o));
}

/// n members to t = steps·h, sampled every 10 steps (grid points of h, so no step is shortened).
lb::Ensemble<Top> tops(const Top& m, std::size_t n, int steps) {
  lb::Ensemble<Top> e;
  e.size = n;
  e.model.v = {m};
  e.t1.v = {steps * step_size};
  e.control.v[0].h = step_size;
  e.samples = steps / 10 + 1;
  return e;
}

/// Observable o (0 energy, 1 π_z, 2 ‖QᵀQ − I‖) of member i at sample k.
double obs(const Out& r, int k, int o, std::size_t i) {
  return r.sample_obs[(std::size_t(k) * std::size_t(r.nobs) + std::size_t(o)) * r.size + i];
}
double energy_error(const Out& r, int k, std::size_t i) { return std::abs(obs(r, k, 0, i) - obs(r, 0, 0, i)) / std::abs(obs(r, 0, 0, i)); }
double pi_z_error(const Out& r, int k, std::size_t i) { return std::abs(obs(r, k, 1, i) - obs(r, 0, 1, i)); }

/// Largest f(k, i) over samples k ∈ [k0, k1) and members i.
template <class F> double max_over(const Out& r, int k0, int k1, F f) {
  double m = 0;
  for (int k = k0; k < k1; ++k)
    for (std::size_t i = 0; i < r.size; ++i) m = std::max(m, f(k, i));
  return m;
}

/// Per sample, the 10 %, 50 % and 90 % quantiles of the members' relative energy errors.
std::vector<std::array<double, 3>> quantiles(const Out& r) {
  std::vector<std::array<double, 3>> q(std::size_t(r.samples));
  std::vector<double> x(r.size);
  for (int k = 0; k < r.samples; ++k) {
    for (std::size_t i = 0; i < r.size; ++i) x[i] = energy_error(r, k, i);
    for (int p = 0; p < 3; ++p) {
      const auto at = x.begin() + std::lround(double(r.size - 1) * (0.1 + 0.4 * p));
      std::nth_element(x.begin(), at, x.end());
      q[std::size_t(k)][std::size_t(p)] = *at;
    }
  }
  return q;
}

long not_ok(const Out& r) {
  return std::count_if(r.status.begin(), r.status.end(), [](std::uint8_t s) { return s != std::uint8_t(lb::Status::ok); });
}

void plot(const std::string& script, const std::string& dir, const std::string& png) {
  examples::gnuplot_png("long_time_top", dir, png, script);
}

std::FILE* open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) std::fprintf(stderr, "long_time_top: cannot write %s\n", path.c_str());
  return f;
}

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::atoi(argv[1]) : 10000;
  const std::size_t members = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 10000;
  const std::string dir = argc > 3 ? argv[3] : ".";
  if (steps <= 0 || steps % 10 != 0 || members == 0) {
    std::fprintf(stderr, "usage: long_time_top [steps, a multiple of 10] [members > 0] [output directory]\n");
    return 2;
  }
  const Top m{lb::HeavyTop<double>::bruls_cardona()};
  const auto y0 = Top::from_body(lb::Mat3<double>::identity(), m.top.bruls_cardona_initial().seg<0, 3>());
  const double t1 = steps * step_size;

  auto single = tops(m, 1, steps);
  single.y0.assign(y0.v, y0.v + Top::point::size);
  std::array<Out, n_methods> one;
  each_method(single, [&](int j, Out r) { one[std::size_t(j)] = std::move(r); });

  auto ens = tops(m, members, steps);
  lb::UnitSampler sampler;
  sampler.dim = 4;
  sampler.seed = 20221103;
  lb::sample_y0(ens, sampler, [&](const double* u, Top::point& y) {
    const auto xi = lb::vec3(2 * u[0] - 1, 2 * u[1] - 1, 2 * u[2] - 1);
    y = Top::from_body(lb::SO3<double>::exp(0.05 * xi).R, (0.95 + 0.1 * u[3]) * m.top.bruls_cardona_initial().seg<0, 3>());
    return true;
  });
  std::array<std::vector<std::array<double, 3>>, n_methods> q;
  std::array<double, n_methods> dpi_ens{}, seconds{};
  std::array<long, n_methods> bad{};
  each_method(ens, [&](int j, const Out& r) {
    const auto u = std::size_t(j);
    q[u] = quantiles(r);
    dpi_ens[u] = max_over(r, 0, r.samples, [&](int k, std::size_t i) { return pi_z_error(r, k, i); });
    bad[u] = not_ok(r) + not_ok(one[u]);
    seconds[u] = r.integrate_seconds;
  });

  // Single top: t, then per method |ΔE|/E₀, |Δπ_z|, ‖QᵀQ − I‖.
  const std::string csv1 = dir + "/long_time_top.csv", csv2 = dir + "/long_time_top_ensemble.csv";
  std::FILE* f = open(csv1);
  if (!f) return 2;
  std::fprintf(f, "# Bruls-Cardona top, h = %g, %d steps; t, then for SLGI theta=1/2, HP-SV exp, RKMK4: |E-E0|/|E0|, |pi_z-pi_z(0)|, |QtQ-I|\n", step_size, steps);
  for (int k = 0; k < single.samples; ++k) {
    std::fprintf(f, "%.4f", one[0].sample_t[std::size_t(k)]);
    for (const auto& r : one) std::fprintf(f, " %.6e %.6e %.6e", energy_error(r, k, 0), pi_z_error(r, k, 0), obs(r, k, 2, 0));
    std::fprintf(f, "\n");
  }
  std::fclose(f);

  // Ensemble: t, then per method the 10 %, 50 % and 90 % quantiles of |ΔE|/E₀ over the members.
  f = open(csv2);
  if (!f) return 2;
  std::fprintf(f, "# %zu perturbed Bruls-Cardona tops (%s), h = %g; t, then for SLGI theta=1/2, HP-SV exp, RKMK4: q10, median, q90 of |E-E0|/|E0|\n",
               members, lb::describe(sampler).c_str(), step_size);
  for (int k = 0; k < ens.samples; ++k) {
    std::fprintf(f, "%.4f", one[0].sample_t[std::size_t(k)]);
    for (const auto& qj : q) std::fprintf(f, " %.6e %.6e %.6e", qj[std::size_t(k)][0], qj[std::size_t(k)][1], qj[std::size_t(k)][2]);
    std::fprintf(f, "\n");
  }
  std::fclose(f);

  std::printf("Bruls-Cardona top, h = %g, %d steps (t in [0, %g]); ensemble of %zu perturbed tops (%s)\n", step_size, steps, t1,
              members, lb::describe(sampler).c_str());
  std::printf("  %-15s %14s %14s %11s %11s %15s %11s %7s %8s\n", "method", "dE/E0 first10%", "dE/E0 last10%", "max|dpi_z|",
              "max|QtQ-I|", "ens. median end", "ens.|dpi_z|", "not ok", "ens. s");
  bool pass = true;
  const int tenth = single.samples / 10;
  for (int j = 0; j < n_methods; ++j) {
    const auto u = std::size_t(j);
    const Out& r = one[u];
    const double first = max_over(r, 0, tenth + 1, [&](int k, std::size_t i) { return energy_error(r, k, i); });
    const double last = max_over(r, r.samples - tenth - 1, r.samples, [&](int k, std::size_t i) { return energy_error(r, k, i); });
    const double dpi = max_over(r, 0, r.samples, [&](int k, std::size_t i) { return pi_z_error(r, k, i); });
    const double orth = max_over(r, 0, r.samples, [&](int k, std::size_t i) { return obs(r, k, 2, i); });
    std::printf("  %-15s %14.3e %14.3e %11.2e %11.2e %15.3e %11.2e %7ld %8.1f\n", method_names[j], first, last, dpi, orth,
                q[u].back()[1], dpi_ens[u], bad[u], seconds[u]);
    pass = pass && bad[u] == 0;
    // The symplectic methods conserve π_z exactly (equivariance), up to rounding, and keep the
    // energy error bounded ([CCLMO22 §3.2], [BRM07 §4]).
    if (j < 2) pass = pass && dpi <= 1e-10 && dpi_ens[u] <= 1e-10 && last <= 1.1 * first;
  }
  std::printf("  wrote %s, %s\n", csv1.c_str(), csv2.c_str());

  // π_z of the one top, per method: each keeps it exactly here (the symplectic ones by equivariance;
  // RKMK4 changes π only by h Σ bᵢ M g e₃ × QᵢX, whose z-component is 0), and zeros have no place on
  // a log scale, so the figure states it and draws the attitude's defect ‖QᵀQ − I‖ instead.
  const char* const names[n_methods] = {"SLGI {/Symbol q} = 1/2", "HP-SV exp", "RKMK4"};
  std::string pi_z = "max |{/Symbol p}_z - {/Symbol p}_z(0)|:";
  for (int j = 0; j < n_methods; ++j) {
    const double d = max_over(one[j], 0, single.samples, [&](int k, std::size_t i) { return pi_z_error(one[j], k, i); });
    char v[64];
    std::snprintf(v, sizeof v, "%s %s %.1e", j ? "," : "", names[j], d);
    pi_z += d == 0 ? std::string(j ? ", " : " ") + names[j] + " exactly 0" : std::string(v);
  }
  const std::string styles =
      "set style line 1 lc rgb '#1f77b4' lw 2; set style line 2 lc rgb '#d62728' lw 2 dt 2; set style line 3 lc rgb '#2ca02c' lw 2;"
      "set logscale y; set format y '10^{%L}'; set xlabel 't'; set grid; set key below horizontal;";
  plot(styles + "set multiplot layout 2,1 title 'Brüls–Cardona top, h = 0.01, " + std::to_string(steps) +
           " steps';"
           "set ylabel '|E - E_0| / |E_0|'; plot 'long_time_top.csv' every ::1 u 1:2 w l ls 1 t 'SLGI {/Symbol q} = 1/2', '' every ::1 u "
           "1:5 w l ls 2 t 'HP-SV exp',"
           " '' every ::1 u 1:8 w l ls 3 t 'RKMK4'; set title '" +
           pi_z +
           "'; set ylabel '||Q^TQ - I||';"
           "plot 'long_time_top.csv' every ::1 u 1:4 w l ls 1 t 'SLGI {/Symbol q} = 1/2', '' every ::1 u 1:7 w l ls 2 t 'HP-SV exp', '' "
           "every ::1 u 1:10 w l ls 3 t 'RKMK4';"
           " unset multiplot",
       dir, "long_time_top.png");
  plot(styles + "set title '" + std::to_string(members) + " perturbed Brüls–Cardona tops, h = 0.01: median and 10–90 % band of |E - E_0| / |E_0|';"
       "set ylabel '|E - E_0| / |E_0|'; set style fill transparent solid 0.2 noborder;"
       "plot 'long_time_top_ensemble.csv' every ::1 u 1:2:4 w filledcurves ls 1 notitle, '' every ::1 u 1:3 w l ls 1 t 'SLGI {/Symbol q} = 1/2',"
       " '' every ::1 u 1:5:7 w filledcurves ls 2 notitle, '' every ::1 u 1:6 w l ls 2 t 'HP-SV exp',"
       " '' every ::1 u 1:8:10 w filledcurves ls 3 notitle, '' every ::1 u 1:9 w l ls 3 t 'RKMK4'",
       dir, "long_time_top_ensemble.png");
  return pass ? 0 : 1;
}
