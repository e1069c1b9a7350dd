// A constrained mechanical system (constrained_model.hpp) as a model of the engine: the state
// (q, v, λ) as one point of G × ℝⁿ × ℝʳ, so that the ensemble engines, samples, sections and
// statistics run it with the half-explicit methods (methods/half_explicit.hpp) as they run every
// other model with theirs (docs/constrained.md §5). Only half-explicit methods serve it (MethodFor):
// an explicit method would integrate (q, v) with λ frozen at its initial value.
#pragma once
#include <string>
#include <vector>

#include "constrained_model.hpp"
#include "group_space.hpp"
#include "model.hpp"
#include "product.hpp"

namespace lb {

/// The index-2 system of CM as a Model: `space` = GroupSpace<G> × ℝⁿ × ℝʳ, a point (q embedded, v,
/// λ). f is the differential part, q̇ = q·ṽ (as the left-trivialised (Ad_q v)·q the space acts
/// by) and v̇ = −M⁻¹(g + Bᵀλ), with λ's rate 0: λ is algebraic, fixed by the constraint, not by f.
/// f serves the Hermite interpolation of sections (trajectory/section.hpp), so a section function
/// should not depend on λ. Observables: the model's energy (where it defines energy(q, v)), |Φ(q)|
/// and |B(q)v|, the residuals of the position and velocity constraints, and the multiplier's
/// (multiplier_residual).
template <ConstrainedModel CM> struct ConstrainedSystem {
  using T = typename CM::scalar;
  using G = typename CM::group;
  static constexpr int n = G::algebra::dim, r = CM::constraints;
  using space = Product<GroupSpace<G>, Euclidean<T, n>, Euclidean<T, r>>;
  using point = typename space::point;
  using state = ConstrainedState<CM>;
  static constexpr bool constrained = true;  ///< served by half-explicit methods only (MethodFor)
  CM system;

  LB_HD static state unpack(const point& y) {
    return {G::from_embed(y.template seg<0, G::embed_dim>()), y.template seg<G::embed_dim, n>(),
            y.template seg<G::embed_dim + n, r>()};
  }
  LB_HD static point pack(const state& s) { return concat(concat(s.q.embed(), s.v), s.lambda); }

  /// The point at (q, v) with the multiplier consistent at t (consistent_multiplier): how initial
  /// states are made from (q₀, v₀). λ is NaN where B M⁻¹ Bᵀ is singular, so that such a member
  /// starts with Status::nonfinite.
  LB_HD point initial(const G& q, const Vec<T, n>& v, T t = T(0)) const {
    state s{q, v, {}};
    if (!consistent_multiplier(system, q, v, t, s.lambda))
      for (int k = 0; k < r; ++k) s.lambda[k] = T(0) / T(0);
    return pack(s);
  }

  /// How far y is from a consistent state: the largest of the group's embedding defect, |Φ(q)|,
  /// |B(q)v| and |λ − λ*(q, v, t)| / (1 + |λ*|) (NaN where B M⁻¹ Bᵀ is singular).
  LB_HD T consistency_defect(const point& y, T t = T(0)) const {
    const state s = unpack(y);
    Vec<T, r> l;
    if (!consistent_multiplier(system, s.q, s.v, t, l)) return T(0) / T(0);
    const T d[4] = {space::defect(y), norm(system.constraint(s.q)), norm(system.gradient(s.q) * s.v),
                    norm(s.lambda - l) / (T(1) + norm(l))};
    return lb::max(lb::max(d[0], d[1]), lb::max(d[2], d[3]));
  }

  /// A consistent state near y, for initial states: q projected onto G (the space's projection),
  /// then onto Φ = 0 by Gauss–Newton steps q ← q·exp(δ), δ = −M⁻¹Bᵀ(B M⁻¹ Bᵀ)⁻¹Φ(q) (the correction
  /// of least M-norm, B δ = −Φ), at most 20 and until |Φ| stops shrinking; v projected onto
  /// ker B(q) in the metric of M, v ← v − M⁻¹Bᵀ(B M⁻¹ Bᵀ)⁻¹B v; λ = λ*(q, v, t). NaNs where
  /// B M⁻¹ Bᵀ is singular.
  LB_HD point consistent(const point& y, T t = T(0)) const {
    state s = unpack(space::project(y));
    const T nan = T(0) / T(0);
    auto correction = [&](const Vec<T, r>& c, ConstraintGradient<T, r, n> B, bool& ok) {
      Vec<T, r> mu;  // NaN where the solve fails or, after an earlier failure, is skipped
      for (int k = 0; k < r; ++k) mu[k] = nan;
      ok = ok && lu_solve<r>(schur_matrix(system, s.q, B, B), c, mu);
      return -system.inverse_mass(s.q, B.transpose_times(mu));
    };
    bool ok = true;
    T phi = norm(system.constraint(s.q));
    for (int k = 0; k < 20 && ok && phi > T(0); ++k) {
      const G next = s.q * G::exp(correction(system.constraint(s.q), system.gradient(s.q), ok));
      const T after = norm(system.constraint(next));
      if (!(after < phi)) break;
      s.q = next, phi = after;
    }
    const auto B = system.gradient(s.q);
    s.v = s.v + correction(B * s.v, B, ok);
    ok = ok && consistent_multiplier(system, s.q, s.v, t, s.lambda);
    if (!ok)
      for (int k = 0; k < r; ++k) s.lambda[k] = nan;
    return pack(s);
  }

  LB_HD typename space::algebra::vec f(T t, const point& y) const {
    const state s = unpack(y);
    const auto vdot = -system.inverse_mass(s.q, system.forces(s.q, s.v, t) + system.gradient(s.q).transpose_times(s.lambda));
    return concat(concat(s.q.Ad(s.v), vdot), Vec<T, r>::zero());
  }

  static constexpr bool has_energy = requires(const CM& m, const G& q, const Vec<T, n>& v) {
    { m.energy(q, v) } -> std::convertible_to<T>;
  };
  /// |λ − λ*(q, v, t)| / (1 + |λ*|): how far the multiplier is from the one consistent with (q, v)
  /// (consistent_multiplier), relative to λ's scale, which is also the scale of its rounding (a
  /// difference of two λ of size |λ*|); O(hᵖ) in a stable run, large where the multiplier recursion
  /// is unstable (docs/constrained.md §5). NaN where B M⁻¹ Bᵀ is singular.
  LB_HD T multiplier_residual(T t, const state& s) const {
    Vec<T, r> l;
    return consistent_multiplier(system, s.q, s.v, t, l) ? norm(s.lambda - l) / (T(1) + norm(l)) : T(0) / T(0);
  }
  /// (energy,) |Φ(q)|, |B(q)v|, |λ − λ*(q, v)| / (1 + |λ*|).
  LB_HD Vec<T, has_energy ? 4 : 3> observables(const point& y) const {
    const state s = unpack(y);
    const Vec<T, 3> res{{norm(system.constraint(s.q)), norm(system.gradient(s.q) * s.v), multiplier_residual(T(0), s)}};
    if constexpr (has_energy) return concat(Vec<T, 1>{{system.energy(s.q, s.v)}}, res);
    else return res;
  }
  static std::vector<std::string> observable_names() {
    std::vector<std::string> v{"|Phi|", "|Bv|", "|lambda-lambda*|/(1+|lambda*|)"};
    if constexpr (has_energy) v.insert(v.begin(), "energy");
    return v;
  }
  /// The model's names for q and v (CM::configuration_names(), CM::velocity_names()), else q0 …,
  /// v0 …; then lambda0 ….
  static std::vector<std::string> state_names() {
    auto numbered = [](const char* p, int k) {
      std::vector<std::string> v;
      for (int i = 0; i < k; ++i) v.push_back(p + std::to_string(i));
      return v;
    };
    std::vector<std::string> q = numbered("q", G::embed_dim), v = numbered("v", n);
    if constexpr (requires { CM::configuration_names(); }) q = CM::configuration_names();
    if constexpr (requires { CM::velocity_names(); }) v = CM::velocity_names();
    auto all = q;
    all.insert(all.end(), v.begin(), v.end());
    for (const auto& l : numbered("lambda", r)) all.push_back(l);
    return all;
  }
  template <class U> LB_HD ConstrainedSystem<decltype(std::declval<CM>().template cast<U>())> cast() const {
    return {system.template cast<U>()};
  }
};

}  // namespace lb
