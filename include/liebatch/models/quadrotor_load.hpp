// Two quadrotors carrying a point mass on rigid massless links ([CCLMO22 §6], after [LLM18] and
// [LSK13]). The inertial e₃ points down (gravity +g e₃); quadrotor i sits at
// yᵢ = y − Lᵢ qᵢ, so qᵢ ∈ S² points from quadrotor i to the load.
//
// State P = (y, v, R₁, Ω₁, R₂, Ω₂, q₁, ω₁, q₂, ω₂) on ℝ⁶ × (SO(3) × so(3))² × (TS²)² (42 numbers),
// under ℝ⁶ × (SO(3) × ℝ³)² × SE(3)² ([CCLMO22 §6.1]). Inputs per quadrotor: the thrust uᵢ ∈ ℝ³ (inertial
// frame; only its split into uᵢ∥ along qᵢ and uᵢ⊥ enters) and the moment Mᵢ (body frame).
// Equations ([CCLMO22] eq. (37), solved for the rates; docs/spaces-and-models.md §8.4):
//   v̇  = g e₃ + M_q⁻¹ Σᵢ (uᵢ∥ − mᵢLᵢ|ωᵢ|² qᵢ),   M_q = m_y I + Σᵢ mᵢ qᵢqᵢᵀ,
//   JᵢΩ̇ᵢ = −Ωᵢ × JᵢΩᵢ + Mᵢ,
//   ω̇ᵢ = qᵢ × (v̇ − g e₃)/Lᵢ − qᵢ × uᵢ/(mᵢLᵢ)        (qᵢ × uᵢ⊥ = qᵢ × uᵢ),
// and f(P) = (v, v̇, R₁Ω₁, Ω̇₁, R₂Ω₂, Ω̇₂, ω₁, q₁ × ω̇₁, ω₂, q₂ × ω̇₂) ([CCLMO22 §6.1]).
// As in the paper's simplified model the thrust is applied directly: attitude does not steer it.
#pragma once
#include "../group_space.hpp"
#include "../mat3.hpp"
#include "../product.hpp"
#include "../so3.hpp"
#include "../tangent_sphere.hpp"
#include "names.hpp"

