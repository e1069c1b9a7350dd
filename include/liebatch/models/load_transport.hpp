// The load-transport controller of Lee, Sreenath & Kumar [LSK13], the one [CCLMO22 §6.2] uses
// (its ref. [29]), for two quadrotors and a point load (QuadrotorLoad). Equation numbers are theirs.
//
// Load: F = m_y(−k_y e_y − k_v ė_y + ÿ_d − g e₃) (16), e_y = y − y_d. Each link carries
// μᵢ = cᵢ (F·qᵢ) qᵢ with cᵢ = 1/((rᵢ·e₃)|r₁ + r₂|) (19), which sums to F in formation, and
//   uᵢ∥ = mᵢLᵢ|ωᵢ|² qᵢ + μᵢ + (mᵢ/m_y) qᵢqᵢᵀ(μ₁ + μ₂)                         (12),
// which makes the load acceleration exactly ÿ = (μ₁ + μ₂)/m_y + g e₃ (13) whatever the qᵢ.
// Formation: the frame Q = [−F̂²s/|F̂²s|, −F̂s/|F̂s|, −F/|F|] (17) carries the directions rᵢ to
// q_id = Q rᵢ (18); ω_id = q_id × q̇_id, e_q = q_id × qᵢ, e_ω = ωᵢ + qᵢ × (qᵢ × ω_id) (23), and
//   uᵢ⊥ = mᵢLᵢ qᵢ × (−k_q e_q − k_ω e_ω − (qᵢ·ω_id) q̇ᵢ − qᵢ × (qᵢ × ω̇_id)) − (mᵢ/m_y) qᵢ × (qᵢ × μⱼ),
// which turns the link equation into ω̇ᵢ = (I − qᵢqᵢᵀ)(−k_q e_q − k_ω e_ω − (qᵢ·ω_id) q̇ᵢ − qᵢ × (qᵢ × ω̇_id)) (24).
// q̇_id and q̈_id need Ḟ and F̈: along the closed loop ÿ is (13) and y⃛ = (μ̇₁ + μ̇₂)/m_y, both exact.
// The attitude is not controlled (as in the paper's experiment); the moments Mᵢ are constants.
#pragma once
#include "quadrotor_load.hpp"

