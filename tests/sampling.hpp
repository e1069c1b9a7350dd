// Random points of every homogeneous space and the invariants each must keep, for tests.
#pragma once
#include <random>
#include <vector>

#include <liebatch/liebatch.hpp>

namespace lbtest {

template <class T, int N> lb::Vec<T, N> gaussian(std::mt19937_64& rng, double scale = 1.0) {
  std::normal_distribution<double> n01;
  lb::Vec<T, N> x;
  for (int i = 0; i < N; ++i) x[i] = T(scale * n01(rng));
  return x;
}

/// An invariant's value and the scale that bounds its round-off: translations make ω and Π
/// random-walk to |·| ~ 10², and q·ω, Π·Γ can only be kept to ε|q||ω|, ε|Π||Γ|.
template <class T> struct Invariant {
  T value, scale;
};

/// A random point of S, of unit scale, and the invariants of S (values every action must keep).
template <class S> struct Sampler;

template <class T> struct Sampler<lb::S2<T>> {
  static lb::Vec3<T> point(std::mt19937_64& rng) {
    auto q = gaussian<T, 3>(rng);
    return T(1) / lb::norm(q) * q;
  }
  static std::vector<Invariant<T>> invariants(const lb::Vec3<T>& q) { return {{lb::norm(q), T(1)}}; }
};

template <class T> struct Sampler<lb::TS2<T>> {
  static lb::Vec6<T> point(std::mt19937_64& rng) {
    const auto q = Sampler<lb::S2<T>>::point(rng);
    auto w = gaussian<T, 3>(rng);
    w -= lb::dot(w, q) * q;
    return lb::concat(q, w);
  }
  static std::vector<Invariant<T>> invariants(const lb::Vec6<T>& y) {
    const auto q = y.template seg<0, 3>(), w = y.template seg<3, 3>();
    return {{lb::norm(q), T(1)}, {lb::dot(q, w), lb::norm(w)}};
  }
};

/// so*(3): any μ, on the sphere |μ| = const of its orbit.
template <class T> struct Sampler<lb::CoadjointSO3<T>> {
  static lb::Vec3<T> point(std::mt19937_64& rng) { return gaussian<T, 3>(rng); }
  static std::vector<Invariant<T>> invariants(const lb::Vec3<T>& mu) { return {{lb::norm(mu), lb::norm(mu)}}; }
};

template <class T> struct Sampler<lb::CoadjointSE3<T>> {
  static lb::Vec6<T> point(std::mt19937_64& rng) {
    return lb::concat(gaussian<T, 3>(rng), Sampler<lb::S2<T>>::point(rng));
  }
  static std::vector<Invariant<T>> invariants(const lb::Vec6<T>& y) {
    const auto P = y.template seg<0, 3>(), G = y.template seg<3, 3>();
    return {{lb::norm(G), T(1)}, {lb::dot(P, G), lb::norm(P) * lb::norm(G)}};
  }
};

template <class G> struct Sampler<lb::GroupSpace<G>> {
  using S = lb::GroupSpace<G>;
  static typename S::point point(std::mt19937_64& rng) {
    return G::exp(gaussian<typename G::scalar, G::algebra::dim>(rng, 1.5)).embed();
  }
  /// SO(3) blocks: the entries of RᵀR (must stay the identity); ℝⁿ: nothing.
  using T = typename G::scalar;
  static std::vector<Invariant<T>> invariants(const typename S::point& y) {
    if constexpr (S::dim >= 9) {
      const auto R = lb::Mat3<T>::from_flat(y.template seg<0, 9>());
      const auto I = R.transpose() * R;
      std::vector<Invariant<T>> r;
      for (T x : I.m) r.push_back({x, T(1)});
      return r;
    } else {
      return {};
    }
  }
};

/// Products and powers, factor by factor.
template <class S> struct FactorwiseSampler {
  using T = typename S::scalar;
  static typename S::point point(std::mt19937_64& rng) {
    typename S::point y;
    lb::static_for<S::count>([&](auto I) {
      y.set_seg(S::template offset<I>(), Sampler<typename S::template factor<I>>::point(rng));
    });
    return y;
  }
  static std::vector<Invariant<T>> invariants(const typename S::point& y) {
    std::vector<Invariant<T>> r;
    lb::static_for<S::count>([&](auto I) {
      using Fi = typename S::template factor<I>;
      const auto v = Sampler<Fi>::invariants(y.template seg<S::template offset<I>(), Fi::dim>());
      r.insert(r.end(), v.begin(), v.end());
    });
    return r;
  }
};
template <class... F> struct Sampler<lb::Product<F...>> : FactorwiseSampler<lb::Product<F...>> {};
template <class F, int N> struct Sampler<lb::Power<F, N>> : FactorwiseSampler<lb::Power<F, N>> {};

}  // namespace lbtest