namespace lb {

/// Physical parameters of the load and the two quadrotors.
template <class T> struct QuadrotorLoadParams {
  T load_mass;        ///< m_y
  T mass[2];          ///< mᵢ
  T length[2];        ///< Lᵢ
  Vec3<T> inertia[2]; ///< principal moments of Jᵢ (body axes)
  T gravity;          ///< g > 0, along +e₃

  /// The values of the paper's experiment (its authors' code): m_y = 0.4, mᵢ = 0.755,
  /// L = (0.6, 0.8), J = diag(0.0820, 0.0845, 0.1377), g = 9.81.
  LB_HD static QuadrotorLoadParams paper() {
    const Vec3<T> J = vec3(T(0.0820), T(0.0845), T(0.1377));
    return {T(0.4), {T(0.755), T(0.755)}, {T(0.6), T(0.8)}, {J, J}, T(9.81)};
  }
  template <class U> LB_HD QuadrotorLoadParams<U> cast() const {
    return {U(load_mass), {U(mass[0]), U(mass[1])}, {U(length[0]), U(length[1])},
            {lb::cast<U>(inertia[0]), lb::cast<U>(inertia[1])}, U(gravity)};
  }
};

/// Control inputs: thrust uᵢ (inertial) and moment Mᵢ (body) of each quadrotor.
template <class T> struct QuadrotorInputs {
  Vec3<T> u[2];
  Vec3<T> M[2];
};

/// Where each part of the state lives in the 42-vector P.
template <class T> struct QuadrotorLoadState {
  using space = Product<Euclidean<T, 6>, Power<Product<GroupSpace<SO3<T>>, Euclidean<T, 3>>, 2>, Power<TS2<T>, 2>>;
  using point = typename space::point;
  static_assert(space::dim == 42, "P = (y, v, R₁, Ω₁, R₂, Ω₂, q₁, ω₁, q₂, ω₂)");

  LB_HD static Vec3<T> y(const point& P) { return P.template seg<0, 3>(); }
  LB_HD static Vec3<T> v(const point& P) { return P.template seg<3, 3>(); }
  LB_HD static Mat3<T> R(const point& P, int i) { return Mat3<T>::from_flat(P.template seg<9>(6 + 12 * i)); }
  LB_HD static Vec3<T> Omega(const point& P, int i) { return P.template seg<3>(15 + 12 * i); }
  LB_HD static Vec3<T> q(const point& P, int i) { return P.template seg<3>(30 + 6 * i); }
  LB_HD static Vec3<T> w(const point& P, int i) { return P.template seg<3>(33 + 6 * i); }
  /// Position of quadrotor i, yᵢ = y − Lᵢqᵢ.
  LB_HD static Vec3<T> position(const point& P, const QuadrotorLoadParams<T>& p, int i) {
    return y(P) - p.length[i] * q(P, i);
  }
  /// The state from its parts.
  LB_HD static point make(const Vec3<T>& y, const Vec3<T>& v, const Mat3<T> (&R)[2], const Vec3<T> (&Omega)[2],
                          const Vec3<T> (&q)[2], const Vec3<T> (&w)[2]) {
    point P;
    P.set_seg(0, y);
    P.set_seg(3, v);
    for (int i = 0; i < 2; ++i) {
      P.set_seg(6 + 12 * i, R[i].flat());
      P.set_seg(15 + 12 * i, Omega[i]);
      P.set_seg(30 + 6 * i, q[i]);
      P.set_seg(33 + 6 * i, w[i]);
    }
    return P;
  }
  /// The initial state of the paper's experiment (its authors' code): load at rest at (−2, 0, 0),
  /// Rᵢ = I, Ωᵢ = ωᵢ = 0, links at 80° from e₃ in the x–z plane, q = (±sin 80°, 0, cos 80°).
  LB_HD static point paper_initial() {
    const T a = T(80) * T(3.14159265358979323846) / T(180), s = lb::sin(a), c = lb::cos(a);
    const Mat3<T> I[2] = {Mat3<T>::identity(), Mat3<T>::identity()};
    const Vec3<T> z = Vec3<T>::zero(), zero2[2] = {z, z}, q[2] = {vec3(s, T(0), c), vec3(-s, T(0), c)};
    return make(vec3(T(-2), T(0), T(0)), z, I, zero2, q, zero2);
  }
};

/// Inputs that do not depend on time or state (tests, open-loop studies).
template <class T> struct ConstantInputs {
  QuadrotorInputs<T> inputs;
  LB_HD QuadrotorInputs<T> operator()(T, const QuadrotorLoadParams<T>&,
                                      const typename QuadrotorLoadState<T>::point&) const {
    return inputs;
  }
  template <class U> LB_HD ConstantInputs<U> cast() const {
    const auto& i = inputs;
    return {{{lb::cast<U>(i.u[0]), lb::cast<U>(i.u[1])}, {lb::cast<U>(i.M[0]), lb::cast<U>(i.M[1])}}};
  }
};

/// The two-quadrotor load system with a pluggable controller: `control(t, params, P)` returns
/// QuadrotorInputs<T> and runs inside f, so it is evaluated at every stage.
template <class T, class Control> struct QuadrotorLoad {
  using S = QuadrotorLoadState<T>;
  static constexpr bool packs = true;  ///< runs on packs of members (docs/packs.md)
  using space = typename S::space;
  using point = typename S::point;
  using alg = typename space::algebra::vec;
  QuadrotorLoadParams<T> params;
  Control control;

  /// The rates (v̇, Ω̇₁, Ω̇₂, ω̇₁, ω̇₂) under the given inputs.
  struct Rates {
    Vec3<T> dv, dOmega[2], dw[2];
  };
  LB_HD Rates rates(const point& P, const QuadrotorInputs<T>& in) const {
    const QuadrotorLoadParams<T>& p = params;
    const Vec3<T> e3 = vec3(T(0), T(0), T(1));
    Rates r;
    Vec3<T> b = Vec3<T>::zero(), q[2];
    for (int i = 0; i < 2; ++i) {
      q[i] = S::q(P, i);
      b += (dot(q[i], in.u[i]) - p.mass[i] * p.length[i] * norm2(S::w(P, i))) * q[i];
    }
    // M_q = m_y I + m₁q₁q₁ᵀ + m₂q₂q₂ᵀ is SPD with eigenvalues in [m_y, m_y + m₁ + m₂]: solve by
    // Sherman–Morrison twice, A₁ = m_y I + m₁q₁q₁ᵀ, A₁⁻¹x = (x − m₁(q₁·x)q₁/(m_y + m₁|q₁|²))/m_y.
    auto a1inv = [&](const Vec3<T>& x) {
      return (T(1) / p.load_mass) * (x - (p.mass[0] * dot(q[0], x) / (p.load_mass + p.mass[0] * norm2(q[0]))) * q[0]);
    };
    const Vec3<T> A1b = a1inv(b), A1q2 = a1inv(q[1]);
    const Vec3<T> acc = A1b - (p.mass[1] * dot(q[1], A1b) / (T(1) + p.mass[1] * dot(q[1], A1q2))) * A1q2;
    r.dv = p.gravity * e3 + acc;
    for (int i = 0; i < 2; ++i) {
      const Vec3<T> W = S::Omega(P, i), J = p.inertia[i];
      const Vec3<T> JW = vec3(J[0] * W[0], J[1] * W[1], J[2] * W[2]), m = in.M[i] - cross(W, JW);
      r.dOmega[i] = vec3(m[0] / J[0], m[1] / J[1], m[2] / J[2]);
      r.dw[i] = (T(1) / p.length[i]) * cross(q[i], acc) - (T(1) / (p.mass[i] * p.length[i])) * cross(q[i], in.u[i]);
    }
    return r;
  }

  LB_HD alg f(T t, const point& P) const {
    const Rates r = rates(P, control(t, params, P));
    alg xi;
    xi.set_seg(0, S::v(P));
    xi.set_seg(3, r.dv);
    for (int i = 0; i < 2; ++i) {
      xi.set_seg(6 + 6 * i, S::R(P, i) * S::Omega(P, i));  // Ṙ = RΩ̂ = (RΩ)^R
      xi.set_seg(9 + 6 * i, r.dOmega[i]);
      xi.set_seg(18 + 6 * i, S::w(P, i));
      xi.set_seg(21 + 6 * i, cross(S::q(P, i), r.dw[i]));
    }
    return xi;
  }

  /// Recorded at output samples: (|q₁| − 1, |q₂| − 1, q₁·ω₁, q₂·ω₂, ‖RᵢᵀRᵢ − I‖_max over i).
  LB_HD Vec<T, 5> observables(const point& P) const {
    T d = T(0);
    for (int i = 0; i < 2; ++i) {
      const Mat3<T> R = S::R(P, i), E = R.transpose() * R;
      for (int k = 0; k < 9; ++k) {
        const T x = lb::abs(E.m[k] - (k % 4 == 0 ? T(1) : T(0)));
        d = x > d ? x : d;
      }
    }
    return {{norm(S::q(P, 0)) - T(1), norm(S::q(P, 1)) - T(1), dot(S::q(P, 0), S::w(P, 0)),
             dot(S::q(P, 1), S::w(P, 1)), d}};
  }
  static std::vector<std::string> observable_names() { return {"|q1| - 1", "|q2| - 1", "q1.w1", "q2.w2", "max |RiTRi - I|"}; }
  static std::vector<std::string> state_names() {
    using namespace names;
    return join({xyz("y"), xyz("v"), matrix("R1"), xyz("Omega1"), matrix("R2"), xyz("Omega2"), xyz("q1"), xyz("w1"),
                 xyz("q2"), xyz("w2")});
  }
  /// The same system and controller in scalar U.
  template <class U> LB_HD auto cast() const {
    return QuadrotorLoad<U, decltype(control.template cast<U>())>{params.template cast<U>(), control.template cast<U>()};
  }
};

}  // namespace lb
