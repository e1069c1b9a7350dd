// Commutator-free Lie group methods ([CMO03]; [CCLMO22 §2.2] eq. (9), pairs of [CCLMO22 §4.2])
// and Crouch–Grossman methods ([CG93]), as data. Every stage and output is a product of
// exponentials of combinations of the stage values fₖ = f(Yₖ) applied to an earlier point,
//   Y = exp(h Σₖ α_{m,k} fₖ) ··· exp(h Σₖ α_{1,k} fₖ) · Y_base,
// so reused exponentials (CF3, CF4) start from an earlier stage. An embedded output ŷ gives the
// error estimate y − ŷ in embedding coordinates (a distance on M).
#pragma once
#include "../product.hpp"
#include "step.hpp"
#include "tableau.hpp"

namespace lb {

/// One stage or output: start from Y_base (0 = yₙ, r = stage r), apply nexp exponentials.
template <int S, int E> struct CFMap {
  int base;
  int nexp;
  Rational alpha[E][S];  ///< alpha[e][k]: coefficient of f_k in exponential e (e = 0 applied first)
};

/// A commutator-free scheme: S stages (stage 0 is yₙ), at most E exponentials per map. The main
/// output uses stages below main_stages only; later stages serve the embedded output.
template <int S, int E> struct CFScheme {
  static constexpr int stages = S;
  CFMap<S, E> stage[S];  ///< stage[0] unused (Y₀ = yₙ)
  Rational c[S];         ///< stage times
  int main_stages;
  CFMap<S, E> out;       ///< yₙ₊₁
  int order;
  CFMap<S, E> out_hat;   ///< embedded ŷ
  int order_hat;         ///< 0: no embedded pair
};

namespace schemes {
constexpr Rational O{0, 1};

/// CF 3(2) pair A ([CCLMO22 §4.2.1], from [CuO19]), whose main method is CF3 — Y₂ = exp(⅓hf₁)yₙ,
/// Y₃ = exp(⅔hf₂)yₙ, yₙ₊₁ = exp(h(−f₁/12 + ¾f₃))·Y₂ — with ŷ = exp(½h(f₂ + f₃))·yₙ.
inline constexpr CFScheme<3, 1> cf32a{
    {{0, 0, {{O, O, O}}}, {0, 1, {{{1, 3}, O, O}}}, {0, 1, {{O, {2, 3}, O}}}},
    {O, {1, 3}, {2, 3}}, 3,
    {1, 1, {{{-1, 12}, O, {3, 4}}}}, 3,
    {0, 1, {{O, {1, 2}, {1, 2}}}}, 2};

/// CF 3(2) pair B ([CCLMO22 §4.2.1]): Y₂ = exp(⅔hf₁)yₙ, Y₃ = exp(h(5/12 f₁ + ¼f₂))yₙ,
/// yₙ₊₁ = exp(h(−⅙f₁ − ½f₂ + f₃))·Y₃, ŷ = exp(¼h(f₁ + 3f₃))·yₙ.
inline constexpr CFScheme<3, 1> cf32b{
    {{0, 0, {{O, O, O}}}, {0, 1, {{{2, 3}, O, O}}}, {0, 1, {{{5, 12}, {1, 4}, O}}}},
    {O, {2, 3}, {2, 3}}, 3,
    {2, 1, {{{-1, 6}, {-1, 2}, {1, 1}}}}, 3,
    {0, 1, {{{1, 4}, O, {3, 4}}}}, 2};

/// CF 4(3): CF4 of [CCLMO22] eq. (9) — five exponentials reusing Y₂: Y₂ = exp(½hf₁)yₙ,
/// Y₃ = exp(½hf₂)yₙ, Y₄ = exp(hf₃ − ½hf₁)Y₂,
/// yₙ₊₁ = exp(h(−f₁ + 2f₂ + 2f₃ + 3f₄)/12)·exp(h(3f₁ + 2f₂ + 2f₃ − f₄)/12)·yₙ —
/// plus Ȳ₃ = exp(¾hf₂)yₙ and ŷ = exp((h/9)(−f₁ + 3f₂ + 4f̄₃))·exp(⅓hf₁)·yₙ ([CCLMO22] eq. (34)).
inline constexpr CFScheme<5, 2> cf43{
    {{0, 0, {{O, O, O, O, O}, {O, O, O, O, O}}},
     {0, 1, {{{1, 2}, O, O, O, O}, {O, O, O, O, O}}},
     {0, 1, {{O, {1, 2}, O, O, O}, {O, O, O, O, O}}},
     {1, 1, {{{-1, 2}, O, {1, 1}, O, O}, {O, O, O, O, O}}},
     {0, 1, {{O, {3, 4}, O, O, O}, {O, O, O, O, O}}}},
    {O, {1, 2}, {1, 2}, {1, 1}, {3, 4}}, 4,
    {0, 2, {{{3, 12}, {2, 12}, {2, 12}, {-1, 12}, O}, {{-1, 12}, {2, 12}, {2, 12}, {3, 12}, O}}}, 4,
    {0, 2, {{{1, 3}, O, O, O, O}, {{-1, 9}, {3, 9}, O, O, {4, 9}}}}, 3};

/// Crouch–Grossman CG3 ([CG93]; [OM99]), one field per
/// exponential: a₂₁ = 3/4, a₃₁ = 119/216, a₃₂ = 17/108, b = (13/51, −2/3, 24/17).
inline constexpr CFScheme<3, 3> cg3{
    {{0, 0, {{O, O, O}, {O, O, O}, {O, O, O}}},
     {0, 1, {{{3, 4}, O, O}, {O, O, O}, {O, O, O}}},
     {0, 2, {{{119, 216}, O, O}, {O, {17, 108}, O}, {O, O, O}}}},
    {O, {3, 4}, {17, 24}}, 3,
    {0, 3, {{{13, 51}, O, O}, {O, {-2, 3}, O}, {O, O, {24, 17}}}}, 3,
    {0, 0, {{O, O, O}, {O, O, O}, {O, O, O}}}, 0};
/// Crouch–Grossman CG4a ([JMO00]), five stages, order 4. The published
/// coefficients have 16 decimals (exact here as p/10¹⁶); a₅₄ = −1.1092979392113465 is the value
/// consistent with c₅ = Σⱼ a₅ⱼ (a copy with …113565 circulates).
constexpr long long D16 = 10000000000000000LL;
constexpr Rational dec(long long p) { return Rational{p, D16}; }
constexpr Rational Z{0, 1};
inline constexpr CFScheme<5, 5> cg4a{
    {{0, 0, {{Z, Z, Z, Z, Z}, {Z, Z, Z, Z, Z}, {Z, Z, Z, Z, Z}, {Z, Z, Z, Z, Z}, {Z, Z, Z, Z, Z}}},
     {0, 1, {{dec(8177227988124852), Z, Z, Z, Z}, {Z, Z, Z, Z, Z}, {Z, Z, Z, Z, Z}, {Z, Z, Z, Z, Z}, {Z, Z, Z, Z, Z}}},
     {0, 2, {{dec(3199876375476427), Z, Z, Z, Z}, {Z, dec(659864263556022), Z, Z, Z}, {Z, Z, Z, Z, Z}, {Z, Z, Z, Z, Z},
             {Z, Z, Z, Z, Z}}},
     {0, 3, {{dec(9214417194464946), Z, Z, Z, Z}, {Z, dec(4997857776773573), Z, Z, Z}, {Z, Z, dec(-10969984448371582), Z, Z},
             {Z, Z, Z, Z, Z}, {Z, Z, Z, Z, Z}}},
     {0, 4, {{dec(3552358559023322), Z, Z, Z, Z}, {Z, dec(2390958372307326), Z, Z, Z}, {Z, Z, dec(13918565724203246), Z, Z},
             {Z, Z, Z, dec(-11092979392113465), Z}, {Z, Z, Z, Z, Z}}}},
    {Z, dec(8177227988124852), dec(3859740639032449), dec(3242290522866937), dec(8768903263420429)}, 5,
    {0, 5, {{dec(1370831520630755), Z, Z, Z, Z}, {Z, dec(-183698531564020), Z, Z, Z}, {Z, Z, dec(7397813985370780), Z, Z},
            {Z, Z, Z, dec(-1907142565505889), Z}, {Z, Z, Z, Z, dec(3322195591068374)}}}, 4,
    {0, 0, {{Z, Z, Z, Z, Z}, {Z, Z, Z, Z, Z}, {Z, Z, Z, Z, Z}, {Z, Z, Z, Z, Z}, {Z, Z, Z, Z, Z}}}, 0};

/// The embedded member of a pair as a scheme of its own: ŷ as the output.
template <int S, int E> constexpr CFScheme<S, E> embedded_member(const CFScheme<S, E>& s) {
  CFScheme<S, E> r = s;
  r.out = s.out_hat;
  r.order = s.order_hat;
  r.main_stages = S;
  r.order_hat = 0;
  return r;
}
inline constexpr CFScheme<3, 1> cf32a_hat = embedded_member(cf32a);
inline constexpr CFScheme<3, 1> cf32b_hat = embedded_member(cf32b);
inline constexpr CFScheme<5, 2> cf43_hat = embedded_member(cf43);
}  // namespace schemes

/// The method of a commutator-free scheme; with embedded = false the pair's extra stages and ŷ
/// are skipped (CommutatorFree<cf43, false> is CF4, <cf32a, false> is CF3).
template <const auto& sch, bool embedded = (sch.order_hat > 0)> struct CommutatorFree {
  static_assert(!embedded || sch.order_hat > 0, "scheme has no embedded output");
  static constexpr int order = sch.order;
  static constexpr int order_hat = embedded ? sch.order_hat : 0;
  static constexpr int stages = embedded ? sch.stages : sch.main_stages;

  template <class Model>
  LB_HD static StepResult<typename Model::space::point> step(const Model& model, typename Model::space::scalar t,
                                                             const typename Model::space::point& y,
                                                             typename Model::space::scalar h) {
    using S = typename Model::space;
    using T = typename S::scalar;
    using P = typename S::point;
    typename S::algebra::vec f[stages];
    P Y[stages];
    Y[0] = y;
    f[0] = model.f(t, y);
    static_for<stages - 1>([&](auto rm1) {
      constexpr int r = decltype(rm1)::value + 1;
      Y[r] = apply<S, sch.stage[r]>(Y, f, h);
      f[r] = model.f(t + coefficient<T, sch.c[r]>() * h, Y[r]);
    });
    StepResult<P> res{apply<S, sch.out>(Y, f, h), P::zero(), false};
    if constexpr (embedded) res.err = res.y - apply<S, sch.out_hat>(Y, f, h);
    return res;
  }

 private:
  /// exp(h Σ α_{m,k} fₖ) ··· exp(h Σ α_{1,k} fₖ) · Y_base, all coefficients compile-time constants.
  template <class S, CFMap<sch.stages, sizeof(sch.out.alpha) / sizeof(sch.out.alpha[0])> m>
  LB_HD static typename S::point apply(const typename S::point* Y, const typename S::algebra::vec* f,
                                      typename S::scalar h) {
    using T = typename S::scalar;
    typename S::point x = Y[m.base];
    static_for<m.nexp>([&](auto e) {
      auto u = S::algebra::vec::zero();
      static_for<stages>([&](auto k) {
        constexpr Rational a = m.alpha[decltype(e)::value][decltype(k)::value];
        if constexpr (a.p != 0) u += (h * coefficient<T, a>()) * f[decltype(k)::value];
      });
      x = S::exp_act(u, x);
    });
    return x;
  }
};

}  // namespace lb
