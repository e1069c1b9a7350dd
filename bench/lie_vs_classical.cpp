// The price of the Lie machinery and what it buys, on the CPU: per-step cost of RKMK4 on the
// manifold against classical RK4 on the same model in embedding coordinates (Embedded<Model>,
// the same engine on ℝⁿ), measured in the same run, and the drift of each one's invariants after
// 10⁵ steps. One thread.
#include <chrono>
#include <cmath>
#include <cstdio>

#include <liebatch/liebatch.hpp>
#include <liebatch/models/embedded.hpp>
#include <liebatch/models/free_rigid_body.hpp>
#include <liebatch/models/heavy_top.hpp>
#include <liebatch/models/pendulum_chain.hpp>

namespace {

volatile double sink;

/// Seconds per step of Method on model from y0, over `steps` steps.
template <class Method, class Model, class P> double seconds_per_step(const Model& m, const P& y0, double h, long steps) {
  P y = y0;
  const auto a = std::chrono::steady_clock::now();
  for (long n = 0; n < steps; ++n) y = Method::step(m, double(n) * h, y, h).y;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
  sink = y[0];
  return s / double(steps);
}

template <class Model, class P, class Drift>
void compare(const char* name, const Model& m, const P& y0, double h, Drift&& drift) {
  using M = lb::methods::rkmk4;
  const lb::Embedded<Model> classical{m};
  const long steps = 100000;
  const double lie = seconds_per_step<M>(m, y0, h, steps), rk = seconds_per_step<M>(classical, y0, h, steps);
  const auto a = lb::integrate_fixed<M>(m, 0.0, h * steps, y0, h, steps + 1);
  const auto b = lb::integrate_fixed<M>(classical, 0.0, h * steps, y0, h, steps + 1);
  std::printf("%-28s %9.0f ns %9.0f ns %6.2f   %-9s %8.1e  %8.1e\n", name, 1e9 * lie, 1e9 * rk, lie / rk, drift.name,
              drift(a.y, y0), drift(b.y, y0));
}

struct CasimirDrift {
  const char* name = "|mu|";
  double operator()(const lb::Vec3<double>& y, const lb::Vec3<double>& y0) const { return std::abs(lb::norm(y) - lb::norm(y0)); }
};
struct GammaDrift {
  const char* name = "|Gamma|";
  double operator()(const lb::Vec6<double>& y, const lb::Vec6<double>& y0) const {
    return std::abs(lb::norm(y.seg<3, 3>()) - lb::norm(y0.seg<3, 3>()));
  }
};
struct LinkDrift {
  const char* name = "|q1|";
  double operator()(const lb::Vec<double, 12>& y, const lb::Vec<double, 12>&) const { return std::abs(lb::norm(y.seg<0, 3>()) - 1); }
};

}  // namespace

int main() {
  std::printf("%-28s %12s %12s %6s   %-9s %9s %9s\n", "model (RK4 family, 1e5 steps)", "RKMK4/step", "RK4/step", "ratio",
              "invariant", "RKMK4", "RK4");
  compare("free rigid body, so*(3)", lb::FreeRigidBody<double>{lb::vec3(2.0, 1.0, 2.0 / 3)}, lb::vec3(0.3, 0.8, 0.5), 0.01,
          CasimirDrift{});
  const lb::HeavyTop<double> top{lb::vec3(2.0, 1.5, 0.8), lb::vec3(0.1, 0.05, 0.5), 1.0, 9.81};
  const double n = std::sqrt(1.05);
  compare("heavy top, se*(3)", top, lb::Vec6<double>{{0.5, 1, 2, 0.2 / n, 0.1 / n, 1 / n}}, 1e-3, GammaDrift{});
  const lb::PendulumChain<double, 2> chain{{1, 1}, {1, 1}, 9.81};
  const double s = std::sqrt(0.5);
  compare("double pendulum, (TS2)^2", chain, lb::Vec<double, 12>{{s, 0, s, 0, 1, 0, s, 0, s, 0, 1, 0}}, 1e-3, LinkDrift{});
  return 0;
}
