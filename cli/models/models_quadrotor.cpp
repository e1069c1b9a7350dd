// Command-line entries: two quadrotors carrying a load under the load-transport controller
// ([CCLMO22 §6]), and the Lorenz system (an ODE on ℝ³ through the same engine).
#include <liebatch/models/load_transport.hpp>
#include <liebatch/models/lorenz.hpp>

#include "cli/models/entry_util.hpp"

namespace lb::cli {
namespace {

using Quadrotor = QuadrotorLoad<double, LoadTransport<double, ParabolicPath<double>>>;

/// The paper's system, controller and initial state.
Quadrotor paper_quadrotor() {
  return {QuadrotorLoadParams<double>::paper(), LoadTransport<double, ParabolicPath<double>>::paper(ParabolicPath<double>::paper())};
}

const Param<Quadrotor> quadrotor_params[] = {
    {"load_mass", 1, Domain::positive, "m_y", [](const Quadrotor& m, double* v) { *v = m.params.load_mass; },
     [](Quadrotor& m, const double* v) { m.params.load_mass = *v; }},
    {"masses", 2, Domain::positive, "[m1, m2]", [](const Quadrotor& m, double* v) { v[0] = m.params.mass[0], v[1] = m.params.mass[1]; },
     [](Quadrotor& m, const double* v) { m.params.mass[0] = v[0], m.params.mass[1] = v[1]; }},
    {"lengths", 2, Domain::positive, "[L1, L2]",
     [](const Quadrotor& m, double* v) { v[0] = m.params.length[0], v[1] = m.params.length[1]; },
     [](Quadrotor& m, const double* v) { m.params.length[0] = v[0], m.params.length[1] = v[1]; }},
    {"inertia", 3, Domain::positive, "[J1, J2, J3] of both quadrotors",
     [](const Quadrotor& m, double* v) { store3(m.params.inertia[0], v); },
     [](Quadrotor& m, const double* v) { m.params.inertia[0] = m.params.inertia[1] = load3(v); }},
    {"gravity", 1, Domain::positive, "g", [](const Quadrotor& m, double* v) { *v = m.params.gravity; },
     [](Quadrotor& m, const double* v) { m.params.gravity = *v; }},
    {"gains", 4, Domain::positive, "[k_y, k_v, k_q, k_w]",
     [](const Quadrotor& m, double* v) { v[0] = m.control.k_y, v[1] = m.control.k_v, v[2] = m.control.k_q, v[3] = m.control.k_w; },
     [](Quadrotor& m, const double* v) { m.control.k_y = v[0], m.control.k_v = v[1], m.control.k_q = v[2], m.control.k_w = v[3]; }},
    {"path", 10, Domain::finite, "[a (3), b (3), c (3), t0]: y_d = a + b s + c s^2, s = t - t0",
     [](const Quadrotor& m, double* v) {
       const auto& p = m.control.path;
       store3(p.a, v), store3(p.b, v + 3), store3(p.c, v + 6), v[9] = p.t0;
     },
     [](Quadrotor& m, const double* v) {
       m.control.path = {load3(v), load3(v + 3), load3(v + 6), v[9]};
     }},
    {"moments", 6, Domain::finite, "[M1 (3), M2 (3)] constant body moments",
     [](const Quadrotor& m, double* v) { store3(m.control.moment[0], v), store3(m.control.moment[1], v + 3); },
     [](Quadrotor& m, const double* v) { m.control.moment[0] = load3(v), m.control.moment[1] = load3(v + 3); }},
};

struct QuadrotorEntry {
  static constexpr const char* name = "quadrotor_load";
  template <class T> using model = QuadrotorLoad<T, LoadTransport<T, ParabolicPath<T>>>;
  static std::span<const Param<Quadrotor>> table() { return quadrotor_params; }
  static Quadrotor base(const std::string&) { return paper_quadrotor(); }
  static std::vector<double> initial(const Quadrotor&, const std::string&) {
    const auto y = QuadrotorLoadState<double>::paper_initial();
    return {y.v, y.v + 42};
  }
};

const Param<Lorenz<double>> lorenz_params[] = {
    member<&Lorenz<double>::sigma>("sigma", Domain::finite, "sigma"),
    member<&Lorenz<double>::rho>("rho", Domain::finite, "rho"),
    member<&Lorenz<double>::beta>("beta", Domain::finite, "beta"),
};

struct LorenzEntry {
  static constexpr const char* name = "lorenz";
  template <class T> using model = Lorenz<T>;
  static std::span<const Param<Lorenz<double>>> table() { return lorenz_params; }
  static Lorenz<double> base(const std::string&) { return {}; }
};

}  // namespace

void add_quadrotor_models(std::vector<ModelInfo>& v) {
  v.push_back(
      info<QuadrotorEntry>("two quadrotors carrying a point load on R^6 x (SO(3) x so(3))^2 x (TS2)^2 under the Lee-Sreenath-Kumar "
                           "load-transport controller ([CCLMO22 §6], [LSK13]); e3 points down",
                           "y (3), v (3), R1 (9), Omega1 (3), R2 (9), Omega2 (3), q1 (3), w1 (3), q2 (3), w2 (3)",
                           {"paper: the experiment of [CCLMO22 §6.2] (its authors' parameters and initial state; also the default)"}));
}

void add_lorenz_models(std::vector<ModelInfo>& v) {
  v.push_back(info<LorenzEntry>("the Lorenz system on R^3 under translation (classical RK through the same engine)", "(x, y, z)", {}));
}

}  // namespace lb::cli
