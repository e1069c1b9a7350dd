// Poincaré sections: a scalar s(t, y) whose zeros, crossed in a chosen direction, are recorded.
// A sign change of s over a step triggers a bracketing root solve (Illinois, [DJ71]) for θ ∈ (0, 1] in
// which every trial point is the step re-taken from yₙ with step θh: the hit is on the manifold
// at the method's order, and the main step sequence is untouched. Two crossings hidden inside one
// step (s back to its sign) are caught by a cubic Hermite check on s and ṡ = ∇s·ψ_*(f(y))|_y at
// both ends; suspects are confirmed by re-taking the step to the cubic's extremum.
// A section is any type with s(t, y), rate(t, y, F) = ṡ and a direction (Hyperplane is the built-in
// one); Conditioned adds an extra condition on the hit; Stroboscopic sections are exact in time.
// Derivations: docs/ensembles.md §1.
#pragma once
#include <concepts>
#include <cstdint>
#include <type_traits>

#include "../model.hpp"
#include "../scalar.hpp"

namespace lb {

/// Which crossings of s = 0 count.
enum class Crossing : std::uint8_t { up = 1, down = 2, both = 3 };

/// The hyperplane y[component] = value of a model's embedding coordinates (e.g. Γ_z = 0).
template <class T> struct Hyperplane {
  int component;
  T value;
  Crossing direction = Crossing::both;

  template <class P> LB_HD T operator()(T /*t*/, const P& y) const { return y[component] - value; }
  /// ṡ given the state's time derivative F in embedding coordinates.
  template <class P> LB_HD T rate(T /*t*/, const P& /*y*/, const P& F) const { return F[component]; }
};

/// The stroboscopic section t = t₀ + kT, k any whole number (t₀ the phase): hit times are exact, and the state there is the
/// step re-taken to that time (any step size; several strobes in one step are all recorded). A run
/// over (t₀ of the run, t₁] records strobe k once exactly when its computed time t₀ + kT lies in
/// that interval: a strobe within rounding of a step's end belongs to the step it ends.
template <class T> struct Stroboscopic {
  T t0;
  T period;  ///< T > 0
};

/// A section whose located hits count only where `accept(t, y)` holds (an extra condition, e.g.
/// Γ_z = 0 with Π_z > 0). Detection and location are the underlying section's.
template <class Section, class Condition> struct Conditioned : Section {
  Condition accept;
};

/// Default root tolerance of crossings, in units of the step: 1e-12 in double, 64ε in float.
template <class T> LB_HD T default_hit_tol() {
  const T e = T(64) * epsilon<T>();
  return e > T(1e-12) ? e : T(1e-12);
}

/// No section: advance() records no crossings.
struct NoSection {};

/// Sections given by times rather than by zeros of s: NoSection, and Stroboscopic (`t0`, `period`).
template <class S>
inline constexpr bool timed_section = std::same_as<S, NoSection> || requires(const S& s) { s.t0 + s.period; };

/// A level set s(t, y) = 0 of model M's states: s, its rate ṡ(t, y, F) given the state's
/// derivative F in embedding coordinates, and the `direction` of crossings that count (Hyperplane,
/// Conditioned, a user's).
template <class S, class M>
concept LevelSetFor = requires(const S& s, typename M::space::scalar t, const typename M::space::point& y) {
  { s(t, y) } -> std::convertible_to<typename M::space::scalar>;
  { s.rate(t, y, y) } -> std::convertible_to<typename M::space::scalar>;
  { s.direction } -> std::convertible_to<Crossing>;
};

/// One of no section, the level set `level` and the stroboscopic section `strobe`, chosen at run
/// time by `kind`: a single instantiation of the stepping serves all three (the command line's
/// choice per config), where each type of its own would compile the engine once more.
template <class T, class Level> struct AnySection {
  enum class Kind : std::uint8_t { none, level, strobe } kind = Kind::none;
  Level level;
  Stroboscopic<T> strobe;
};

/// Whether a section of type S may record nothing: NoSection, and an AnySection, whose kind may
/// be none at run time. Only runs of such a type may step as runs without a section.
template <class S> inline constexpr bool may_be_inactive = std::is_same_v<S, NoSection> || requires { S::Kind::none; };

/// Whether a section can record anything: false for NoSection and for an AnySection of kind none,
/// whose runs then keep no hit slots.
template <class S> LB_HD bool active(const S& s) {
  if constexpr (std::is_same_v<S, NoSection>) return false;
  else if constexpr (may_be_inactive<S>) return s.kind != S::Kind::none;
  else return true;
}

namespace detail {
/// The level set a section's requirements are checked on: an AnySection's `level`, a timed
/// section's none (Hyperplane stands in), otherwise the section itself.
template <class S, class T> struct level_of {
  using type = std::conditional_t<timed_section<S>, Hyperplane<T>, S>;
};
template <class U, class L, class T> struct level_of<AnySection<U, L>, T> {
  using type = L;
};
}  // namespace detail

/// A section of model M's trajectories: a timed one, a level set or an AnySection of one, copied to
/// every member by value (so trivially copyable). Written as one conjunction, so that a broken
/// level set is reported by the requirement it misses.
template <class S, class M>
concept SectionFor = Model<M> && std::is_trivially_copyable_v<S> &&
                     LevelSetFor<typename detail::level_of<S, typename M::space::scalar>::type, M>;

namespace detail {
template <class Section, class T, class P> LB_HD bool accepted(const Section& sec, T t, const P& y) {
  if constexpr (requires { sec.accept(t, y); }) return sec.accept(t, y);
  else return true;
}

template <class T> LB_HD bool counts(Crossing d, T s0, T s1) {
  const bool up = s0 < T(0) && !(s1 < T(0)), down = s0 > T(0) && !(s1 > T(0));
  return (up && (std::uint8_t(d) & 1)) || (down && (std::uint8_t(d) & 2));
}

/// Value of the cubic Hermite interpolant on θ ∈ [0, 1] through (s0, d0) and (s1, d1), d = h·ṡ.
template <class T> LB_HD T hermite(T th, T s0, T d0, T s1, T d1) {
  const T t2 = th * th, t3 = t2 * th;
  return (T(2) * t3 - T(3) * t2 + T(1)) * s0 + (t3 - T(2) * t2 + th) * d0 + (T(3) * t2 - T(2) * t3) * s1 + (t3 - t2) * d1;
}
}  // namespace detail

/// Root of θ ↦ s(tₙ + θh, step(yₙ, θh)) in [a, b], where s(a) = sa and s(b) = sb differ in sign
/// (Illinois variant of regula falsi), to |b − a| ≤ tol. Returns θ and writes the state there.
template <class Method, class Model, class Section>
LB_HD typename Model::space::scalar locate(const Model& model, const Section& sec, typename Model::space::scalar t,
                                           const typename Model::space::point& y, typename Model::space::scalar h,
                                           typename Model::space::scalar a, typename Model::space::scalar sa,
                                           const typename Model::space::point& ya0, typename Model::space::scalar b,
                                           typename Model::space::scalar sb, const typename Model::space::point& yb0,
                                           typename Model::space::scalar tol, typename Model::space::point* y_hit) {
  using T = typename Model::space::scalar;
  typename Model::space::point ya = ya0, yb = yb0;
  T fa = sa, fb = sb;  // weighted values for the secant (Illinois halves a retained end's)
  int side = 0;
  for (int it = 0; it < 100 && b - a > tol && sa != T(0) && sb != T(0); ++it) {
    T c = b - fb * (b - a) / (fb - fa);
    if (!(c > a && c < b)) c = (a + b) / T(2);  // safeguard: stay strictly inside
    const auto yc = Method::step(model, t, y, c * h).y;
    const T sc = sec(t + c * h, yc);
    if ((sc < T(0)) == (sa < T(0))) {
      a = c; sa = sc; fa = sc; ya = yc;
      if (side == -1) fb /= T(2);
      side = -1;
    } else {
      b = c; sb = sc; fb = sc; yb = yc;
      if (side == 1) fa /= T(2);
      side = 1;
    }
  }
  const bool take_a = lb::abs(sa) < lb::abs(sb);
  *y_hit = take_a ? ya : yb;
  return take_a ? a : b;
}

namespace detail {
template <class Method, class Model, class Section, class OnHit>
LB_HD void sign_changes(const Model& model, const Section& sec, typename Model::space::scalar t,
                        const typename Model::space::point& y, typename Model::space::scalar h,
                        const typename Model::space::point& y1, typename Model::space::scalar tol, OnHit&& on_hit) {
  using S = typename Model::space;
  using T = typename S::scalar;
  typename S::point yh;
  auto hit = [&](T th, const typename S::point& yt) {
    if (detail::accepted(sec, t + th * h, yt)) on_hit(t + th * h, yt, true);
  };
  const T s0 = sec(t, y), s1 = sec(t + h, y1);
  // One crossing (an odd number): s changes sign, or falls onto 0 exactly, which is a crossing down
  // (s from > 0 to ≤ 0) there and none of the next step (s0 = 0 is not > 0). A rise onto 0 changes
  // the sign's test (s < 0) already.
  if ((s0 < T(0)) != (s1 < T(0)) || (s0 > T(0) && s1 == T(0))) {
    if (detail::counts(sec.direction, s0, s1)) {
      hit(locate<Method>(model, sec, t, y, h, T(0), s0, y, T(1), s1, y1, tol, &yh), yh);
    }
    return;
  }
  // Same sign at both ends: does the cubic Hermite interpolant of s dip across zero in between?
  const T d0 = h * sec.rate(t, y, S::generator(model.f(t, y), y));
  const T d1 = h * sec.rate(t + h, y1, S::generator(model.f(t + h, y1), y1));
  const T A = T(6) * (s0 - s1) + T(3) * (d0 + d1), B = T(6) * (s1 - s0) - T(4) * d0 - T(2) * d1, C = d0;
  T crit[2];
  int nc = 0;
  if (A != T(0)) {
    const T disc = B * B - T(4) * A * C;
    if (disc >= T(0)) {
      const T q = -(B + (B < T(0) ? -lb::sqrt(disc) : lb::sqrt(disc))) / T(2);  // stable quadratic roots
      crit[nc++] = q / A;
      if (q != T(0)) crit[nc++] = C / q;
    }
  } else if (B != T(0)) {
    crit[nc++] = -C / B;
  }
  for (int k = 0; k < nc; ++k) {
    const T th = crit[k];
    if (!(th > T(0) && th < T(1))) continue;
    if ((detail::hermite(th, s0, d0, s1, d1) < T(0)) == (s0 < T(0))) continue;
    // Suspect: re-take the step to the extremum and look.
    const auto ym = Method::step(model, t, y, th * h).y;
    const T sm = sec(t + th * h, ym);
    if ((sm < T(0)) == (s0 < T(0))) {
      on_hit(t, y, false);  // not confirmed: flagged
      return;
    }
    if (detail::counts(sec.direction, s0, sm)) {
      hit(locate<Method>(model, sec, t, y, h, T(0), s0, y, th, sm, ym, tol, &yh), yh);
    }
    if (detail::counts(sec.direction, sm, s1)) {
      hit(locate<Method>(model, sec, t, y, h, th, sm, ym, T(1), s1, y1, tol, &yh), yh);
    }
    return;
  }
}

/// Every strobe t₀ + kT, k a whole number, in (t, t_end], the state there the step re-taken (the step's end
/// taken as is). t_end is the time the stepping sets after this step, the next step's t, so the
/// steps' intervals tile the span and each k is owned by exactly one step: the test is on the
/// computed tₖ = t₀ + kT alone, against the same two numbers on either side of a step boundary.
template <class Method, class Model, class OnHit>
LB_HD void strobes(const Model& model, const Stroboscopic<typename Model::space::scalar>& sec,
                   typename Model::space::scalar t, const typename Model::space::point& y,
                   typename Model::space::scalar t_end, const typename Model::space::point& y1, OnHit&& on_hit) {
  using T = typename Model::space::scalar;
  // From the k whose tₖ may lie at or just below t (the quotient is rounded either way): the loop's
  // own test, tₖ > t, decides. k is any whole number, so that t₀ sets the strobes' phase alone: k ≥ 1
  // dropped the strobe at t₀ itself where t₀ lay inside the span.
  for (T k = lb::floor((t - sec.t0) / sec.period); k + T(1) > k; k += T(1)) {  // (k stays a whole number)
    const T tk = sec.t0 + lb::mul_rn(k, sec.period);  // not an FMA on the device: the CPU's tₖ, bitwise
    if (tk > t_end) break;
    if (tk > t) on_hit(tk, tk == t_end ? y1 : Method::step(model, t, y, tk - t).y, true);
  }
}
}  // namespace detail

/// Crossings of sec over an accepted step (t, y) → (t_end, y1) of size h, in time order:
/// on_hit(t*, y*, true) for each located crossing, on_hit(t, y, false) for a suspected pair of
/// crossings the re-taken step did not confirm. tol: root tolerance relative to the step (θ units).
/// t_end is the time the stepping sets after the step (t + h but for rounding: a grid point, a
/// stop). Stroboscopic sections report every strobe time in (t, t_end].
template <class Method, class Model, class Section, class OnHit>
LB_HD void find_crossings(const Model& model, const Section& sec, typename Model::space::scalar t,
                          const typename Model::space::point& y, typename Model::space::scalar h,
                          typename Model::space::scalar t_end, const typename Model::space::point& y1,
                          typename Model::space::scalar tol, OnHit&& on_hit) {
  if constexpr (requires { sec.kind; }) {
    if (sec.kind == Section::Kind::level) detail::sign_changes<Method>(model, sec.level, t, y, h, y1, tol, on_hit);
    else if (sec.kind == Section::Kind::strobe) detail::strobes<Method>(model, sec.strobe, t, y, t_end, y1, on_hit);
  } else if constexpr (requires { sec.period; }) {
    detail::strobes<Method>(model, sec, t, y, t_end, y1, on_hit);
  } else {
    detail::sign_changes<Method>(model, sec, t, y, h, y1, tol, on_hit);
  }
}

}  // namespace lb
