// The price of HEDOP5 on the CPU (issue 18's benchmark): the Brüls–Cardona top ([CCLMO22 §3.4.4],
// from [BC10]) as a constrained body in SE(3) (ConstrainedSystem<ConstrainedHeavyTop>, state
// (R, x, Ω, U, λ), [ArnHE] §5) stepped by HEDOP5, against the same physical tops on se*(3)
// (HeavyTop, (Π, Γ)) stepped by RKMK5 and RKMK4 ([MK99]), through run_cpu:
//   - ns per member-step of an ensemble of perturbed tops at h = 1/400 (inside HEDOP5's stability
//     limit h ≈ 1/110), on one thread and on all, each run ≥ 1 s: RKMK on packs and one member at a
//     time; HEDOP5 always one member at a time (its constrained system does not run on packs);
//   - FLOPs per step counted on the same step code (flop_counter.hpp), hence GFLOP/s and the
//     fraction of the FMA peak measured in the same run (fma_peak.hpp).
// The error each method buys with that cost is examples/constrained_top.cpp's (docs/constrained.md §8).
// Usage: bench_constrained_cost [members (4096)]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <type_traits>

#include <liebatch/constrained_system.hpp>
#include <liebatch/ensemble/cpu.hpp>
#include <liebatch/methods/half_explicit.hpp>
#include <liebatch/methods/methods.hpp>
#include <liebatch/models/constrained_heavy_top.hpp>
#include <liebatch/models/heavy_top.hpp>

#include "flop_counter.hpp"
#include "fma_peak.hpp"
#include "timing.hpp"

namespace {

using Top = lb::HeavyTop<double>;
using Body = lb::ConstrainedSystem<lb::ConstrainedHeavyTop<double>>;
constexpr double h = 1.0 / 400;

/// n perturbed Brüls–Cardona tops in both forms, member i the same physical top: attitude
/// R = exp(0.05 ξ̂), ξ ∈ [−1, 1]³, angular velocity s ω₀, s ∈ [0.95, 1.05] (fixed seed).
struct Tops {
  lb::Ensemble<Top> top;
  lb::Ensemble<Body> body;
};
Tops tops(std::size_t n) {
  const Top t = Top::bruls_cardona();
  const Top::point y0 = t.bruls_cardona_initial();
  const Body b{lb::ConstrainedHeavyTop<double>::from_heavy_top(t)};
  Tops e;
  e.top.size = e.body.size = n;
  e.top.model.v = {t};
  e.body.model.v = {b};
  e.top.y0.resize(Top::point::size * n);
  e.body.y0.resize(Body::point::size * n);
  std::mt19937_64 rng(20261126);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::size_t i = 0; i < n; ++i) {
    const auto R = lb::SO3<double>::exp(0.05 * lb::vec3(u(rng), u(rng), u(rng))).R;
    const double s = 1 + 0.05 * u(rng);
    // se*(3): Π = s Π₀ (Π = I Ω is linear in Ω), Γ = Rᵀe₃; SE(3): q = (R, R X), v = (Ω, Ω × X).
    Top::point y = y0;
    y.set_seg(0, s * y0.seg<0, 3>());
    y.set_seg(3, R.row(2));
    const Body::point z = b.initial(b.system.configuration(R), b.system.velocity(s * t.omega(y0)));
    for (int d = 0; d < Top::point::size; ++d) e.top.y0[std::size_t(d) * n + i] = y[d];
    for (int d = 0; d < Body::point::size; ++d) e.body.y0[std::size_t(d) * n + i] = z[d];
  }
  return e;
}

