// Runge–Kutta–Munthe-Kaas methods over any explicit tableau (paper 2022 §2.2, eqs (6)–(8)):
//   kᵢ = dexp⁻¹_{uᵢ} f(tₙ + cᵢh, exp(uᵢ)·yₙ),  uᵢ = h Σⱼ aᵢⱼ kⱼ,  yₙ₊₁ = exp(h Σᵢ bᵢ kᵢ)·yₙ.
// The map dexp⁻¹ is a policy, so exact, truncated and (for tests) identity variants share the code.
#pragma once
#include "../dexpinv_series.hpp"
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

/// One RKMK step of a model (a type with `space` and `f(t, y) → 𝔤`) from (t, y) with step h.
/// Writes the algebra increment σ = h Σ bᵢ kᵢ and, when the tableau is embedded, σ̂ = h Σ b̂ᵢ kᵢ.
template <const auto& tab, class Dexpinv = DexpinvExact, class Model>
LB_HD typename Model::space::point rkmk_step(const Model& model, typename Model::space::scalar t,
                                             const typename Model::space::point& y, typename Model::space::scalar h,
                                             typename Model::space::algebra::vec* sigma_hat = nullptr) {
  using S = typename Model::space;
  using Alg = typename S::algebra;
  using T = typename S::scalar;
  using V = typename Alg::vec;
  constexpr int s = tab.stages;
  V k[s];
  k[0] = model.f(t, y);
  LB_UNROLL for (int i = 1; i < s; ++i) {
    V u = V::zero();
    LB_UNROLL for (int j = 0; j < i; ++j) {
      if (tab.a[i][j].p != 0) u += (h * tab.a[i][j].template as<T>()) * k[j];
    }
    k[i] = Dexpinv::template apply<Alg>(u, model.f(t + tab.c[i].template as<T>() * h, S::exp_act(u, y)));
  }
  V sigma = V::zero();
  LB_UNROLL for (int i = 0; i < s; ++i) {
    if (tab.b[i].p != 0) sigma += (h * tab.b[i].template as<T>()) * k[i];
  }
  if (sigma_hat != nullptr) {
    *sigma_hat = V::zero();
    LB_UNROLL for (int i = 0; i < s; ++i) {
      if (tab.bhat[i].p != 0) *sigma_hat += (h * tab.bhat[i].template as<T>()) * k[i];
    }
  }
  return S::exp_act(sigma, y);
}

}  // namespace lb
