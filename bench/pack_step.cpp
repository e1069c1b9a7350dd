// The step code on packs of members (issue 16, item 1): one core integrating members one at a time
// with the scalar step, and W at a time in the lanes of lb::Pack<T>, the same Method::step, in one
// run and one binary (the packs' flags: LIEBATCH_SIMD, -ffp-contract=off, for both). No engine
// around it (no samples, statuses or adaptive control): what packing the step itself gives, the
// ceiling of the packed engine. Achieved GFLOP/s from the FLOPs counted on the same step code
// (flop_counter.hpp), against the core's measured FMA peak.
// Usage: bench_pack_step [members per case (8192)] [steps (200)]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <liebatch/methods/methods.hpp>
#include <liebatch/models/heavy_top.hpp>
#include <liebatch/models/lorenz.hpp>
#include <liebatch/models/pendulum_chain.hpp>
#include <liebatch/pack.hpp>

#include "flop_counter.hpp"
#include "fma_peak.hpp"
#include "timing.hpp"

namespace {

/// Members' states, structure-of-arrays: component d of member i at [d·n + i].
template <class T> struct Soa {
  std::size_t n;
  std::vector<T> y;
};

/// n members near y0 (each component scaled by 1 ± 5 %, deterministic), so lanes differ.
template <class T, class Y> Soa<T> members(const Y& y0, std::size_t n) {
  Soa<T> s{n, std::vector<T>(std::size_t(Y::size) * n)};
  for (std::size_t i = 0; i < n; ++i)
    for (int d = 0; d < Y::size; ++d) s.y[std::size_t(d) * n + i] = T(double(y0[d]) * (1 + 0.05 * std::sin(double(7 * i + d))));
  return s;
}

/// The step of step k, read from memory so that the compiler cannot hoist h's products with the
/// tableau's coefficients out of the step loop (an engine's step varies; the FLOP count is per step).
template <class T> struct Steps {
  T h[2];
  T operator()(int k) const { return h[k & 1]; }
};

/// Every member stepped `steps` times, one at a time.
template <class Method, class Model, class T> void scalar_run(const Model& m, Soa<T>& s, int steps, Steps<T> h) {
  using Y = typename Model::space::point;
  for (std::size_t i = 0; i < s.n; ++i) {
    Y y;
    for (int d = 0; d < Y::size; ++d) y[d] = s.y[std::size_t(d) * s.n + i];
    T t = T(0);
    for (int k = 0; k < steps; ++k) {
      const T hk = h(k);
      y = Method::step(m, t, y, hk).y;
      t += hk;
    }
    for (int d = 0; d < Y::size; ++d) s.y[std::size_t(d) * s.n + i] = y[d];
  }
}

/// The same, W members at a time in the lanes of a pack (n a multiple of W).
template <class Method, class Model, class T> void packed_run(const Model& m, Soa<T>& s, int steps, Steps<T> h) {
  using P = lb::Pack<T>;
  constexpr int W = P::size;
  const auto mp = m.template cast<P>();
  using Y = typename decltype(mp)::space::point;
  for (std::size_t i = 0; i < s.n; i += W) {
    Y y;
    for (int d = 0; d < Y::size; ++d) y[d] = P::load(&s.y[std::size_t(d) * s.n + i]);
    P t = T(0);
    for (int k = 0; k < steps; ++k) {
      const P hk = h(k);
      y = Method::step(mp, t, y, hk).y;
      t += hk;
    }
    for (int d = 0; d < Y::size; ++d) y[d].store(&s.y[std::size_t(d) * s.n + i]);
  }
}

template <class T> double max_rel(const Soa<T>& a, const Soa<T>& b) {
  double e = 0;
  for (std::size_t k = 0; k < a.y.size(); ++k) e = std::max(e, std::abs(double(a.y[k]) - double(b.y[k])) / std::max(1.0, std::abs(double(b.y[k]))));
  return e;
}

template <class Method, class T, class Model, class Y>
void row(const char* name, const char* method, const Model& m, const Y& y0, double h, std::size_t n, int steps, double peak) {
  Soa<T> a = members<T>(y0, n), b = a;
  volatile T hv = T(h);  // opaque to the compiler: the runs cannot fold h
  const Steps<T> hs{{hv, hv}};
  const double ts = lb::bench::seconds([&] { scalar_run<Method>(m, a, steps, hs); });
  const double tp = lb::bench::seconds([&] { packed_run<Method>(m, b, steps, hs); });
  const double work = double(n) * steps, flops = lb::bench::flops_per_step<Method>(m, y0, h);
  std::printf("| %s | %s | %s | %d | %.3e | %.3e | %.2f | %.0f | %.1f (%.1f %%) | %.1e |\n", name, method,
              sizeof(T) == 8 ? "double" : "float", lb::Pack<T>::size, work / ts, work / tp, ts / tp, flops,
              flops * work / tp / 1e9, 100 * flops * work / tp / peak, max_rel(b, a));
}

template <class T> void rows(std::size_t n, int steps) {
  const double peak = lb::bench::fma_peak<T>(1);
  const auto top = lb::HeavyTop<T>::bruls_cardona();
  const auto top_y0 = top.bruls_cardona_initial();
  const lb::PendulumChain<T, 2> pendulum{{T(1), T(1)}, {T(1), T(1)}, T(9.81)};
  const T s = std::sqrt(T(2)) / T(2);
  const auto pendulum_y0 = lb::Vec<T, 12>{{s, T(0), s, T(0), T(1), T(0), s, T(0), s, T(0), T(1), T(0)}};
  const lb::Lorenz<T> lorenz{T(10), T(21), T(8) / T(3)};
  const auto lorenz_y0 = lb::Vec<T, 3>{{T(1), T(0), T(0)}};
  row<lb::methods::rkmk4, T>("heavy top (se*(3))", "rkmk4", top, top_y0, 1e-3, n, steps, peak);
  row<lb::methods::cf4, T>("heavy top (se*(3))", "cf4", top, top_y0, 1e-3, n, steps, peak);
  row<lb::methods::rkmk54, T>("heavy top (se*(3))", "rkmk54", top, top_y0, 1e-3, n, steps, peak);
  row<lb::methods::rkmk4, T>("double pendulum ((TS2)^2)", "rkmk4", pendulum, pendulum_y0, 1e-3, n, steps, peak);
  row<lb::methods::cf4, T>("double pendulum ((TS2)^2)", "cf4", pendulum, pendulum_y0, 1e-3, n, steps, peak);
  row<lb::methods::rkmk4, T>("Lorenz (R^3)", "rkmk4", lorenz, lorenz_y0, 1e-3, n, steps, peak);
  std::printf("| (one core's FMA peak, %s) | | | | | | | | %.1f | |\n", sizeof(T) == 8 ? "double" : "float", peak / 1e9);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::size_t(std::atol(argv[1])) : 8192;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 200;
  if (n == 0 || n % 64 != 0 || steps <= 0) {
    std::fprintf(stderr, "usage: bench_pack_step [members, a multiple of 64] [steps > 0]\n");
    return 2;
  }
  std::printf("Step code on one core, %zu members x %d steps per case, packs: %s\n\n", n, steps, xsimd::default_arch::name());
  std::printf("| model | method | precision | W | scalar (steps/s) | packed (steps/s) | packed / scalar | FLOPs per step | packed GFLOP/s (of peak) | max rel. difference |\n");
  std::printf("|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  rows<double>(n, steps);
  rows<float>(n, steps);
  return 0;
}
