// dexp⁻¹ truncated after Q commutators, for any Lie algebra: Σ_{k≤Q} (B_k/k!) ad_uᵏ v
// ([CCLMO22] eq. (8)); for truncation studies and algebras without a closed form.
#pragma once
#include "series.hpp"

namespace lb {

/// v − ½[u,v] + 1/12 [u,[u,v]] − 1/720 ad_u⁴ v + …, keeping the terms with at most Q brackets.
template <class Alg, int Q>
LB_HD typename Alg::vec dexpinv_series(const typename Alg::vec& u, const typename Alg::vec& v) {
  using T = typename Alg::scalar;
  static_assert(Q >= 0 && Q < 2 * 34, "Q out of range of the Bernoulli table");
  typename Alg::vec r = v, adk = v;  // adk = ad_u^k v
  auto term = [&](auto i) {
    constexpr int k = decltype(i)::value + 1;
    adk = Alg::bracket(u, adk);
    if constexpr (k == 1) {
      r += T(-0.5) * adk;
    } else if constexpr (k % 2 == 0) {  // B_{2m}/(2m)! = (−1)^{m+1} |B_{2m}|/(2m)!
      const T a = series::coef<series::Table::bern_g2, T, k / 2 - 1>();
      r += ((k / 2) % 2 == 1 ? a : -a) * adk;
    }
  };
  series::for_each_index(term, std::make_integer_sequence<int, Q>{});
  return r;
}

}  // namespace lb
