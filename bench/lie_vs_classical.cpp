// The price of the Lie machinery and what it buys, on the CPU: per-step cost of fourth-order Lie
// group methods on the manifold (RKMK4, RKMK4 with two commutators, CF4) against classical RK4 on
// the same model in embedding coordinates (Embedded<Model>, the same engine on ℝⁿ), measured in the
// same run; the FLOPs of each step, counted on the same code (flop_counter.hpp), so the time ratio
// can be read against the arithmetic ratio; and the drift of an invariant after 10⁵ steps. Then
// what the Lie machinery buys, priced: the time classical RK4 needs to hold the same invariant to
// 1e-13 over the same span (its step halved until it does) against RKMK4's time at h.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <type_traits>

#include "flop_counter.hpp"

#include <liebatch/liebatch.hpp>
#include <liebatch/models/embedded.hpp>
#include <liebatch/models/free_rigid_body.hpp>
#include <liebatch/models/heavy_top.hpp>
#include <liebatch/models/pendulum_chain.hpp>

#include <liebatch/ensemble/cpu.hpp>

namespace {

constexpr long steps = 100000;

/// The model M (possibly const) in embedding coordinates, for classical RK4.
template <class M> using Classical = lb::Embedded<std::remove_const_t<M>>;

/// Seconds per step of Method on model from y0 with step h, as the ensemble engine runs it:
/// run_cpu on one thread, 1024 members × 100 steps, integration time only, best of three runs.
/// (A bare loop over Method::step is at the mercy of inlining: the same RK4 step timed 26 or 40 ns.)
template <class Method, class Model, class P> double seconds_per_step(const Model& m, const P& y0, double h) {
  lb::Ensemble<Model> e;
  e.size = 1024;
  e.model.v = {m};
  e.t1.v = {100 * h};
  e.control.v[0].h = h;
  e.y0.resize(P::size * e.size);
  for (int d = 0; d < P::size; ++d) std::fill_n(e.y0.begin() + d * e.size, e.size, y0[d]);
  lb::RunOptions o;
  o.threads = 1;
  double best = 1e300;
  for (int run = 0; run < 3; ++run) {
    const auto out = lb::run_cpu<Method>(e, o);
    if (out.steps[0] != 100) std::fprintf(stderr, "lie_vs_classical: %ld steps, expected 100\n", out.steps[0]);
    best = std::min(best, out.integrate_seconds);
  }
  return best / (100.0 * double(e.size));
}

/// FLOPs of one step of Method on Problem's model (in the embedding coordinates with `embedded`).
template <class Method, class Problem, bool embedded> long flops() {
  using lb::bench::Counted;
  const auto m = Problem::template model<Counted>();
  Counted::reset();
  if constexpr (embedded) {
    (void)Method::step(Classical<decltype(m)>{m}, Counted(0), Problem::template y0<Counted>(), Counted(Problem::h));
  } else {
    (void)Method::step(m, Counted(0), Problem::template y0<Counted>(), Counted(Problem::h));
  }
  return Counted::flops();
}

struct Cost {
  double seconds;  ///< per step
  long flops;      ///< per step
  double drift;    ///< of the invariant after `steps` steps
};

/// Prints one row, Method on the manifold or (with `embedded`) in embedding coordinates, with its
/// ratios to `rk4` (none given: this row is the baseline), and returns its cost.
template <class Method, class Problem, bool embedded = false> Cost row(const char* method, Cost rk4 = {0, 0, 0}) {
  const auto m = Problem::template model<double>();
  const auto y0 = Problem::template y0<double>();
  Cost c{0, flops<Method, Problem, embedded>(), 0};
  auto measure = [&](const auto& model) {
    c.seconds = seconds_per_step<Method>(model, y0, Problem::h);
    c.drift = Problem::drift(lb::integrate_fixed<Method>(model, 0.0, Problem::h * steps, y0, Problem::h, steps + 1).y, y0);
  };
  if constexpr (embedded) {
    measure(Classical<decltype(m)>{m});
  } else {
    measure(m);
  }
  if (rk4.flops == 0) rk4 = c;
  std::printf("| %s | %s | %.0f | %.2f | %ld | %.2f | %.1e |\n", Problem::name, method, 1e9 * c.seconds,
              c.seconds / rk4.seconds, c.flops, double(c.flops) / double(rk4.flops), c.drift);
  return c;
}

/// The rows of Problem; returns RKMK4's cost.
template <class Problem> Cost compare() {
  using namespace lb::methods;
  const Cost rk4 = row<rkmk4, Problem, true>("classical RK4 (embedding)");
  const Cost lie = row<rkmk4, Problem>("RKMK4", rk4);
  row<rkmk4_commutators, Problem>("RKMK4, 2 commutators", rk4);
  row<cf4, Problem>("CF4", rk4);
  return lie;
}

/// The span T = 10⁵h with the invariant held to 1e-13: RKMK4 at h (its cost `rkmk4` from compare)
/// against classical RK4 at the largest h/2^k that holds it.
template <class Problem> void equal_invariant(const Cost& rkmk4) {
  using M = lb::methods::rkmk4;
  const auto m = Problem::template model<double>();
  const auto y0 = Problem::template y0<double>();
  const Classical<decltype(m)> classical{m};
  const double T = Problem::h * steps, bound = 1e-13;
  const double lie = rkmk4.seconds * steps, lie_drift = rkmk4.drift;
  for (int k = 0; k <= 8; ++k) {
    const long n = steps << k;
    const double h = T / double(n);
    const double drift = Problem::drift(lb::integrate_fixed<M>(classical, 0.0, T, y0, h, n + 1).y, y0);
    if (drift <= bound || k == 8) {
      const double rk = seconds_per_step<M>(classical, y0, h) * double(n);
      std::printf("| %s | %.1e (RKMK4, h) | %.1f | %.1e (RK4, h/%d) | %.1f | %.2f |\n", Problem::name, lie_drift, 1e3 * lie, drift,
                  1 << k, 1e3 * rk, lie / rk);
      return;
    }
  }
}

struct RigidBody {
  static constexpr const char* name = "free rigid body, so*(3), h = 0.01";
  static constexpr double h = 0.01;
  template <class T> static auto model() { return lb::FreeRigidBody<T>{lb::vec3(T(2), T(1), T(2) / T(3))}; }
  template <class T> static lb::Vec3<T> y0() { return lb::vec3(T(0.3), T(0.8), T(0.5)); }
  /// |μ| − |μ₀| (the Casimir).
  static double drift(const lb::Vec3<double>& y, const lb::Vec3<double>& y0) { return std::abs(lb::norm(y) - lb::norm(y0)); }
};
struct HeavyTop {
  static constexpr const char* name = "heavy top, se*(3), h = 1e-3";
  static constexpr double h = 1e-3;
  template <class T> static auto model() {
    return lb::HeavyTop<T>{lb::vec3(T(2), T(1.5), T(0.8)), lb::vec3(T(0.1), T(0.05), T(0.5)), T(1), T(9.81)};
  }
  template <class T> static lb::Vec6<T> y0() {
    const T n = T(std::sqrt(1.05));
    return lb::Vec6<T>{{T(0.5), T(1), T(2), T(0.2) / n, T(0.1) / n, T(1) / n}};
  }
  /// |Γ| − |Γ₀| (a Casimir).
  static double drift(const lb::Vec6<double>& y, const lb::Vec6<double>& y0) {
    return std::abs(lb::norm(y.seg<3, 3>()) - lb::norm(y0.seg<3, 3>()));
  }
};
struct DoublePendulum {
  static constexpr const char* name = "double pendulum, (TS2)^2, h = 1e-3";
  static constexpr double h = 1e-3;
  template <class T> static auto model() { return lb::PendulumChain<T, 2>{{T(1), T(1)}, {T(1), T(1)}, T(9.81)}; }
  template <class T> static lb::Vec<T, 12> y0() {
    const T s = T(std::sqrt(0.5));
    return lb::Vec<T, 12>{{s, T(0), s, T(0), T(1), T(0), s, T(0), s, T(0), T(1), T(0)}};
  }
  /// |q₁| − 1 (the constraint).
  static double drift(const lb::Vec<double, 12>& y, const lb::Vec<double, 12>&) { return std::abs(lb::norm(y.seg<0, 3>()) - 1); }
};

}  // namespace

int main() {
  std::printf("| model | method | ns/step | time / RK4 | FLOPs/step | FLOPs / RK4 | invariant drift, 1e5 steps |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|\n");
  const Cost rigid_body = compare<RigidBody>(), heavy_top = compare<HeavyTop>(), pendulum = compare<DoublePendulum>();
  std::printf("\nInvariant held to 1e-13 over T = 1e5 h: RKMK4 at h against classical RK4 at the largest h/2^k that holds it.\n\n");
  std::printf("| model | drift | RKMK4 time (ms) | drift | RK4 time (ms) | RKMK4 / RK4 |\n|---|---:|---:|---:|---:|---:|\n");
  equal_invariant<RigidBody>(rigid_body);
  equal_invariant<HeavyTop>(heavy_top);
  equal_invariant<DoublePendulum>(pendulum);
  return 0;
}
