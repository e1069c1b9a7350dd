// HEDOP5 on the heavy top as a constrained body in SE(3) against the RKMK methods on se*(3), on the
// same physical Brüls–Cardona top ([BC10]; [ArnHE] Fig. 1; docs/constrained.md §8):
//   1. error against cost: the body motion at t = 1 (Ω and Γ = Rᵀe₃, which both formulations have)
//      against RKMK5 in long double with 25 600 steps, for N = 110 … 3200 steps (HEDOP5's stability
//      limit is h = 1/110 on this 150 rad/s top), against the wall time per member of a
//      256-member CPU ensemble run;
//   2. residuals over time, one top over [0, 10] at h = 1/1000: HEDOP5's |Φ|, |Bv| and
//      |λ − λ*|/(1 + |λ*|) and RKMK4's | |Γ| − 1 |, and both methods' relative energy error.
// Usage: constrained_top [output directory (.)]. Writes constrained_top_cost.csv and
// constrained_top_residuals.csv and, with gnuplot, the two PNGs. Exit status 0 when HEDOP5's error
// shrinks at order 5 ± 0.3 from N = 800 to 3200, its |Φ| and |Bv| stay below 1e-13, and at
// N = 3200 its error is below RKMK4's.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <liebatch/constrained_system.hpp>
#include <liebatch/ensemble/cpu.hpp>
#include <liebatch/liebatch.hpp>
#include <liebatch/methods/half_explicit.hpp>
#include <liebatch/models/constrained_heavy_top.hpp>

#include "gnuplot_png.hpp"

