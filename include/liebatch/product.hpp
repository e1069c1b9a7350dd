// Fixed-size products M₁ × … × Mₖ of homogeneous spaces under G₁ × … × Gₖ, acting componentwise,
// and powers Mᴺ such as (TS²)ᴺ. Points and algebra elements stay flat vectors; each factor reads
// its own slice, at offsets fixed at compile time.
#pragma once
#include <tuple>
#include <type_traits>
#include <utility>

#include "vec.hpp"

namespace lb {

namespace detail {
template <class F, int... I> LB_HD void static_for_impl(F& f, std::integer_sequence<int, I...>) {
  (f(std::integral_constant<int, I>{}), ...);
}
}  // namespace detail

/// Calls f(std::integral_constant<int, I>{}) for I = 0 … N−1, unrolled at compile time.
template <int N, class F> LB_HD void static_for(F&& f) {
  detail::static_for_impl(f, std::make_integer_sequence<int, N>{});
}

/// The largest of f(std::integral_constant<int, I>{}) over I = 0 … N−1, and 0 (NaN where one is):
/// a product's angle and defect from its factors'.
template <int N, class S, class F> LB_HD S static_max(F&& f) {
  S m = S(0);
  static_for<N>([&](auto I) {
    const S a = f(I);
    m = lb::max_nan(a, m);
  });
  return m;
}

/// The same over i = 0 … N−1 in a loop, for N identical factors.
template <int N, class S, class F> LB_HD S loop_max(F&& f) {
  S m = S(0);
  for (int i = 0; i < N; ++i) {
    const S a = f(i);
    m = lb::max_nan(a, m);
  }
  return m;
}

namespace detail {
/// Sum of the first I entries of a list of dimensions.
template <int I, int... D> constexpr int offset() {
  constexpr int d[] = {D..., 0};
  int o = 0;
  for (int i = 0; i < I; ++i) o += d[i];
  return o;
}
}  // namespace detail

/// An element of G₁ × … × Gₖ, stored as a head and a tail (no std::tuple on the device).
template <class... G> struct GroupTuple {};
template <class G0, class... R> struct GroupTuple<G0, R...> {
  G0 head;
  GroupTuple<R...> tail;
};
template <int I, class G0, class... R> LB_HD auto& get(GroupTuple<G0, R...>& t) {
  if constexpr (I == 0) return t.head; else return get<I - 1>(t.tail);
}
template <int I, class G0, class... R> LB_HD const auto& get(const GroupTuple<G0, R...>& t) {
  if constexpr (I == 0) return t.head; else return get<I - 1>(t.tail);
}

template <class... A> struct ProductAlgebra;
template <class A, int N> struct PowerAlgebra;

/// The direct product group, multiplied componentwise.
template <class... G> struct ProductGroup {
  using scalar = std::common_type_t<typename G::scalar...>;
  using algebra = ProductAlgebra<typename G::algebra...>;
  static constexpr int count = sizeof...(G);
  GroupTuple<G...> parts;

  template <int I> LB_HD auto& part() { return get<I>(parts); }
  template <int I> LB_HD const auto& part() const { return get<I>(parts); }

  LB_HD static ProductGroup identity() {
    ProductGroup g;
    static_for<count>([&](auto I_) {
      constexpr int I = decltype(I_)::value;
      g.template part<I>() = std::decay_t<decltype(g.template part<I>())>::identity();
    });
    return g;
  }
  LB_HD static ProductGroup exp(const typename algebra::vec& u) {
    ProductGroup g;
    static_for<count>([&](auto I_) {
      constexpr int I = decltype(I_)::value;
      using A = typename algebra::template factor<I>;
      g.template part<I>() = A::exp(u.template seg<algebra::template offset<I>(), A::dim>());
    });
    return g;
  }
  LB_HD typename algebra::vec log() const {
    typename algebra::vec u;
    static_for<count>([&](auto I_) {
      constexpr int I = decltype(I_)::value;
      u.set_seg(algebra::template offset<I>(), part<I>().log());
    });
    return u;
  }
  LB_HD ProductGroup inverse() const {
    ProductGroup g;
    static_for<count>([&](auto I_) {
      constexpr int I = decltype(I_)::value;
      g.template part<I>() = part<I>().inverse();
    });
    return g;
  }
  LB_HD ProductGroup operator*(const ProductGroup& h) const {
    ProductGroup g;
    static_for<count>([&](auto I_) {
      constexpr int I = decltype(I_)::value;
      g.template part<I>() = part<I>() * h.template part<I>();
    });
    return g;
  }
};

/// The direct product of Lie algebras 𝔤₁ × … × 𝔤ₖ: brackets, dexp and dexp⁻¹ act blockwise.
template <class... A> struct ProductAlgebra {
  using scalar = std::common_type_t<typename A::scalar...>;
  static constexpr int count = sizeof...(A);
  static constexpr int dim = (A::dim + ...);
  using vec = Vec<scalar, dim>;
  using group = ProductGroup<typename A::group...>;
  template <int I> using factor = std::tuple_element_t<I, std::tuple<A...>>;
  /// Offset of factor I's block.
  template <int I> LB_HD static constexpr int offset() { return detail::offset<I, A::dim...>(); }

  LB_HD static group exp(const vec& u) { return group::exp(u); }
  /// Largest squared rotation angle over the factors.
  LB_HD static scalar angle2(const vec& u) {
    return static_max<count, scalar>([&](auto I_) {
      constexpr int I = decltype(I_)::value;
      using F = factor<I>;
      return scalar(F::angle2(u.template seg<offset<I>(), F::dim>()));
    });
  }
  LB_HD static vec bracket(const vec& u, const vec& v) { return blockwise<Op::bracket>(u, v); }
  LB_HD static vec dexp(const vec& u, const vec& v) { return blockwise<Op::dexp>(u, v); }
  LB_HD static vec dexpinv(const vec& u, const vec& v) { return blockwise<Op::dexpinv>(u, v); }

 private:
  enum class Op { bracket, dexp, dexpinv };
  template <Op op> LB_HD static vec blockwise(const vec& u, const vec& v) {
    vec r;
    static_for<count>([&](auto I_) {
      constexpr int I = decltype(I_)::value;
      using F = factor<I>;
      constexpr int o = offset<I>();
      const auto ui = u.template seg<o, F::dim>(), vi = v.template seg<o, F::dim>();
      if constexpr (op == Op::bracket) r.set_seg(o, F::bracket(ui, vi));
      else if constexpr (op == Op::dexp) r.set_seg(o, F::dexp(ui, vi));
      else r.set_seg(o, F::dexpinv(ui, vi));
    });
    return r;
  }
};

/// M₁ × … × Mₖ under G₁ × … × Gₖ; a point is the concatenation of the factors' points.
template <class... S> struct Product {
  using scalar = std::common_type_t<typename S::scalar...>;
  using algebra = ProductAlgebra<typename S::algebra...>;
  using group = ProductGroup<typename S::group...>;
  static constexpr int count = sizeof...(S);
  static constexpr int dim = (S::dim + ...);
  using point = Vec<scalar, dim>;
  template <int I> using factor = std::tuple_element_t<I, std::tuple<S...>>;
  /// Offset of factor I's slice of a point.
  template <int I> LB_HD static constexpr int offset() { return detail::offset<I, S::dim...>(); }

  LB_HD static point act(const group& g, const point& y) {
    point r;
    static_for<count>([&](auto I_) {
      constexpr int I = decltype(I_)::value;
      using F = factor<I>;
      r.set_seg(offset<I>(), F::act(g.template part<I>(), y.template seg<offset<I>(), F::dim>()));
    });
    return r;
  }
  LB_HD static point exp_act(const typename algebra::vec& u, const point& y) {
    return map<true>(u, y);
  }
  LB_HD static point generator(const typename algebra::vec& u, const point& y) {
    return map<false>(u, y);
  }
  /// The largest of the factors' defects, and every factor projected.
  LB_HD static scalar defect(const point& y) {
    return static_max<count, scalar>([&](auto I_) {
      constexpr int I = decltype(I_)::value;
      using F = factor<I>;
      return scalar(F::defect(y.template seg<offset<I>(), F::dim>()));
    });
  }
  LB_HD static point project(const point& y) {
    point r;
    static_for<count>([&](auto I_) {
      constexpr int I = decltype(I_)::value;
      using F = factor<I>;
      r.set_seg(offset<I>(), F::project(y.template seg<offset<I>(), F::dim>()));
    });
    return r;
  }

 private:
  template <bool exp> LB_HD static point map(const typename algebra::vec& u, const point& y) {
    point r;
    static_for<count>([&](auto I_) {
      constexpr int I = decltype(I_)::value;
      using F = factor<I>;
      const auto ui = u.template seg<algebra::template offset<I>(), F::algebra::dim>();
      const auto yi = y.template seg<offset<I>(), F::dim>();
      if constexpr (exp) r.set_seg(offset<I>(), F::exp_act(ui, yi));
      else r.set_seg(offset<I>(), F::generator(ui, yi));
    });
    return r;
  }
};

/// G^N, N copies of one group multiplied componentwise; an array rather than a GroupTuple, so
/// that long chains compile as loops instead of N unrolled copies.
template <class G, int N> struct PowerGroup {
  using scalar = typename G::scalar;
  using algebra = PowerAlgebra<typename G::algebra, N>;
  static constexpr int count = N;
  G parts[N];

  template <int I> LB_HD G& part() { return parts[I]; }
  template <int I> LB_HD const G& part() const { return parts[I]; }

  LB_HD static PowerGroup identity() {
    PowerGroup g;
    for (int i = 0; i < N; ++i) g.parts[i] = G::identity();
    return g;
  }
  LB_HD static PowerGroup exp(const typename algebra::vec& u) {
    PowerGroup g;
    for (int i = 0; i < N; ++i) g.parts[i] = G::exp(u.template seg<G::algebra::dim>(i * G::algebra::dim));
    return g;
  }
  LB_HD typename algebra::vec log() const {
    typename algebra::vec u;
    for (int i = 0; i < N; ++i) u.set_seg(i * G::algebra::dim, parts[i].log());
    return u;
  }
  LB_HD PowerGroup inverse() const {
    PowerGroup g;
    for (int i = 0; i < N; ++i) g.parts[i] = parts[i].inverse();
    return g;
  }
  LB_HD PowerGroup operator*(const PowerGroup& h) const {
    PowerGroup g;
    for (int i = 0; i < N; ++i) g.parts[i] = parts[i] * h.parts[i];
    return g;
  }
};

/// 𝔤^N: brackets, dexp and dexp⁻¹ blockwise, in a loop over the N identical blocks.
template <class A, int N> struct PowerAlgebra {
  using scalar = typename A::scalar;
  static constexpr int count = N;
  static constexpr int dim = N * A::dim;
  using vec = Vec<scalar, dim>;
  using group = PowerGroup<typename A::group, N>;
  template <int> using factor = A;
  template <int I> LB_HD static constexpr int offset() { return I * A::dim; }

  LB_HD static group exp(const vec& u) { return group::exp(u); }
  /// Largest squared rotation angle over the blocks.
  LB_HD static scalar angle2(const vec& u) {
    return loop_max<N, scalar>([&](int i) { return scalar(A::angle2(block(u, i))); });
  }
  LB_HD static vec bracket(const vec& u, const vec& v) {
    return blockwise(u, v, [](const auto& a, const auto& b) { return A::bracket(a, b); });
  }
  LB_HD static vec dexp(const vec& u, const vec& v) {
    return blockwise(u, v, [](const auto& a, const auto& b) { return A::dexp(a, b); });
  }
  LB_HD static vec dexpinv(const vec& u, const vec& v) {
    return blockwise(u, v, [](const auto& a, const auto& b) { return A::dexpinv(a, b); });
  }

 private:
  LB_HD static typename A::vec block(const vec& u, int i) { return u.template seg<A::dim>(i * A::dim); }
  /// Block i of the result is op(block i of u, block i of v).
  template <class Op> LB_HD static vec blockwise(const vec& u, const vec& v, Op op) {
    vec r;
    for (int i = 0; i < N; ++i) r.set_seg(i * A::dim, op(block(u, i), block(v, i)));
    return r;
  }
};

/// Mᴺ = M × … × M (N factors) under Gᴺ, e.g. (TS²)ᴺ under SE(3)ᴺ: Product's operations on N
/// identical factors, as loops.
template <class S, int N> struct Power {
  static_assert(N >= 1, "a power needs at least one factor");
  using scalar = typename S::scalar;
  using algebra = PowerAlgebra<typename S::algebra, N>;
  using group = PowerGroup<typename S::group, N>;
  static constexpr int count = N;
  static constexpr int dim = N * S::dim;
  using point = Vec<scalar, dim>;
  template <int> using factor = S;
  template <int I> LB_HD static constexpr int offset() { return I * S::dim; }

  LB_HD static point act(const group& g, const point& y) {
    point r;
    for (int i = 0; i < N; ++i) r.set_seg(i * S::dim, S::act(g.parts[i], at(y, i)));
    return r;
  }
  LB_HD static point exp_act(const typename algebra::vec& u, const point& y) {
    return map(u, y, [](const auto& ui, const auto& yi) { return S::exp_act(ui, yi); });
  }
  LB_HD static point generator(const typename algebra::vec& u, const point& y) {
    return map(u, y, [](const auto& ui, const auto& yi) { return S::generator(ui, yi); });
  }
  /// The largest of the factors' defects, and every factor projected.
  LB_HD static scalar defect(const point& y) {
    return loop_max<N, scalar>([&](int i) { return scalar(S::defect(at(y, i))); });
  }
  LB_HD static point project(const point& y) {
    point r;
    for (int i = 0; i < N; ++i) r.set_seg(i * S::dim, S::project(at(y, i)));
    return r;
  }

 private:
  LB_HD static typename S::point at(const point& y, int i) { return y.template seg<S::dim>(i * S::dim); }
  LB_HD static typename S::algebra::vec block(const typename algebra::vec& u, int i) {
    return u.template seg<S::algebra::dim>(i * S::algebra::dim);
  }
  /// Factor i of the result is op(block i of u, factor i of y).
  template <class Op> LB_HD static point map(const typename algebra::vec& u, const point& y, Op op) {
    point r;
    for (int i = 0; i < N; ++i) r.set_seg(i * S::dim, op(block(u, i), at(y, i)));
    return r;
  }
};

}  // namespace lb