namespace lb {

/// A vector with its first two time derivatives.
template <class T> struct Jet3 {
  Vec3<T> x, d1, d2;
};
template <class T> LB_HD Jet3<T> cross(const Jet3<T>& a, const Jet3<T>& b) {
  return {cross(a.x, b.x), cross(a.d1, b.x) + cross(a.x, b.d1),
          cross(a.d2, b.x) + T(2) * cross(a.d1, b.d1) + cross(a.x, b.d2)};
}
/// x/|x| and its derivatives: with r = |x|, n = x/r, ṙ = n·ẋ, ṅ = (ẋ − ṙn)/r, r̈ = ṅ·ẋ + n·ẍ,
/// n̈ = (ẍ − r̈n − 2ṙṅ)/r.
template <class T> LB_HD Jet3<T> normalize(const Jet3<T>& a) {
  const T r = norm(a.x), ir = T(1) / r;
  const Vec3<T> n = ir * a.x;
  const T dr = dot(n, a.d1);
  const Vec3<T> dn = ir * (a.d1 - dr * n);
  const T ddr = dot(dn, a.d1) + dot(n, a.d2);
  return {n, dn, ir * (a.d2 - ddr * n - (T(2) * dr) * dn)};
}

/// The desired load path y_d(t) = a + b s + c s², s = t − t₀, with derivatives up to order 4.
/// paper(): y_d = (t − 2.5, 0, (t − 2.5)² − 7) (e₃ down: the load climbs to 7 at t = 2.5).
template <class T> struct ParabolicPath {
  Vec3<T> a, b, c;
  T t0;
  /// (y_d, ẏ_d, ÿ_d, y⃛_d, y⃜_d) at t.
  LB_HD void operator()(T t, Vec3<T> (&d)[5]) const {
    const T s = t - t0;
    d[0] = a + s * b + (s * s) * c;
    d[1] = b + (T(2) * s) * c;
    d[2] = T(2) * c;
    d[3] = d[4] = Vec3<T>::zero();
  }
  LB_HD static ParabolicPath paper() {
    return {vec3(T(0), T(0), T(-7)), vec3(T(1), T(0), T(0)), vec3(T(0), T(0), T(1)), T(2.5)};
  }
  template <class U> LB_HD ParabolicPath<U> cast() const { return {lb::cast<U>(a), lb::cast<U>(b), lb::cast<U>(c), U(t0)}; }
};

template <class T, class Path> struct LoadTransport {
  using S = QuadrotorLoadState<T>;
  static constexpr bool packs = true;  ///< runs on packs of members (docs/packs.md)
  Path path;           ///< desired load path y_d(t) with 4 derivatives
  T k_y, k_v;          ///< load position and velocity gains (16)
  T k_q, k_w;          ///< link direction and rate gains (23)
  Vec3<T> r[2];        ///< formation directions in the frame Q; r₁ + r₂ ∥ e₃
  Vec3<T> s;           ///< fixes the first two axes of Q (17)
  Vec3<T> moment[2];   ///< constant moments Mᵢ (attitude is not controlled)

  /// The gains, formation (rᵢ = (±sin 30°, 0, cos 30°), s = −e₂) and moments Mᵢ = (1, 1, 1) of
  /// the paper's experiment (its authors' code).
  LB_HD static LoadTransport paper(const Path& p) {
    const T c = lb::sqrt(T(3)) / T(2);
    const Vec3<T> one = vec3(T(1), T(1), T(1));
    return {p, T(12), T(5), T(16), T(5), {vec3(T(0.5), T(0), c), vec3(T(-0.5), T(0), c)},
            vec3(T(0), T(-1), T(0)), {one, one}};
  }
  /// The same controller in scalar U (its path too).
  template <class U> LB_HD auto cast() const {
    return LoadTransport<U, decltype(path.template cast<U>())>{
        path.template cast<U>(), U(k_y), U(k_v), U(k_q), U(k_w), {lb::cast<U>(r[0]), lb::cast<U>(r[1])},
        lb::cast<U>(s), {lb::cast<U>(moment[0]), lb::cast<U>(moment[1])}};
  }

  /// What the controller steers towards at (t, P).
  struct Reference {
    Vec3<T> yd[5];   ///< y_d and its derivatives
    Vec3<T> F;       ///< desired force on the load (16)
    Vec3<T> mu[2];   ///< μᵢ (19)
    Jet3<T> qd[2];   ///< q_id, q̇_id, q̈_id (18)
  };
  LB_HD Reference reference(T t, const QuadrotorLoadParams<T>& p, const typename S::point& P) const {
    const Vec3<T> e3 = vec3(T(0), T(0), T(1));
    const T my = p.load_mass;
    Reference ref;
    path(t, ref.yd);
    Vec3<T> q[2], dq[2];
    T c[2];
    for (int i = 0; i < 2; ++i) {
      q[i] = S::q(P, i);
      dq[i] = cross(S::w(P, i), q[i]);
      c[i] = T(1) / (dot(r[i], e3) * norm(r[0] + r[1]));
    }
    const Vec3<T> ey = S::y(P) - ref.yd[0], dey = S::v(P) - ref.yd[1];
    Jet3<T> F;
    F.x = my * (ref.yd[2] - k_y * ey - k_v * dey - p.gravity * e3);
    for (int i = 0; i < 2; ++i) ref.mu[i] = (c[i] * dot(F.x, q[i])) * q[i];
    const Vec3<T> ddey = (T(1) / my) * (ref.mu[0] + ref.mu[1]) + p.gravity * e3 - ref.yd[2];  // (13)
    F.d1 = my * (ref.yd[3] - k_y * dey - k_v * ddey);
    Vec3<T> dmu = Vec3<T>::zero();
    for (int i = 0; i < 2; ++i)
      dmu += c[i] * ((dot(F.d1, q[i]) + dot(F.x, dq[i])) * q[i] + dot(F.x, q[i]) * dq[i]);
    const Vec3<T> dddey = (T(1) / my) * dmu - ref.yd[3];
    F.d2 = my * (ref.yd[4] - k_y * ddey - k_v * dddey);
    ref.F = F.x;
    // Q's columns (17) as jets; s is constant.
    const Jet3<T> sj{s, Vec3<T>::zero(), Vec3<T>::zero()};
    const Jet3<T> Fs = cross(F, sj), FFs = cross(F, Fs);
    const Jet3<T> cols[3] = {normalize(FFs), normalize(Fs), normalize(F)};  // each up to the sign −
    for (int i = 0; i < 2; ++i) {
      Jet3<T>& d = ref.qd[i];
      d.x = d.d1 = d.d2 = Vec3<T>::zero();
      for (int j = 0; j < 3; ++j) {
        d.x -= r[i][j] * cols[j].x;
        d.d1 -= r[i][j] * cols[j].d1;
        d.d2 -= r[i][j] * cols[j].d2;
      }
    }
    return ref;
  }

  LB_HD QuadrotorInputs<T> operator()(T t, const QuadrotorLoadParams<T>& p, const typename S::point& P) const {
    const Reference ref = reference(t, p, P);
    const T my = p.load_mass;
    QuadrotorInputs<T> in;
    for (int i = 0; i < 2; ++i) {
      const Vec3<T> q = S::q(P, i), w = S::w(P, i), dq = cross(w, q);
      const T mL = p.mass[i] * p.length[i];
      const Vec3<T> par = (mL * norm2(w)) * q + ref.mu[i] + (p.mass[i] / my * dot(q, ref.mu[0] + ref.mu[1])) * q;
      const Jet3<T>& d = ref.qd[i];
      const Vec3<T> wd = cross(d.x, d.d1), dwd = cross(d.x, d.d2);
      const Vec3<T> eq = cross(d.x, q), ew = w + cross(q, cross(q, wd));
      const Vec3<T> lin = -k_q * eq - k_w * ew - dot(q, wd) * dq - cross(q, cross(q, dwd));
      const Vec3<T> perp = mL * cross(q, lin) - (p.mass[i] / my) * cross(q, cross(q, ref.mu[1 - i]));
      in.u[i] = par + perp;
      in.M[i] = moment[i];
    }
    return in;
  }
};

}  // namespace lb
