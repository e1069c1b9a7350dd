// ℝⁿ as an abelian Lie algebra and the translation group: on it every Lie group method reduces to
// its classical Runge–Kutta method.
#pragma once
#include "vec.hpp"

namespace lb {

template <class T, int N> struct Translation;

/// The abelian Lie algebra ℝⁿ: zero bracket, dexp = dexp⁻¹ = identity.
template <class T, int N> struct rn {
  using scalar = T;
  static constexpr int dim = N;
  using vec = Vec<T, N>;
  using group = Translation<T, N>;

  LB_HD static vec bracket(const vec&, const vec&) { return vec::zero(); }
  LB_HD static group exp(const vec& u) { return {u}; }
  LB_HD static T angle2(const vec&) { return T(0); }
  LB_HD static vec dexp(const vec&, const vec& v) { return v; }
  LB_HD static vec dexpinv(const vec&, const vec& v) { return v; }
};

/// A translation y ↦ y + t of ℝⁿ.
template <class T, int N> struct Translation {
  using scalar = T;
  using algebra = rn<T, N>;
  Vec<T, N> t;

  LB_HD static Translation identity() { return {Vec<T, N>::zero()}; }
  LB_HD static Translation exp(const Vec<T, N>& u) { return {u}; }
  LB_HD Vec<T, N> log() const { return t; }
  static constexpr int embed_dim = N;
  LB_HD Vec<T, N> embed() const { return t; }
  LB_HD static Translation from_embed(const Vec<T, N>& x) { return {x}; }
  /// Every point of ℝⁿ is a translation.
  LB_HD static T defect(const Vec<T, N>&) { return T(0); }
  LB_HD static Vec<T, N> project(const Vec<T, N>& x) { return x; }
  LB_HD Vec<T, N> generator(const Vec<T, N>& xi) const { return xi; }

  LB_HD Translation inverse() const { return {-t}; }
  LB_HD Translation operator*(const Translation& h) const { return {t + h.t}; }
  LB_HD Vec<T, N> act(const Vec<T, N>& y) const { return y + t; }
  LB_HD Vec<T, N> Ad(const Vec<T, N>& u) const { return u; }
};

}  // namespace lb
