// The state-dependent, non-commuting test problems of the method tests, in any precision:
// free rigid body on so*(3), heavy top on se*(3), double spherical pendulum on (TS²)², and the
// controlled two-quadrotor load (time-dependent) on ℝ⁶ × (SO(3) × so(3))² × (TS²)².
#pragma once
#include <cmath>
#include <limits>

#include <liebatch/constrained_system.hpp>
#include <liebatch/liebatch.hpp>
#include <liebatch/models/constrained_heavy_top.hpp>
#include <liebatch/models/free_rigid_body.hpp>
#include <liebatch/models/heavy_top.hpp>
#include <liebatch/models/heavy_top_spatial.hpp>
#include <liebatch/models/load_transport.hpp>
#include <liebatch/models/pendulum_chain.hpp>

namespace lbtest {

struct RigidBodyProblem {
  static constexpr const char* name = "free rigid body on so*(3)";
  static constexpr double t_end = 2.0;
  template <class T> static lb::FreeRigidBody<T> model() { return {lb::vec3(T(2), T(1), T(2) / T(3))}; }
  /// A generic point (not on a symmetry axis or the separatrix): rkmk5 is asymptotic from h = 0.1.
  template <class T> static lb::Vec3<T> y0() { return lb::vec3(T(0.3), T(0.8), T(0.5)); }
};

struct HeavyTopProblem {
  static constexpr const char* name = "heavy top on se*(3)";
  static constexpr double t_end = 1.0;
  template <class T> static lb::HeavyTop<T> model() {
    return {lb::vec3(T(2), T(1.5), T(0.8)), lb::vec3(T(0.1), T(0.05), T(0.5)), T(1), T(9.81)};
  }
  template <class T> static lb::Vec6<T> y0() {
    using std::sqrt;
    const T n = sqrt(T(0.05) + T(1));
    return lb::Vec6<T>{{T(0.5), T(1), T(2), T(0.2) / n, T(0.1) / n, T(1) / n}};
  }
};

/// The heavy top of HeavyTopProblem in the spatial T*SO(3) form, with Q(0) taking Γ to e₃.
struct SpatialHeavyTopProblem {
  static constexpr const char* name = "heavy top on SO(3) x R^3 (spatial)";
  static constexpr double t_end = 1.0;
  template <class T> static lb::HeavyTopSpatial<T> model() { return {HeavyTopProblem::model<T>()}; }
  template <class T> static auto y0() {
    using std::atan2;
    const auto y = HeavyTopProblem::y0<T>();
    const lb::Vec3<T> G = y.template seg<3, 3>(), e3 = lb::vec3(T(0), T(0), T(1)), ax = lb::cross(G, e3);
    const T angle = atan2(lb::norm(ax), lb::dot(G, e3));  // rotation about Γ × e₃ taking Γ to e₃
    const auto Q = lb::SO3<T>::exp((angle / lb::norm(ax)) * ax).R;
    return lb::HeavyTopSpatial<T>::from_body(Q, y.template seg<0, 3>());
  }
};

/// The Brüls–Cardona top as a constrained body in SE(3) (issue 18), for HEDOP5: its own ensemble
/// (case_ensemble's rotations would leave the constraint manifold), 256 members with Ω₀ scaled
/// componentwise by 1 + 0.05 sin(7i + k), λ₀ completed by ConstrainedSystem::initial; t_end = 0.25,
/// so that the fixed step t_end/100 is inside HEDOP5's stability limit (h ≤ 1/110).
struct ConstrainedTopProblem {
  static constexpr const char* name = "heavy top in SE(3), constrained";
  static constexpr double t_end = 0.25;
  static constexpr int multipliers = 3;
  /// How far two roundings of one fixed-step run of size h may put λ apart (ensemble_cases.hpp,
  /// Part): a stage solve S Λ = B(V/(h a) − M⁻¹g) turns a rounding difference ε|V| of the velocity
  /// into ε‖S⁻¹‖‖B‖|V|/(h|a|), with S = χ̂J_c⁻¹χ̂ᵀ + I/m ⪰ I/m (‖S⁻¹‖ ≤ m = 15), ‖B‖ ≤ 1 + |χ| = 2,
  /// |V| = |Ω|√(1 + |χ|²) ≤ 1.05·150·√2 and |a| ≥ |a₈₇| = 3280/75413, the smallest a_{i+1,i}.
  static double lambda_bound(double h) {
    return std::numeric_limits<double>::epsilon() * 15 * 2 * (1.05 * 150 * std::sqrt(2.0)) / (h * 3280.0 / 75413.0);
  }
  template <class T> static lb::ConstrainedSystem<lb::ConstrainedHeavyTop<T>> model() {
    return {lb::ConstrainedHeavyTop<T>::bruls_cardona()};
  }
  template <class T> static typename decltype(model<T>())::point y0(std::size_t i) {
    const auto m = model<T>();
    lb::Vec3<T> w;
    const T w0[3] = {T(0), T(150), T(-4.61538)};
    for (int k = 0; k < 3; ++k) w[k] = w0[k] * (T(1) + T(0.05) * T(std::sin(double(7 * i + std::size_t(k)))));
    return m.initial(m.system.configuration(lb::Mat3<T>::identity()), m.system.velocity(w));
  }
};

struct DoublePendulumProblem {
  static constexpr const char* name = "double spherical pendulum on (TS2)^2";
  static constexpr double t_end = 1.0;
  template <class T> static lb::PendulumChain<T, 2> model() { return {{T(1), T(1)}, {T(1), T(1)}, T(9.81)}; }
  /// [CCLMO22 §5.3]: (qᵢ, ωᵢ) = (√2/2, 0, √2/2, 0, 1, 0).
  template <class T> static lb::Vec<T, 12> y0() {
    using std::sqrt;
    const T s = sqrt(T(2)) / T(2);
    return lb::Vec<T, 12>{{s, T(0), s, T(0), T(1), T(0), s, T(0), s, T(0), T(1), T(0)}};
  }
};

/// [CCLMO22 §6.2]: two quadrotors carrying a load under the load-transport controller.
struct QuadrotorLoadProblem {
  static constexpr const char* name = "two quadrotors + load on R^6 x (SO(3) x so(3))^2 x (TS2)^2";
  static constexpr double t_end = 1.0;
  template <class T> static auto model() {
    using Path = lb::ParabolicPath<T>;
    return lb::QuadrotorLoad<T, lb::LoadTransport<T, Path>>{lb::QuadrotorLoadParams<T>::paper(),
                                                            lb::LoadTransport<T, Path>::paper(Path::paper())};
  }
  template <class T> static auto y0() { return lb::QuadrotorLoadState<T>::paper_initial(); }
};

}  // namespace lbtest