namespace {

using Top = lb::HeavyTop<double>;                                  // (Π, Γ) on se*(3)
using Body = lb::ConstrainedSystem<lb::ConstrainedHeavyTop<double>>;  // (R, x, Ω, U, λ) in SE(3)
constexpr std::size_t members = 256;

/// The body motion both formulations share: Ω and Γ.
struct Motion {
  lb::Vec3<double> omega, gamma;
};
Motion motion(const Top& top, const Top::space::point& y) { return {top.omega(y), y.seg<3, 3>()}; }
Motion motion(const Body::point& y) {
  const auto s = Body::unpack(y);
  return {s.v.seg<0, 3>(), s.q.R.row(2)};
}
double error(const Motion& a, const Motion& ref) {
  return std::max(lb::norm(a.omega - ref.omega) / lb::norm(ref.omega), lb::norm(a.gamma - ref.gamma));
}

/// `members` copies of y0 to t = 1 with n fixed steps; member 0's final state and the wall time
/// per member.
template <class Method, class Model> std::pair<typename Model::point, double> run(const Model& m, const typename Model::point& y0, int n) {
  lb::Ensemble<Model> e;
  e.size = members;
  e.model.v = {m};
  e.control.v[0].h = 1.0 / n;
  e.y0.resize(std::size_t(Model::space::dim) * members);
  for (int d = 0; d < Model::space::dim; ++d) std::fill_n(e.y0.begin() + long(d * members), members, y0[d]);
  const auto t0 = std::chrono::steady_clock::now();
  const auto out = lb::run_cpu<Method>(e, lb::RunOptions{});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  typename Model::point y;
  for (int d = 0; d < Model::space::dim; ++d) y[d] = out.y[std::size_t(d) * members];
  if (out.status[0] != std::uint8_t(lb::Status::ok)) y[0] = NAN;
  return {y, s / members};
}

void plot(const std::string& dir, const std::string& png, const std::string& script) {
  examples::gnuplot_png("constrained_top", dir, png, script);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : ".";
  const Top top = Top::bruls_cardona();
  const Top::space::point top0 = top.bruls_cardona_initial();
  const Body body{lb::ConstrainedHeavyTop<double>::from_heavy_top(top)};
  const Motion m0 = motion(top, top0);
  const Body::point body0 = body.initial(body.system.configuration(lb::Mat3<double>::identity()), body.system.velocity(m0.omega));

  const auto ld = lb::HeavyTop<long double>::bruls_cardona();
  const auto r = lb::integrate_fixed<lb::methods::rkmk5>(ld, 0.0L, 1.0L, ld.bruls_cardona_initial(), 1.0L / 25600, 1 << 20);
  Top::space::point ry;
  for (int d = 0; d < 6; ++d) ry[d] = double(r.y[d]);
  const Motion ref = motion(top, ry);

  // 1. Error against cost.
  const int ns[] = {110, 200, 400, 800, 1600, 3200};
  const char* const names[3] = {"HEDOP5 in SE(3)", "RKMK5 on se*(3)", "RKMK4 on se*(3)"};
  double err[3][6], cost[3][6];
  for (int k = 0; k < 6; ++k) {
    const auto h = run<lb::methods::hedop5>(body, body0, ns[k]);
    const auto a = run<lb::methods::rkmk5>(top, top0, ns[k]);
    const auto b = run<lb::methods::rkmk4>(top, top0, ns[k]);
    err[0][k] = error(motion(h.first), ref), cost[0][k] = h.second;
    err[1][k] = error(motion(top, a.first), ref), cost[1][k] = a.second;
    err[2][k] = error(motion(top, b.first), ref), cost[2][k] = b.second;
  }
  const std::string cost_csv = dir + "/constrained_top_cost.csv";
  FILE* f = std::fopen(cost_csv.c_str(), "w");
  if (!f) return std::fprintf(stderr, "constrained_top: cannot write %s\n", cost_csv.c_str()), 2;
  std::fprintf(f, "steps,hedop5_error,hedop5_s,rkmk5_error,rkmk5_s,rkmk4_error,rkmk4_s\n");
  std::printf("Brüls–Cardona top to t = 1, %zu members per run; error in (Omega, Gamma) against RKMK5 in long double\n", members);
  std::printf("  steps   %-28s %-28s %s\n", names[0], names[1], names[2]);
  for (int k = 0; k < 6; ++k) {
    std::fprintf(f, "%d,%.6e,%.6e,%.6e,%.6e,%.6e,%.6e\n", ns[k], err[0][k], cost[0][k], err[1][k], cost[1][k], err[2][k], cost[2][k]);
    std::printf("  %5d", ns[k]);
    for (int j = 0; j < 3; ++j) std::printf("   %.2e (%7.1f us/member)", err[j][k], 1e6 * cost[j][k]);
    std::printf("\n");
  }
  std::fclose(f);
  std::printf("  cost per step and member at N = 3200: HEDOP5 %.2f us, RKMK5 %.2f us, RKMK4 %.2f us\n", 1e6 * cost[0][5] / 3200,
              1e6 * cost[1][5] / 3200, 1e6 * cost[2][5] / 3200);

  // 2. Residuals over time: one top, 10⁴ steps of 1/1000, every 10th step.
  auto one = [&](auto model, const auto& y0) {
    lb::Ensemble<decltype(model)> e;
    e.size = 1;
    e.model.v = {model};
    e.t1.v = {10.0};
    e.control.v[0].h = 1e-3;
    e.samples = 1001;
    e.y0.assign(y0.v, y0.v + decltype(model)::space::dim);
    return e;
  };
  const auto hb = lb::run_cpu<lb::methods::hedop5>(one(body, body0), lb::RunOptions{});
  const auto ht = lb::run_cpu<lb::methods::rkmk4>(one(top, top0), lb::RunOptions{});
  const std::string res_csv = dir + "/constrained_top_residuals.csv";
  f = std::fopen(res_csv.c_str(), "w");
  if (!f) return std::fprintf(stderr, "constrained_top: cannot write %s\n", res_csv.c_str()), 2;
  std::fprintf(f, "t,hedop5_phi,hedop5_bv,hedop5_lambda_defect,hedop5_energy_error,rkmk4_gamma_defect,rkmk4_energy_error\n");
  double max_phi = 0, max_bv = 0;
  for (int k = 0; k < hb.samples; ++k) {
    auto ob = [&](const auto& o, int i) { return o.sample_obs[std::size_t(k * o.nobs + i)]; };
    const double e_b = std::abs(ob(hb, 0) - hb.sample_obs[0]) / std::abs(hb.sample_obs[0]);
    const double e_t = std::abs(ob(ht, 0) - ht.sample_obs[0]) / std::abs(ht.sample_obs[0]);
    max_phi = std::max(max_phi, ob(hb, 1));
    max_bv = std::max(max_bv, ob(hb, 2));
    std::fprintf(f, "%.4f,%.3e,%.3e,%.3e,%.3e,%.3e,%.3e\n", hb.sample_t[std::size_t(k)], ob(hb, 1), ob(hb, 2), ob(hb, 3), e_b,
                 std::abs(ob(ht, 1) - 1), e_t);
  }
  std::fclose(f);
  std::printf("one top, h = 1/1000 to t = 10: HEDOP5 max |Phi| %.1e, max |Bv| %.1e (%s); RKMK4 %s\n", max_phi, max_bv,
              lb::status_name(hb.status[0]), lb::status_name(ht.status[0]));
  std::printf("  wrote %s, %s\n", cost_csv.c_str(), res_csv.c_str());

  const std::string style =
      "set style line 1 lc rgb '#1f77b4' lw 2 pt 7; set style line 2 lc rgb '#d62728' lw 2 pt 5; set style line 3 lc rgb "
      "'#2ca02c' lw 2 pt 9; set grid; set datafile separator ',';";
  plot(dir, "constrained_top_cost.png",
       style + "set logscale xy; set format x '10^{%L}'; set format y '10^{%L}'; set xlabel 'wall time per member to t = 1 [s]'; "
               "set ylabel 'error in ({/Symbol W}, {/Symbol G}) at t = 1'; set key top right; set title 'Brüls–Cardona top: "
               "HEDOP5 in SE(3) against RKMK on se*(3), N = 110 ... 3200 steps';"
               "plot 'constrained_top_cost.csv' every ::1 u 3:2 w lp ls 1 t 'HEDOP5 in SE(3)', '' every ::1 u 5:4 w lp ls 2 t 'RKMK5 on se*(3)', "
               "'' every ::1 u 7:6 w lp ls 3 t 'RKMK4 on se*(3)'");
  plot(dir, "constrained_top_residuals.png",
       style + "set logscale y; set format y '10^{%L}'; set xlabel 't'; set key bottom right; set title 'Brüls–Cardona top, h = "
               "1/1000: constraint residuals and energy error';"
               "plot 'constrained_top_residuals.csv' every ::1 u 1:2 w l ls 1 t 'HEDOP5 |{/Symbol F}|', '' every ::1 u 1:3 w l ls 2 t 'HEDOP5 |Bv|', "
               "'' every ::1 u 1:4 w l ls 3 t 'HEDOP5 |{/Symbol l} - {/Symbol l}*|/(1 + |{/Symbol l}*|)', '' every ::1 u 1:5 w l lc rgb '#9467bd' lw 2 t "
               "'HEDOP5 |E - E_0|/|E_0|', '' every ::1 u 1:6 w l lc rgb '#8c564b' lw 2 dt 2 t 'RKMK4 | |{/Symbol G}| - 1 |', "
               "'' every ::1 u 1:7 w l lc rgb '#e377c2' lw 2 dt 2 t 'RKMK4 |E - E_0|/|E_0|'");

  const double s1 = std::log2(err[0][3] / err[0][4]), s2 = std::log2(err[0][4] / err[0][5]);
  std::printf("HEDOP5 slopes N = 800 -> 1600 -> 3200: %.2f %.2f\n", s1, s2);
  const bool ok = std::abs(s1 - 5) <= 0.3 && std::abs(s2 - 5) <= 0.3 && max_phi < 1e-13 && max_bv < 1e-13 && err[0][5] < err[2][5] &&
                  hb.status[0] == std::uint8_t(lb::Status::ok);
  if (!ok) std::fprintf(stderr, "constrained_top: HEDOP5 lost its order, its constraints, or to RKMK4\n");
  return ok ? 0 : 1;
}
