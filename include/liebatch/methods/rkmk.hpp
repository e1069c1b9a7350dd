// Runge–Kutta–Munthe-Kaas methods over any explicit tableau ([MK98], [CCLMO22 §2.2, eqs (6)–(8)]):
//   kᵢ = dexp⁻¹_{uᵢ} f(tₙ + cᵢh, exp(uᵢ)·yₙ),  uᵢ = h Σⱼ aᵢⱼ kⱼ,  yₙ₊₁ = exp(h Σᵢ bᵢ kᵢ)·yₙ.
// dexp⁻¹ is a policy, so exact, truncated and (for tests) identity variants share the code. For an
// embedded tableau the error estimate is ψ_*(σ − σ̂)|_{yₙ}: measured in the algebra, pushed to
// embedding coordinates where atol/rtol apply.
#pragma once
#include "../dexpinv_series.hpp"
#include "../product.hpp"
#include "../scalar.hpp"
#include "step.hpp"
#include "tableau.hpp"

namespace lb {

/// dexp⁻¹ in closed form (so(3), se(3), ℝⁿ and products of them).
struct DexpinvExact {
  template <class Alg> LB_HD static typename Alg::vec apply(const typename Alg::vec& u, const typename Alg::vec& v) {
    return Alg::dexpinv(u, v);
  }
};
/// dexp⁻¹ truncated after Q commutators.
template <int Q> struct DexpinvTruncated {
  template <class Alg> LB_HD static typename Alg::vec apply(const typename Alg::vec& u, const typename Alg::vec& v) {
    return dexpinv_series<Alg, Q>(u, v);
  }
};
/// dexp⁻¹ replaced by the identity: not a valid RKMK method above order 2 (tests prove it).
using DexpinvIdentity = DexpinvTruncated<0>;

/// Stage angles at or above 2π − 0.1 end a trajectory with Status::dexpinv_singular: dexp⁻¹ is
/// singular at 2π and verified to round-off up to 2π − 0.1. Compared squared: no square root.
template <class T> LB_HD T dexpinv_angle2_limit() { return T(38.231780542921517179952906646193); }  // (2π − 0.1)²

/// RKMK method of tableau `tab` with dexp⁻¹ policy D; with `embedded` it also estimates the
/// error from the tableau's b̂.
template <const auto& tab, class D = DexpinvExact, bool embedded = (tab.order_hat > 0)> struct RKMK {
  static_assert(!embedded || tab.order_hat > 0, "tableau has no embedded weights");
  static constexpr int order = tab.order;
  static constexpr int order_hat = embedded ? tab.order_hat : 0;  ///< 0: no error estimate
  static constexpr int stages = tab.stages;

  template <class Model>
  LB_HD static StepResult<typename Model::space::point> step(const Model& model, typename Model::space::scalar t,
                                                             const typename Model::space::point& y,
                                                             typename Model::space::scalar h) {
    using S = typename Model::space;
    using Alg = typename S::algebra;
    using T = typename S::scalar;
    using V = typename Alg::vec;
    constexpr int s = tab.stages;
    V k[s];
    mask_t<T> singular = false;
    k[0] = model.f(t, y);
    // Every coefficient is a compile-time constant: loops over stages are unrolled by static_for.
    static_for<s - 1>([&](auto im1) {
      constexpr int i = decltype(im1)::value + 1;
      V u = V::zero();
      static_for<i>([&](auto j) {
        constexpr Rational a = tab.a[i][decltype(j)::value];
        if constexpr (a.p != 0) u += (h * coefficient<T, a>()) * k[decltype(j)::value];
      });
      const T a2 = Alg::angle2(u);  // an infinite angle is a non-finite state, not a singularity
      singular |= lb::isfinite(a2) && !(a2 < dexpinv_angle2_limit<T>());
      k[i] = D::template apply<Alg>(u, model.f(t + coefficient<T, tab.c[i]>() * h, S::exp_act(u, y)));
    });
    V sigma = V::zero(), delta = V::zero();  // delta = σ − σ̂
    static_for<s>([&](auto i) {
      constexpr Rational b = tab.b[decltype(i)::value];
      if constexpr (b.p != 0) sigma += (h * coefficient<T, b>()) * k[decltype(i)::value];
      if constexpr (embedded) {
        constexpr Rational d = difference(b, tab.bhat[decltype(i)::value]);
        if constexpr (d.p != 0) delta += (h * coefficient<T, d>()) * k[decltype(i)::value];
      }
    });
    StepResult<typename S::point> r{S::exp_act(sigma, y), S::point::zero(), singular};
    if constexpr (embedded) r.err = S::generator(delta, y);
    return r;
  }
};

/// RKMK4 with two commutators in place of dexp⁻¹ ([CCLMO22 §2.2], from [CaO03]; after [MKO99]):
///   f₁ = h f(yₙ), f₂ = h f(exp(½f₁)·yₙ), f₃ = h f(exp(½f₂ − ⅛[f₁,f₂])·yₙ), f₄ = h f(exp(f₃)·yₙ),
///   yₙ₊₁ = exp(⅙(f₁ + 2f₂ + 2f₃ + f₄ − ½[f₁,f₄]))·yₙ.
struct RKMK4Commutators {
  static constexpr int order = 4;
  static constexpr int order_hat = 0;
  static constexpr int stages = 4;

  template <class Model>
  LB_HD static StepResult<typename Model::space::point> step(const Model& model, typename Model::space::scalar t,
                                                             const typename Model::space::point& y,
                                                             typename Model::space::scalar h) {
    using S = typename Model::space;
    using Alg = typename S::algebra;
    using T = typename S::scalar;
    const T half = T(0.5);
    const auto f1 = h * model.f(t, y);
    const auto f2 = h * model.f(t + half * h, S::exp_act(half * f1, y));
    const auto f3 = h * model.f(t + half * h, S::exp_act(half * f2 - T(0.125) * Alg::bracket(f1, f2), y));
    const auto f4 = h * model.f(t + h, S::exp_act(f3, y));
    const auto sigma = (T(1) / T(6)) * (f1 + T(2) * (f2 + f3) + f4 - half * Alg::bracket(f1, f4));
    return {S::exp_act(sigma, y), S::point::zero(), false};
  }
};

}  // namespace lb
