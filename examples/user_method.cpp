// Adding your own method: Ralston's third-order Runge–Kutta method [Ral62] (a 3-stage family other
// than Kutta's and the SSP one of the library) as an RKMK method, written in this file alone.
//   user_method                 runs it as an ensemble on the CPU engine and measures its order on
//                               the heavy top, a non-commuting problem;
//   user_method COMMAND ...     is the `liebatch` command with the method in its list (for the
//                               heavy top and the free rigid body), e.g. `user_method list methods`
//                               or `user_method converge examples/configs/user_method.json`.
// A tableau is exact rationals: a (strictly lower triangular), b, c, the order, and (here none) an
// embedded b̂ with its order. lb::RKMK<tableau> makes it a Lie group method: stages in the algebra,
// dexp⁻¹ applied, every stage moved by the group action ([MK98]).
#include <cmath>
#include <cstdio>

#include <liebatch/ensemble/cpu.hpp>
#include <liebatch/liebatch.hpp>
#include <liebatch/models/free_rigid_body.hpp>
#include <liebatch/models/heavy_top.hpp>

#include "cli/commands/commands.hpp"
#include "cli/models/methods.hpp"

namespace user {
constexpr lb::Rational O{0, 1};
/// Ralston's method: c = (0, 1/2, 3/4), b = (2/9, 1/3, 4/9), the minimum-error-bound third-order choice.
inline constexpr lb::Tableau<3> ralston3{
    {{O, O, O}, {{1, 2}, O, O}, {O, {3, 4}, O}}, {{2, 9}, {1, 3}, {4, 9}}, {O, {1, 2}, {3, 4}}, 3, {O, O, O}, 0};
using rkmk3_ralston = lb::RKMK<ralston3>;
}  // namespace user

/// 64 heavy tops to t = 1 with fixed step h: the final states.
template <class Method> lb::EnsembleOutput<double> tops(double h) {
  lb::Ensemble<lb::HeavyTop<double>> e;
  e.size = 64;
  e.model.v = {{lb::vec3(2.0, 1.5, 0.8), lb::vec3(0.1, 0.05, 0.5), 1.0, 9.81}};
  e.y0.resize(6 * e.size);
  for (std::size_t i = 0; i < e.size; ++i) {
    const double a = 0.05 * double(i);
    e.y0[0 * e.size + i] = 0.5 + std::sin(a);
    e.y0[1 * e.size + i] = 1.0;
    e.y0[2 * e.size + i] = 2.0 - std::cos(a);
    e.y0[3 * e.size + i] = std::sin(a) * 0.6;
    e.y0[5 * e.size + i] = std::sqrt(1 - std::pow(std::sin(a) * 0.6, 2));
  }
  e.control.v[0].h = h;
  return lb::run_cpu<Method>(e, lb::RunOptions{});
}

double max_difference(const lb::EnsembleOutput<double>& a, const lb::EnsembleOutput<double>& b) {
  double d = 0;
  for (std::size_t k = 0; k < a.y.size(); ++k) d = std::fmax(d, std::fabs(a.y[k] - b.y[k]));
  return d;
}

int main(int argc, char** argv) {
  if (argc > 1) {
    lb::cli::add_method<user::rkmk3_ralston, lb::HeavyTop, lb::FreeRigidBody>("rkmk3_ralston", "RKMK, Ralston's third order");
    return lb::cli::cli_main(argc, argv);
  }
  const auto ref = tops<lb::methods::rkmk5>(1.0 / 2048);  // fifth order: error ~1e-16 against ours
  std::printf("RKMK with Ralston's third-order tableau on 64 heavy tops, t in [0, 1]\n");
  double previous = 0, order = 0;
  for (int k = 0; k < 4; ++k) {
    const double h = 0.02 / std::pow(2.0, k), err = max_difference(tops<user::rkmk3_ralston>(h), ref);
    if (k > 0) order = std::log2(previous / err);
    std::printf("  h = %.5f  error %.3e%s\n", h, err, k > 0 ? ("  observed order " + std::to_string(order)).c_str() : "");
    previous = err;
  }
  const bool third = std::fabs(order - 3) < 0.15;
  std::printf("%s: order %.3f (theory 3)\n", third ? "ok" : "FAILED", order);
  return third ? 0 : 1;
}
