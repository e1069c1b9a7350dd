// The CPU engine on packs against the same engine one member at a time (RunOptions::simd), per
// core (one thread), in one run and one binary (issue 16, item 5): every model × RKMK4 / CF4 /
// RKMK(5,4) × double / float with fixed steps, then adaptive RKMK(5,4) ensembles whose members take
// very different step counts, with the packs' lane occupancy. Achieved GFLOP/s from the FLOPs
// counted on the same step code (flop_counter.hpp: + − × ÷, an upper bound by a few per stage),
// against the core's FMA peak measured in the same run.
// Usage: bench_engine_packs [members (4096)] [steps (200)]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <liebatch/ensemble/cpu.hpp>
#include <liebatch/methods/methods.hpp>
#include <liebatch/models/free_rigid_body.hpp>
#include <liebatch/models/heavy_top.hpp>
#include <liebatch/models/heavy_top_spatial.hpp>
#include <liebatch/models/load_transport.hpp>
#include <liebatch/models/lorenz.hpp>
#include <liebatch/models/pendulum_chain.hpp>
#include <liebatch/models/quadrotor_load.hpp>

#include "flop_counter.hpp"
#include "fma_peak.hpp"
#include "timing.hpp"

namespace {

/// n members near y0: each component scaled by 1 ± 5 % (deterministic), projected back onto the
/// model's set (unit directions, rotations), so that lanes differ as members of a real ensemble do.
template <class Model, class Y> lb::Ensemble<Model> ensemble(const Model& m, const Y& y0, std::size_t n, double t1, double h) {
  using T = typename Model::space::scalar;
  lb::Ensemble<Model> e;
  e.size = n;
  e.model.v = {m};
  e.t1.v = {T(t1)};
  lb::StepControl<T> c;
  c.h = T(h);
  c.atol = c.rtol = sizeof(T) == 8 ? T(1e-8) : T(1e-5);
  e.control.v = {c};
  e.y0.resize(std::size_t(Y::size) * n);
  for (std::size_t i = 0; i < n; ++i) {
    Y y = y0;
    for (int d = 0; d < Y::size; ++d) y[d] = T(double(y0[d]) * (1 + 0.05 * std::sin(double(7 * i + std::size_t(d)))));
    y = lb::project<Model>(y);
    for (int d = 0; d < Y::size; ++d) e.y0[std::size_t(d) * n + i] = y[d];
  }
  return e;
}

/// Seconds of the best of two runs (the first also warms the caches and the page tables).
template <class F> double best_of_two(F&& f) { return std::min(lb::bench::seconds(f), lb::bench::seconds(f)); }

template <class Method, class Model, class Y>
void fixed_row(const char* name, const char* method, const Model& m, const Y& y0, double h, std::size_t n, int steps,
               double peak) {
  using T = typename Model::space::scalar;
  const auto e = ensemble(m, y0, n, h * steps, h);
  lb::RunOptions o;
  o.threads = 1;
  lb::EnsembleOutput<T> a, b;
  o.simd = false;
  const double ts = best_of_two([&] { a = lb::run_cpu<Method>(e, o); });
  o.simd = true;
  const double tp = best_of_two([&] { b = lb::run_cpu<Method>(e, o); });
  double work = 0, diff = 0;
  for (long s : b.steps) work += double(s);
  for (std::size_t k = 0; k < a.y.size(); ++k)
    diff = std::max(diff, std::abs(double(a.y[k]) - double(b.y[k])) / std::max(1.0, std::abs(double(a.y[k]))));
  const double flops = lb::bench::flops_per_step<Method>(m, y0, h);
  std::printf("| %s | %s | %s | %.3e | %.3e | %.2f | %.0f | %.1f | %.1f %% | %s |\n", name, method, sizeof(T) == 8 ? "double" : "float",
              work / ts, work / tp, ts / tp, flops, flops * work / tp / 1e9, 100 * flops * work / tp / peak,
              diff == 0 ? "bitwise" : (std::to_string(diff)).c_str());
}

template <class T> void fixed_rows(std::size_t n, int steps) {
  const double peak = lb::bench::fma_peak<T>(1);
  const lb::FreeRigidBody<T> body{lb::vec3(T(2), T(1), T(2) / T(3))};
  const auto body_y0 = lb::vec3(T(0.3), T(0.8), T(0.5));
  const auto top = lb::HeavyTop<T>::bruls_cardona();
  const auto top_y0 = top.bruls_cardona_initial();
  const lb::HeavyTopSpatial<T> spatial{top};
  const auto spatial_y0 = lb::HeavyTopSpatial<T>::from_body(lb::Mat3<T>::identity(), top_y0.template seg<0, 3>());
  const lb::PendulumChain<T, 2> pendulum{{T(1), T(1)}, {T(1), T(1)}, T(9.81)};
  const T s = std::sqrt(T(2)) / T(2);
  const auto pendulum_y0 = lb::Vec<T, 12>{{s, T(0), s, T(0), T(1), T(0), s, T(0), s, T(0), T(1), T(0)}};
  using Path = lb::ParabolicPath<T>;
  const lb::QuadrotorLoad<T, lb::LoadTransport<T, Path>> quad{lb::QuadrotorLoadParams<T>::paper(),
                                                              lb::LoadTransport<T, Path>::paper(Path::paper())};
  const auto quad_y0 = lb::QuadrotorLoadState<T>::paper_initial();
  const lb::Lorenz<T> lorenz{T(10), T(21), T(8) / T(3)};
  const auto lorenz_y0 = lb::vec3(T(1), T(0), T(0));
#define LB_ROWS(label, model, y0, h, members)                                                                    \
  fixed_row<lb::methods::rkmk4>(label, "rkmk4", model, y0, h, members, steps, peak);                             \
  fixed_row<lb::methods::cf4>(label, "cf4", model, y0, h, members, steps, peak);                                 \
  fixed_row<lb::methods::rkmk54>(label, "rkmk54", model, y0, h, members, steps, peak);
  LB_ROWS("free rigid body (so*(3))", body, body_y0, 1e-2, n)
  LB_ROWS("heavy top (se*(3))", top, top_y0, 1e-3, n)
  LB_ROWS("heavy top (SO(3) x R^3)", spatial, spatial_y0, 1e-3, n)
  LB_ROWS("double pendulum ((TS2)^2)", pendulum, pendulum_y0, 1e-3, n)
  LB_ROWS("two quadrotors + load", quad, quad_y0, 1e-3, n / 4)
  LB_ROWS("Lorenz (R^3)", lorenz, lorenz_y0, 1e-3, 4 * n)
#undef LB_ROWS
  std::printf("| (one core's FMA peak, %s) | | | | | | | %.1f | | |\n", sizeof(T) == 8 ? "double" : "float", peak / 1e9);
}

/// Lane occupancy packs of consecutive members would have without refilling: the members' attempts
/// over W times the most of any member in the pack, summed over packs.
template <class T> double occupancy_unrefilled(const lb::EnsembleOutput<T>& o, int W) {
  double used = 0, ran = 0;
  for (std::size_t p = 0; p < o.steps.size(); p += std::size_t(W)) {
    long most = 0;
    for (std::size_t i = p; i < std::min(o.steps.size(), p + std::size_t(W)); ++i) {
      used += double(o.steps[i] + o.rejected[i]);
      most = std::max(most, o.steps[i] + o.rejected[i]);
    }
    ran += double(W) * double(most);
  }
  return used / ran;
}

template <class Model> void adaptive_row(const char* name, const lb::Ensemble<Model>& e) {
  using T = typename Model::space::scalar;
  lb::RunOptions o;
  o.threads = 1;
  o.adaptive = true;
  lb::EnsembleOutput<T> a, b;
  o.simd = false;
  const double ts = best_of_two([&] { a = lb::run_cpu<lb::methods::rkmk54>(e, o); });
  o.simd = true;
  const double tp = best_of_two([&] { b = lb::run_cpu<lb::methods::rkmk54>(e, o); });
  long lo = b.steps[0], hi = b.steps[0];
  for (long s : b.steps) { lo = std::min(lo, s); hi = std::max(hi, s); }
  long same = 0;
  for (std::size_t i = 0; i < a.steps.size(); ++i) same += a.steps[i] == b.steps[i] && a.status[i] == b.status[i];
  std::printf("| %s | %s | %ld … %ld | %.3e | %.3e | %.2f | %.0f %% | %.0f %% | %ld of %zu |\n", name, sizeof(T) == 8 ? "double" : "float",
              lo, hi, double(e.size) / ts, double(e.size) / tp, ts / tp, 100 * b.lane_occupancy,
              100 * occupancy_unrefilled(b, lb::engine::PackOf<Model>::size), same, e.size);
}

template <class T> void adaptive_rows(std::size_t n) {
  // Random heavy tops: Π scaled by 0.2 … 5 (energies over a factor 600), Γ tilted at random.
  const auto top = lb::HeavyTop<T>::bruls_cardona();
  auto tops = ensemble(top, top.bruls_cardona_initial(), n, 0.5, 1e-3);
  for (std::size_t i = 0; i < n; ++i) {
    const double k = std::pow(25.0, 0.5 * (1 + std::sin(double(13 * i)))) / 5;  // 0.2 … 5
    for (int d = 0; d < 3; ++d) tops.y0[std::size_t(d) * n + i] *= T(k);
  }
  adaptive_row("heavy tops, momenta x0.2 … x5", tops);
  // Chaotic double pendulums released from rest at angles of up to 180° (q⁽¹⁾, q⁽²⁾ in the x–z plane).
  const lb::PendulumChain<T, 2> pendulum{{T(1), T(1)}, {T(1), T(1)}, T(9.81)};
  lb::Vec<T, 12> y0 = lb::Vec<T, 12>::zero();
  auto pendulums = ensemble(pendulum, y0, n, 5.0, 1e-3);
  for (std::size_t i = 0; i < n; ++i) {
    const double a1 = M_PI * std::abs(std::sin(double(3 * i + 1))), a2 = M_PI * std::abs(std::sin(double(5 * i + 2)));
    const double q[12] = {std::sin(a1), 0, -std::cos(a1), 0, 0, 0, std::sin(a2), 0, -std::cos(a2), 0, 0, 0};
    for (int d = 0; d < 12; ++d) pendulums.y0[std::size_t(d) * n + i] = T(q[d]);
  }
  adaptive_row("double pendulums from rest, angles 0 … 180°", pendulums);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::size_t(std::atol(argv[1])) : 4096;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 200;
  if (n < 64 || steps <= 0) {
    std::fprintf(stderr, "usage: bench_engine_packs [members >= 64] [steps > 0]\n");
    return 2;
  }
  std::printf("run_cpu on one thread, packs (%s) against one member at a time; %zu members (quadrotors: /4, Lorenz: x4) x %d "
              "fixed steps\n\n", lb::pack_arch().c_str(), n, steps);
  std::printf("| model | method | precision | one at a time (steps/s) | packs (steps/s) | packs / one at a time | FLOPs per step | "
              "packs GFLOP/s | of peak | packs vs one at a time |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|---|\n");
  fixed_rows<double>(n, steps);
  fixed_rows<float>(n, steps);
  std::printf("\nAdaptive RKMK(5,4) (tol 1e-8 double, 1e-5 float), %zu members, one thread:\n\n", n);
  std::printf("| ensemble | precision | steps per member | one at a time (members/s) | packs (members/s) | packs / one at a time | "
              "lane occupancy (lanes refilled) | packs of consecutive members, not refilled | members with the same steps and status |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|\n");
  adaptive_rows<double>(n);
  adaptive_rows<float>(n);
  return 0;
}