/// ns per member-step of e with steps of h, the step count grown until a run takes ≥ 1 s (every
/// member must end ok: a failed member would take fewer steps and flatter the cost).
template <class Method, class Model> double ns_per_step(lb::Ensemble<Model> e, const lb::RunOptions& o) {
  for (long steps = 4;;) {
    e.t1.v = {double(steps) * h};
    e.control.v[0].h = h;
    lb::EnsembleOutput<double> out;
    const double s = lb::bench::seconds([&] { out = lb::run_cpu<Method>(e, o); });
    for (auto st : out.status)
      if (st != std::uint8_t(lb::Status::ok)) {
        std::fprintf(stderr, "bench_constrained_cost: a member ended with status %d\n", int(st));
        std::exit(1);
      }
    if (s >= 1) {
      double work = 0;
      for (long k : out.steps) work += double(k);
      return 1e9 * s / work;
    }
    steps = long(std::ceil(double(steps) * std::min(8.0, 1.2 / s)));
  }
}

/// FLOPs of one step of Method from member 0 of e, counted on the step code in a counting scalar.
template <class Method, class Model> long flops_per_step(const lb::Ensemble<Model>& e) {
  using C = lb::bench::Counted;
  const auto m = e.model[0].template cast<C>();
  typename std::remove_cvref_t<decltype(m)>::point y;
  for (int d = 0; d < Model::point::size; ++d) y[d] = C(e.y0[std::size_t(d) * e.size]);
  C::reset();
  (void)Method::step(m, C(0), y, C(h));
  return C::flops();
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 4096;
  if (n == 0) {
    std::fprintf(stderr, "usage: bench_constrained_cost [members > 0]\n");
    return 2;
  }
  const Tops e = tops(n);
  const int all = int(std::thread::hardware_concurrency());
  const double peak1 = lb::bench::fma_peak<double>(1), peak_all = lb::bench::fma_peak<double>(all);
  std::printf("HEDOP5 in SE(3) against RKMK on se*(3): %zu perturbed Brüls–Cardona tops, h = 1/400, double\n\n", n);
  std::printf("| method | model (numbers per state) | lanes | FLOPs per step | ns per step, 1 thread | GFLOP/s (of peak) | ns per step, %d threads | GFLOP/s (of peak) |\n",
              all);
  std::printf("|---|---|---|---|---|---|---|---|\n");
  double hedop5 = 0;
  auto row = [&](const char* name, const char* model, int size, bool simd, long flops, auto&& cost) {
    lb::RunOptions one;
    one.threads = 1;
    one.simd = simd;
    lb::RunOptions every = one;
    every.threads = all;
    const double a = cost(one), b = cost(every);
    if (hedop5 == 0) hedop5 = a;
    std::printf("| %s | %s (%d) | %s | %ld | %.0f | %.2f (%.1f %%) | %.1f | %.2f (%.1f %%) |\n", name, model, size,
                simd ? "packs" : "1", flops, a, flops / a, 100 * flops / a * 1e9 / peak1, b, flops / b,
                100 * flops / b * 1e9 / peak_all);
    return a;
  };
  const long fh = flops_per_step<lb::methods::hedop5>(e.body), f5 = flops_per_step<lb::methods::rkmk5>(e.top),
             f4 = flops_per_step<lb::methods::rkmk4>(e.top);
  row("hedop5", "body in SE(3)", Body::point::size, false, fh, [&](auto& o) { return ns_per_step<lb::methods::hedop5>(e.body, o); });
  const double r5 = row("rkmk5", "top on se*(3)", Top::point::size, false, f5, [&](auto& o) { return ns_per_step<lb::methods::rkmk5>(e.top, o); });
  const double r5p = row("rkmk5", "top on se*(3)", Top::point::size, true, f5, [&](auto& o) { return ns_per_step<lb::methods::rkmk5>(e.top, o); });
  row("rkmk4", "top on se*(3)", Top::point::size, true, f4, [&](auto& o) { return ns_per_step<lb::methods::rkmk4>(e.top, o); });
  std::printf("\nFMA peak: %.1f GFLOP/s on 1 thread, %.1f on %d. One thread: HEDOP5 costs %.1f× RKMK5's step one member "
              "at a time and %.1f× RKMK5 on packs; %.1f× the FLOPs.\n",
              peak1 / 1e9, peak_all / 1e9, all, hedop5 / r5, hedop5 / r5p, double(fh) / double(f5));
  return 0;
}
