// The N-fold spherical pendulum on (TS²)ᴺ under SE(3)ᴺ ([CCLMO22 §5]): a chain hanging from the
// origin, link i of length Lᵢ ending in a point mass mᵢ, gravity g along −e₃; state (qᵢ, ωᵢ),
// |qᵢ| = 1, qᵢ·ωᵢ = 0, q̇ᵢ = ωᵢ × qᵢ.
//
// Euler–Lagrange on (S²)ᴺ gives ω̇ = h with R(q) h = F ([CCLMO22 §5.2], the equation before (35)):
//   R_ii = M_ii I, R_ij = M_ij q̂ᵢᵀq̂ⱼ,  M_ij = μ_max(i,j) LᵢLⱼ,  μ_k = Σ_{l≥k} m_l,
//   Fᵢ = Σ_{j≠i} M_ij |ωⱼ|² qᵢ × qⱼ − g Lᵢ μᵢ qᵢ × e₃,
// and f = (ωᵢ, zᵢ) ∈ se(3)ᴺ with zᵢ = qᵢ × hᵢ. No dense 3N×3N solve is needed: for tangent h,
// R = Dᵀ(M⊗I)D with D = diag(q̂ᵢ), so (M⊗I) z = a + Λq with aᵢ = qᵢ × Fᵢ and multipliers λᵢ fixed
// by qᵢ·zᵢ = 0. M = L CᵀD_m C L (C lower-triangular ones) has a tridiagonal inverse, so λ solves an
// SPD tridiagonal system (M⁻¹ ∘ qqᵀ) λ = −(qᵢ·(M⁻¹a)ᵢ): O(N) per evaluation (Thomas algorithm).
// Derivation: docs/spaces-and-models.md §8.3.
#pragma once
#include "../product.hpp"
#include "../tangent_sphere.hpp"
#include "names.hpp"

