// The heavy top with a quadratic Hamiltonian on T*S, S = SO(3) × ℝ³ ([CCLMO22 §3.4.3], spatial
// form eqs (29)–(32)): the constant p = −M g X becomes a momentum conjugate to q ∈ ℝ³, and
//   π̇ = −e₃ × Qp,  Q̇ = ω̂ Q (ω = Q𝕀⁻¹Qᵀπ),  ṗ = 0,  q̇ = p − Qᵀe₃.
// State (Q, π, p, q) ∈ SO(3) × ℝ⁹ under SO(3) × ℝ⁹. With p = −M g X it is the same motion as the
// se*(3) and spatial forms; H = ½ Π·𝕀⁻¹Π − p·Qᵀe₃ is conserved.
#pragma once
#include "../group_space.hpp"
#include "../product.hpp"
#include "../so3.hpp"
#include "heavy_top.hpp"
#include "heavy_top_spatial.hpp"
#include "names.hpp"

namespace lb {

template <class T> struct HeavyTopQuadratic {
  using space = Product<GroupSpace<SO3<T>>, Euclidean<T, 9>>;
  static constexpr bool packs = true;  ///< runs on packs of members (docs/packs.md)
  using point = typename space::point;
  HeavyTop<T> top;  ///< inertia (mass, gravity and centre of mass enter through p)

  LB_HD static Mat3<T> Q(const point& y) { return Mat3<T>::from_flat(y.template seg<0, 9>()); }
  LB_HD static Vec3<T> pi(const point& y) { return y.template seg<9, 3>(); }
  LB_HD static Vec3<T> p(const point& y) { return y.template seg<12, 3>(); }
  /// The momentum of the (Q, π) block that SLGIKK steps: π.
  LB_HD static Vec3<T> mu(const point& y) { return pi(y); }
  /// Body variables (Π, Γ) = (Qᵀπ, Qᵀe₃).
  LB_HD static Vec6<T> body(const point& y) {
    const Mat3<T> Qt = Q(y).transpose();
    return concat(Qt * pi(y), Qt.col(2));
  }
  /// The state with attitude Q, body momenta Π, p = −M g X and q = 0.
  LB_HD point from_body(const Mat3<T>& Q, const Vec3<T>& Pi) const {
    point y;
    y.set_seg(0, Q.flat());
    y.set_seg(9, Q * Pi);
    y.set_seg(12, (-top.mass * top.gravity) * top.com);
    y.set_seg(15, Vec3<T>::zero());
    return y;
  }

  /// How far p is from −M g X, the constant the parameters give it (relative to |M g X|, at least
  /// 1): a state with another p is the motion of another top than the one its parameters name.
  LB_HD T parameter_defect(const point& y) const {
    const Vec3<T> mgx = (top.mass * top.gravity) * top.com;
    return norm(p(y) + mgx) / lb::max(T(1), norm(mgx));
  }
  /// y with p = −M g X.
  LB_HD point with_parameters(point y) const {
    y.set_seg(12, (-top.mass * top.gravity) * top.com);
    return y;
  }

  LB_HD Vec<T, 12> f(T /*t*/, const point& y) const {
    const Mat3<T> q = Q(y), qt = q.transpose();
    const Vec3<T> w = q * top.omega(concat(qt * pi(y), Vec3<T>::zero()));
    const Vec3<T> e3 = vec3(T(0), T(0), T(1));
    Vec<T, 12> r;
    r.set_seg(0, w);
    r.set_seg(3, -cross(e3, q * p(y)));
    r.set_seg(6, Vec3<T>::zero());
    r.set_seg(9, p(y) - qt.col(2));
    return r;
  }
  /// H = ½ Π·𝕀⁻¹Π − p·Qᵀe₃.
  LB_HD T energy(const point& y) const {
    const Vec6<T> b = body(y);
    return T(0.5) * dot(b.template seg<0, 3>(), top.omega(b)) - dot(p(y), b.template seg<3, 3>());
  }
  LB_HD Vec<T, 2> observables(const point& y) const { return {{energy(y), pi(y)[2]}}; }
  static std::vector<std::string> observable_names() { return {"energy", "pi_z"}; }
  static std::vector<std::string> state_names() {
    return names::join({names::matrix("Q"), names::xyz("pi"), names::xyz("p"), names::xyz("q")});
  }
  template <class U> LB_HD HeavyTopQuadratic<U> cast() const { return {top.template cast<U>()}; }

  /// SLGIKK's hooks (methods/slgi.hpp, [CCLMO22 §3.4.3]). dexp and Ad* of SO(3) × ℝ³ are block
  /// diagonal with identities on ℝ³ and f = (ω, p − Qᵀe₃; π × ω + Qp × e₃, 0), so p stays as it is
  /// and (Q, π) take the SLGI step of the spatial top with M g X = −p:
  LB_HD HeavyTopSpatial<T> cotangent_block(const point& y) const { return {HeavyTop<T>{top.inertia, -p(y), T(1), T(1)}}; }
  /// and q₁ = q₀ + h(p − Q_θᵀe₃), with Q_θ = exp(θξ)Q₀, a passive update that feeds nothing back.
  LB_HD static point cotangent_update(const point& y, const Mat3<T>& Q1, const Vec3<T>& pi1, const Mat3<T>& Q_theta, T h) {
    point out = y;
    out.set_seg(0, Q1.flat());
    out.set_seg(9, pi1);
    out.set_seg(15, y.template seg<15, 3>() + h * (p(y) - Q_theta.row(2)));  // Q_θᵀe₃ is Q_θ's third row
    return out;
  }
};

}  // namespace lb
