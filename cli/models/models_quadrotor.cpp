// Command-line entries: two quadrotors carrying a load under the load-transport controller
// ([CCLMO22 §6]), and the Lorenz system (an ODE on ℝ³ through the same engine).
#include <liebatch/models/load_transport.hpp>
#include <liebatch/models/lorenz.hpp>

#include "cli/models/entry_util.hpp"

namespace lb::cli {
namespace {

struct QuadrotorEntry {
  static constexpr const char* name = "quadrotor_load";
  template <class T> using model = QuadrotorLoad<T, LoadTransport<T, ParabolicPath<T>>>;
  /// Over the paper's system, controller and initial state.
  static Parsed<model<double>> parse(Node* p, const std::string&) {
    model<double> r{QuadrotorLoadParams<double>::paper(),
                    LoadTransport<double, ParabolicPath<double>>::paper(ParabolicPath<double>::paper())};
    auto& sys = r.params;
    auto& control = r.control;
    sys.load_mass = positive(p, "load_mass", sys.load_mass);
    const auto m = positives(p, "masses", 2, {sys.mass[0], sys.mass[1]});
    const auto L = positives(p, "lengths", 2, {sys.length[0], sys.length[1]});
    const auto J = vec3_of(positives(p, "inertia", 3, {sys.inertia[0][0], sys.inertia[0][1], sys.inertia[0][2]}));
    for (int i = 0; i < 2; ++i) {
      sys.mass[i] = m[i];
      sys.length[i] = L[i];
      sys.inertia[i] = J;
    }
    sys.gravity = positive(p, "gravity", sys.gravity);
    const auto k = positives(p, "gains", 4, {control.k_y, control.k_v, control.k_q, control.k_w});
    control.k_y = k[0];
    control.k_v = k[1];
    control.k_q = k[2];
    control.k_w = k[3];
    if (p && p->has("path")) {
      const auto c = p->numbers("path", 10);
      control.path = {vec3(c[0], c[1], c[2]), vec3(c[3], c[4], c[5]), vec3(c[6], c[7], c[8]), c[9]};
    }
    if (p && p->has("moments")) {
      const auto M = p->numbers("moments", 6);
      control.moment[0] = vec3(M[0], M[1], M[2]);
      control.moment[1] = vec3(M[3], M[4], M[5]);
    }
    const auto y = QuadrotorLoadState<double>::paper_initial();
    return {r, {y.v, y.v + 42}};
  }
};

struct LorenzEntry {
  static constexpr const char* name = "lorenz";
  template <class T> using model = Lorenz<T>;
  static Parsed<Lorenz<double>> parse(Node* p, const std::string&) {
    return {{number(p, "sigma", 10.0), number(p, "rho", 28.0), number(p, "beta", 8.0 / 3)}, {}};
  }
};

}  // namespace

void add_quadrotor_models(std::vector<ModelInfo>& v) {
  v.push_back(info<QuadrotorEntry>(
      "two quadrotors carrying a point load on R^6 x (SO(3) x so(3))^2 x (TS2)^2 under the Lee-Sreenath-Kumar "
      "load-transport controller ([CCLMO22 §6], [LSK13]); e3 points down",
      "y (3), v (3), R1 (9), Omega1 (3), R2 (9), Omega2 (3), q1 (3), w1 (3), q2 (3), w2 (3)",
      {"load_mass (default 0.4)", "masses: [m1, m2] (default [0.755, 0.755])", "lengths: [L1, L2] (default [0.6, 0.8])",
       "inertia: [J1, J2, J3] of both quadrotors (default [0.082, 0.0845, 0.1377])", "gravity (default 9.81)",
       "gains: [k_y, k_v, k_q, k_w] (default [12, 5, 16, 5])",
       "path: [a (3), b (3), c (3), t0]: y_d = a + b s + c s^2, s = t - t0 (default the paper's parabola)",
       "moments: [M1 (3), M2 (3)] constant body moments (default all 1, as in the paper)"},
      {"paper: the experiment of [CCLMO22 §6.2] (its authors' parameters and initial state; also the default)"}));
}

void add_lorenz_models(std::vector<ModelInfo>& v) {
  v.push_back(info<LorenzEntry>("the Lorenz system on R^3 under translation (classical RK through the same engine)", "(x, y, z)",
                                {"sigma (default 10)", "rho (default 28)", "beta (default 8/3)"}, {}));
}

}  // namespace lb::cli