namespace lb {

template <class T, int N> struct PendulumChain {
  static_assert(N >= 1, "a chain needs at least one link");
  static constexpr bool packs = true;  ///< runs on packs of members (docs/packs.md)
  using space = Power<TS2<T>, N>;
  using point = typename space::point;
  using alg = typename space::algebra::vec;
  T mass[N];    ///< mᵢ
  T length[N];  ///< Lᵢ
  T gravity;    ///< g > 0, along −e₃

  LB_HD Vec3<T> q(const point& y, int i) const { return y.template seg<3>(6 * i); }
  LB_HD Vec3<T> w(const point& y, int i) const { return y.template seg<3>(6 * i + 3); }

  /// (M⁻¹)_{i,i+d} for d ∈ {−1, 0, 1}: (S⁻¹)_{ij}/(LᵢLⱼ), S⁻¹ = C⁻¹ diag(1/m) C⁻ᵀ.
  LB_HD T minv(int i, int d) const {
    if (d == 0) return (T(1) / mass[i] + (i > 0 ? T(1) / mass[i - 1] : T(0))) / (length[i] * length[i]);
    const int j = i + d, lo = i < j ? i : j;
    return -T(1) / (mass[lo] * length[i] * length[j]);
  }

  LB_HD alg f(T /*t*/, const point& y) const {
    // μ_k, and Fᵢ through a prefix and a suffix sum (O(N) instead of O(N²)).
    T mu[N];
    mu[N - 1] = mass[N - 1];
    for (int k = N - 2; k >= 0; --k) mu[k] = mu[k + 1] + mass[k];
    Vec3<T> a[N];
    {
      Vec3<T> below = Vec3<T>::zero();  // Σ_{j<i} Lⱼ|ωⱼ|² qⱼ
      Vec3<T> above = Vec3<T>::zero();  // Σ_{j>i} μⱼ Lⱼ|ωⱼ|² qⱼ
      for (int j = 1; j < N; ++j) above += (mu[j] * length[j] * norm2(w(y, j))) * q(y, j);
      const Vec3<T> e3 = vec3(T(0), T(0), T(1));
      for (int i = 0; i < N; ++i) {
        const Vec3<T> qi = q(y, i);
        const Vec3<T> s = length[i] * (mu[i] * below + above) - (gravity * length[i] * mu[i]) * e3;
        a[i] = cross(qi, cross(qi, s));  // aᵢ = qᵢ × Fᵢ, Fᵢ = qᵢ × s
        below += (length[i] * norm2(w(y, i))) * qi;
        if (i + 1 < N) above -= (mu[i + 1] * length[i + 1] * norm2(w(y, i + 1))) * q(y, i + 1);
      }
    }
    // r = M⁻¹a; tridiagonal SPD system for λ; z = M⁻¹(a + Λq).
    auto apply_minv = [&](const Vec3<T>* x, int i) {
      Vec3<T> r = minv(i, 0) * x[i];
      if (i > 0) r += minv(i, -1) * x[i - 1];
      if (i + 1 < N) r += minv(i, 1) * x[i + 1];
      return r;
    };
    T diag[N]{}, off[N]{}, rhs[N]{};  // off[i] couples i and i+1
    for (int i = 0; i < N; ++i) {
      diag[i] = minv(i, 0);
      off[i] = i + 1 < N ? minv(i, 1) * dot(q(y, i), q(y, i + 1)) : T(0);
      rhs[i] = -dot(q(y, i), apply_minv(a, i));
    }
    for (int i = 1; i < N; ++i) {  // Thomas: forward elimination
      const T m = off[i - 1] / diag[i - 1];
      diag[i] -= m * off[i - 1];
      rhs[i] -= m * rhs[i - 1];
    }
    T lambda[N];
    lambda[N - 1] = rhs[N - 1] / diag[N - 1];
    for (int i = N - 2; i >= 0; --i) lambda[i] = (rhs[i] - off[i] * lambda[i + 1]) / diag[i];
    for (int i = 0; i < N; ++i) a[i] += lambda[i] * q(y, i);
    alg out;
    for (int i = 0; i < N; ++i) {
      out.set_seg(6 * i, w(y, i));
      out.set_seg(6 * i + 3, apply_minv(a, i));
    }
    return out;
  }

  /// y with every ωᵢ scaled by λ (kinetic energy × λ², configuration kept).
  LB_HD point scale_velocity(point y, T lambda) const {
    for (int i = 0; i < N; ++i) y.set_seg(6 * i + 3, lambda * w(y, i));
    return y;
  }
  /// Total energy T + U with T = ½ Σ M_ij q̇ᵢ·q̇ⱼ and U = g Σᵢ mᵢ zᵢ (zᵢ the height of mass i).
  LB_HD T energy(const point& y) const {
    Vec3<T> x = Vec3<T>::zero(), v = Vec3<T>::zero();
    T e = T(0);
    for (int i = 0; i < N; ++i) {
      x += length[i] * q(y, i);
      v += length[i] * cross(w(y, i), q(y, i));
      e += mass[i] * (T(0.5) * norm2(v) + gravity * x[2]);
    }
    return e;
  }
  /// Recorded at output samples: (energy, max |1 − |qᵢ||, max |qᵢ·ωᵢ|).
  LB_HD Vec<T, 3> observables(const point& y) const {
    T dq = T(0), qw = T(0);
    for (int i = 0; i < N; ++i) {
      const T a = lb::abs(T(1) - norm(q(y, i))), b = lb::abs(dot(q(y, i), w(y, i)));
      dq = a > dq ? a : dq;
      qw = b > qw ? b : qw;
    }
    return {{energy(y), dq, qw}};
  }
  static std::vector<std::string> observable_names() { return {"energy", "max ||q_i| - 1|", "max |q_i.w_i|"}; }
  /// q1_x, q1_y, q1_z, w1_x, …, wN_z.
  static std::vector<std::string> state_names() {
    std::vector<std::string> v;
    for (int i = 1; i <= N; ++i) {
      const std::string k = std::to_string(i);
      v = names::join({v, names::xyz(std::string(1, 'q') += k), names::xyz(std::string(1, 'w') += k)});
    }
    return v;
  }
  template <class U> LB_HD PendulumChain<U, N> cast() const {
    PendulumChain<U, N> c;
    for (int i = 0; i < N; ++i) { c.mass[i] = U(mass[i]); c.length[i] = U(length[i]); }
    c.gravity = U(gravity);
    return c;
  }
};

}  // namespace lb
