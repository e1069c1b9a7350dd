// Command-line entries: two quadrotors carrying a load under the load-transport controller
// ([CCLMO22 §6]), and the Lorenz system (an ODE on ℝ³ through the same engine).
#include <liebatch/models/load_transport.hpp>
#include <liebatch/models/lorenz.hpp>

#include "entry_util.hpp"
#include "manifold.hpp"

namespace lb::cli {
namespace {

struct QuadrotorEntry {
  static constexpr const char* name = "quadrotor_load";
  static constexpr bool energy_levels = false;
  template <class T> using model = QuadrotorLoad<T, LoadTransport<T, ParabolicPath<T>>>;
  using point = Vec<double, 42>;
  using S = QuadrotorLoadState<double>;
  struct Params {
    QuadrotorLoadParams<double> sys;
    LoadTransport<double, ParabolicPath<double>> control;
  };
  static Params parse(Node* p, const std::string&) {
    Params r{QuadrotorLoadParams<double>::paper(), LoadTransport<double, ParabolicPath<double>>::paper(ParabolicPath<double>::paper())};
    r.sys.load_mass = positive(p, "load_mass", r.sys.load_mass);
    const auto m = positives(p, "masses", 2, {r.sys.mass[0], r.sys.mass[1]});
    const auto L = positives(p, "lengths", 2, {r.sys.length[0], r.sys.length[1]});
    const auto J = vec3_of(positives(p, "inertia", 3, {r.sys.inertia[0][0], r.sys.inertia[0][1], r.sys.inertia[0][2]}));
    for (int i = 0; i < 2; ++i) { r.sys.mass[i] = m[i]; r.sys.length[i] = L[i]; r.sys.inertia[i] = J; }
    r.sys.gravity = positive(p, "gravity", r.sys.gravity);
    const auto k = positives(p, "gains", 4, {r.control.k_y, r.control.k_v, r.control.k_q, r.control.k_w});
    r.control.k_y = k[0]; r.control.k_v = k[1]; r.control.k_q = k[2]; r.control.k_w = k[3];
    if (p && p->has("path")) {
      const auto c = p->numbers("path", 10);
      r.control.path = {vec3(c[0], c[1], c[2]), vec3(c[3], c[4], c[5]), vec3(c[6], c[7], c[8]), c[9]};
    }
    if (p && p->has("moments")) {
      const auto M = p->numbers("moments", 6);
      r.control.moment[0] = vec3(M[0], M[1], M[2]);
      r.control.moment[1] = vec3(M[3], M[4], M[5]);
    }
    return r;
  }
  template <class T> static model<T> build(const Params& p) {
    model<T> m;
    m.params.load_mass = T(p.sys.load_mass);
    m.params.gravity = T(p.sys.gravity);
    for (int i = 0; i < 2; ++i) {
      m.params.mass[i] = T(p.sys.mass[i]);
      m.params.length[i] = T(p.sys.length[i]);
      m.params.inertia[i] = cast<T>(p.sys.inertia[i]);
      m.control.r[i] = cast<T>(p.control.r[i]);
      m.control.moment[i] = cast<T>(p.control.moment[i]);
    }
    const auto& c = p.control;
    m.control.path = {cast<T>(c.path.a), cast<T>(c.path.b), cast<T>(c.path.c), T(c.path.t0)};
    m.control.k_y = T(c.k_y); m.control.k_v = T(c.k_v); m.control.k_q = T(c.k_q); m.control.k_w = T(c.k_w);
    m.control.s = cast<T>(c.s);
    return m;
  }
  static std::vector<double> initial(const Params&) {
    const auto y = S::paper_initial();
    return {y.v, y.v + 42};
  }
  static double defect(const Params&, const point& y) {
    double d = 0;
    for (int i = 0; i < 2; ++i)
      d = std::max({d, rotation_defect(S::R(y, i)), unit_defect(S::q(y, i)), tangent_defect(S::q(y, i), S::w(y, i))});
    return d;
  }
  static point project(const Params&, point y) {
    for (int i = 0; i < 2; ++i) {
      y.set_seg(6 + 12 * i, orthonormalize(S::R(y, i)).flat());
      const auto q = (1 / norm(S::q(y, i))) * S::q(y, i), w = S::w(y, i);
      y.set_seg(30 + 6 * i, q);
      y.set_seg(33 + 6 * i, w - dot(q, w) * q);
    }
    return y;
  }
  static std::vector<std::string> state_names(const Params&) {
    std::vector<std::string> v;
    for (const char* c : {"y", "v"})
      for (const char* a : {"x", "y", "z"}) v.push_back(std::string(c) + "_" + a);
    for (int i = 1; i <= 2; ++i) {
      for (const char* r : {"x", "y", "z"})
        for (const char* c : {"x", "y", "z"}) v.push_back("R" + std::to_string(i) + "_" + r + c);
      for (const char* a : {"x", "y", "z"}) v.push_back("Omega" + std::to_string(i) + "_" + a);
    }
    for (int i = 1; i <= 2; ++i)
      for (const char* c : {"q", "w"})
        for (const char* a : {"x", "y", "z"}) v.push_back(std::string(c) + std::to_string(i) + "_" + a);
    return v;
  }
  static std::vector<std::string> obs_names(const Params&) {
    return {"|q1| - 1", "|q2| - 1", "q1.w1", "q2.w2", "max |RiTRi - I|"};
  }
};

struct LorenzEntry {
  static constexpr const char* name = "lorenz";
  static constexpr bool energy_levels = false;
  template <class T> using model = Lorenz<T>;
  using point = Vec3<double>;
  using Params = Lorenz<double>;
  static Params parse(Node* p, const std::string&) {
    return {number(p, "sigma", 10.0), number(p, "rho", 28.0), number(p, "beta", 8.0 / 3)};
  }
  template <class T> static model<T> build(const Params& p) { return {T(p.sigma), T(p.rho), T(p.beta)}; }
  static std::vector<double> initial(const Params&) { return {}; }
  static double defect(const Params&, const point&) { return 0; }
  static point project(const Params&, const point& y) { return y; }
  static std::vector<std::string> state_names(const Params&) { return {"x", "y", "z"}; }
  static std::vector<std::string> obs_names(const Params&) { return {}; }
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
  v.push_back(info<LorenzEntry>("the Lorenz system on R^3 under translation (classical RK through the same engine)",
                                "(x, y, z)", {"sigma (default 10)", "rho (default 28)", "beta (default 8/3)"}, {}));
}

}  // namespace lb::cli
