// CPU throughput: trajectory-steps per second per model × method × precision, on one thread and on
// all threads, fixed steps, the same run_cpu the command line uses.
// Usage: bench_cpu_throughput [members (4096)] [steps (200)]
#include <cstdio>
#include <cstdlib>
#include <string>

#include <liebatch/liebatch.hpp>
#include <liebatch/models/free_rigid_body.hpp>
#include <liebatch/models/heavy_top.hpp>
#include <liebatch/models/lorenz.hpp>
#include <liebatch/models/pendulum_chain.hpp>

#include <liebatch/ensemble/cpu.hpp>
#include "timing.hpp"

namespace {

/// n copies of y (SoA), slightly rotated about e₃ per member so no two are identical.
template <class Model> lb::Ensemble<Model> ensemble(const Model& m, const typename Model::space::point& y, std::size_t n,
                                                    int steps) {
  using T = typename Model::space::scalar;
  lb::Ensemble<Model> e;
  e.size = n;
  e.model.v = {m};
  e.t1.v = {T(1)};
  lb::StepControl<T> c;
  c.h = T(1) / T(steps);
  c.max_attempts = steps + 1;
  e.control.v = {c};
  constexpr int dim = Model::space::dim;
  e.y0.resize(std::size_t(dim) * n);
  for (std::size_t i = 0; i < n; ++i) {
    const T a = T(1e-4) * T(i);
    for (int d = 0; d < dim; ++d) e.y0[std::size_t(d) * n + i] = y[d] * (T(1) + (d % 3 == 0 ? a : T(0)));
  }
  return e;
}

template <class Method, class Model>
void row(const char* model, const char* method, const char* precision, const Model& m, const typename Model::space::point& y,
         std::size_t n, int steps) {
  const auto e = ensemble(m, y, n, steps);
  double rate[2];
  for (int k = 0; k < 2; ++k) {
    lb::RunOptions o;
    o.threads = k == 0 ? 1 : 0;
    rate[k] = double(n) * steps / lb::bench::seconds([&] { (void)lb::run_cpu<Method>(e, o); });
  }
  std::printf("| %s | %s | %s | %.3e | %.3e | %.2f |\n", model, method, precision, rate[0], rate[1], rate[1] / rate[0]);
}

template <class T> void model_rows(std::size_t n, int steps, const char* prec) {
  using namespace lb::methods;
  const lb::HeavyTop<T> top{lb::vec3(T(2), T(1.5), T(0.8)), lb::vec3(T(0.1), T(0.05), T(0.5)), T(1), T(9.81)};
  const lb::Vec6<T> yt{{T(0.5), T(1), T(2), T(0.2), T(0.1), T(0.974679)}};
  row<rkmk4>("heavy top", "rkmk4", prec, top, yt, n, steps);
  row<cf4>("heavy top", "cf4", prec, top, yt, n, steps);
  row<rkmk54>("heavy top", "rkmk54 (fixed)", prec, top, yt, n, steps);
  const T s = T(0.7071067811865476);
  const lb::PendulumChain<T, 2> p2{{T(1), T(1)}, {T(1), T(1)}, T(9.81)};
  const lb::Vec<T, 12> yp{{s, T(0), s, T(0), T(1), T(0), s, T(0), s, T(0), T(1), T(0)}};
  row<rkmk4>("double pendulum", "rkmk4", prec, p2, yp, n, steps);
  row<cf4>("double pendulum", "cf4", prec, p2, yp, n, steps);
  row<rkmk4>("free rigid body", "rkmk4", prec, lb::FreeRigidBody<T>{lb::vec3(T(2), T(1), T(2) / T(3))}, lb::vec3(T(0.3), T(0.8), T(0.5)), n, steps);
  row<rkmk4>("lorenz", "rkmk4 (= RK4)", prec, lb::Lorenz<T>{}, lb::vec3(T(1), T(1), T(1)), n, steps);
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 4096;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 200;
  std::printf("%zu members x %d fixed steps; all threads = %d\n\n", n, steps, lb::cpu_threads(0));
  std::printf("| model | method | precision | 1 thread (traj-steps/s) | all threads | speed-up |\n|---|---|---|---|---|---|\n");
  model_rows<double>(n, steps, "double");
  model_rows<float>(n, steps, "float");
  return 0;
}
