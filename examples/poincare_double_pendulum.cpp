// A Poincaré section of the double pendulum from many initial conditions on one energy surface.
// The double spherical pendulum on (TS²)² (unit masses and lengths, g = 9.81) started in the x–z
// plane stays there: the planar double pendulum, whose energy surface is 3-dimensional, so the
// section {θ₁ = 0, θ̇₁ > 0} is a 2-dimensional picture: (θ₂, θ̇₂) at each hit.
//   - initial conditions: angles θ₁, θ₂ and the direction of (θ̇₁, θ̇₂) from a Philox box sampler
//     (seed recorded), velocities rescaled onto the energy level E (on_energy_level); a draw whose
//     configuration lies above E is redrawn;
//   - section: the hyperplane q₁ₓ = 0 crossed upward, with the extra condition q₁_z < 0 (the lower
//     passage, not the inverted one), located on the manifold by re-taking steps;
//   - integration: RKMK(5,4), tolerance 1e-9, on all CPU threads.
// Usage: poincare_double_pendulum [members (10000)] [t_end (100)] [output directory (.)]
// Writes poincare_double_pendulum.csv and, with gnuplot, poincare_double_pendulum.png.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <liebatch/liebatch.hpp>
#include <liebatch/models/pendulum_chain.hpp>
#include <liebatch/sampling/energy_level.hpp>

#include <liebatch/ensemble/cpu.hpp>
#include <liebatch/ensemble/sampling.hpp>

#include "gnuplot_png.hpp"

using Chain = lb::PendulumChain<double, 2>;
using Y = Chain::point;

/// q₁ below the pivot.
struct LowerPassage {
  bool operator()(double, const Y& y) const { return y[2] < 0; }
};

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 10000;
  const double t_end = argc > 2 ? std::strtod(argv[2], nullptr) : 100.0;
  const std::string dir = argc > 3 ? argv[3] : ".";
  if (n == 0 || !(t_end > 0)) {
    std::fprintf(stderr, "usage: poincare_double_pendulum [members > 0] [t_end > 0] [output directory]\n");
    return 2;
  }
  const Chain chain{{1.0, 1.0}, {1.0, 1.0}, 9.81};
  const double E = -3 * 9.81 + 15.0;  // 15 above the hanging rest state: a chaotic sea with regular islands

  lb::Ensemble<Chain> e;
  e.size = n;
  e.model.v = {chain};
  e.t1.v = {t_end};
  e.max_hits = 256;
  lb::StepControl<double> c;
  c.atol = c.rtol = 1e-9;
  c.h = 1e-3;
  e.control.v = {c};
  lb::UnitSampler sampler;
  sampler.kind = lb::SamplerKind::box;
  sampler.dim = 3;
  sampler.seed = 20261122;
  // u → (θ₁, θ₂, φ): qᵢ = (sin θᵢ, 0, −cos θᵢ), ωᵢ = θ̇ᵢ(0, −1, 0), (θ̇₁, θ̇₂) ∝ (cos φ, sin φ).
  lb::sample_y0(e, sampler, [&](const double* u, Y& y) {
    const double pi = 3.14159265358979323846, th1 = pi * (2 * u[0] - 1), th2 = pi * (2 * u[1] - 1), phi = 2 * pi * u[2];
    y = Y{{std::sin(th1), 0, -std::cos(th1), 0, -std::cos(phi), 0, std::sin(th2), 0, -std::cos(th2), 0, -std::sin(phi), 0}};
    return lb::on_energy_level(chain, y, E);
  });

  lb::RunOptions o;
  o.adaptive = true;
  o.chunks = 10;
  const lb::Conditioned<lb::Hyperplane<double>, LowerPassage> section{{0, 0.0, lb::Crossing::up}, {}};
  const auto out = lb::run_cpu<lb::methods::rkmk54>(e, o, section);

  std::size_t ok = 0;
  double drift = 0;
  for (std::size_t i = 0; i < n; ++i) {
    ok += out.status[i] == std::uint8_t(lb::Status::ok);
    Y y;
    for (int d = 0; d < 12; ++d) y[d] = out.y[std::size_t(d) * n + i];
    drift = std::max(drift, std::abs(chain.energy(y) - E));
  }
  const std::string csv = dir + "/poincare_double_pendulum.csv";
  std::FILE* f = std::fopen(csv.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "poincare_double_pendulum: cannot write %s\n", csv.c_str());
    return 2;
  }
  std::fprintf(f, "# double pendulum section theta1 = 0, theta1' > 0, E = %.6f; sampler %s; RKMK(5,4) tol 1e-9, t_end %g\n",
               E, lb::describe(sampler).c_str(), t_end);
  std::fprintf(f, "# member, hit, t, theta2, theta2', |q1|-1, energy error\n");
  double worst_q = 0, worst_x = 0;
  for (std::size_t r = 0; r < out.hit_t.size(); ++r) {
    Y y;
    for (int d = 0; d < 12; ++d) y[d] = out.hit_y[r * 12 + d];
    const double th2 = std::atan2(y[6], -y[8]), dth2 = -y[10];
    worst_q = std::max(worst_q, std::abs(lb::norm(chain.q(y, 0)) - 1));
    worst_x = std::max(worst_x, std::abs(y[0]));
    std::fprintf(f, "%zu %ld %.9f %.9f %.9f %.2e %.2e\n", std::size_t(out.hit_member[r]), long(out.hit_index[r]),
                 out.hit_t[r], th2, dth2, lb::norm(chain.q(y, 0)) - 1, chain.energy(y) - E);
  }
  std::fclose(f);
  std::printf("double pendulum Poincaré section: %zu members on E = %.3f (%s), t_end = %g\n", n, E,
              lb::describe(sampler).c_str(), t_end);
  std::printf("  %zu ok, %zu hits, %ld lost; worst energy drift %.1e, worst |q1_x| at a hit %.1e, worst ||q1| - 1| %.1e\n", ok,
              out.hit_t.size(), out.total_lost_hits(), drift, worst_x, worst_q);
  std::printf("  wrote %s\n", csv.c_str());
  examples::gnuplot_png(
      "poincare_double_pendulum", dir, "poincare_double_pendulum.png",
      "set terminal pngcairo size 1000,800 font ',11'; set output 'poincare_double_pendulum.png'; set title 'Double pendulum, E = " +
          std::to_string(E).substr(0, 6) + ": section {/Symbol q}_1 = 0, d{/Symbol q}_1/dt > 0 (" + std::to_string(n) +
          " initial conditions, RKMK(5,4))'; set xlabel '{/Symbol q}_2'; set ylabel 'd{/Symbol q}_2/dt';"
          " set xrange [-pi:pi]; unset key;"
          // Coloured by member through 8 colours, so that each orbit, an island's or the sea's, shows
          // as one colour (the command line's section.plot "colour": "member").
          " plot 'poincare_double_pendulum.csv' u 4:5:(int($1) % 8 + 1) w dots lc variable");
  return ok == n && out.total_lost_hits() == 0 && worst_x < 1e-9 && worst_q < 1e-13 ? 0 : 1;
}
