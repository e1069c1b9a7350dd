// One trajectory's stepping, shared by the single-trajectory drivers, the CPU ensemble path and
// the GPU kernel: the state that persists between launches, and advance(), which steps it until
// it finishes or reaches a pause time. Output-grid times are stops (a step is shortened to land
// on them; fixed steps keep the global grid t₀ + jh); pauses (chunk ends) never alter a step, so a
// run split into chunks is bitwise the run in one piece.
#pragma once
#include <limits>

#include <type_traits>

#include "../methods/method.hpp"
#include "../scalar.hpp"
#include "section.hpp"

namespace lb {

/// Step-size settings of one trajectory. Defaults are written as ratios so that extended types get
/// the nearest value of their own precision (the same value as the literal in double).
template <class T> struct StepControl {
  T h = T(1) / T(100);           ///< fixed step, or the first attempt of an adaptive run
  T atol = T(1) / T(100000000);  ///< adaptive: absolute tolerance (1e-8)
  T rtol = T(1) / T(100000000);  ///< adaptive: relative tolerance (1e-8)
  T h_min = T(1) / T(1000000000000LL);  ///< adaptive: below this, Status::step_underflow (1e-12)
  T h_max = std::numeric_limits<T>::max();  ///< adaptive: largest step
  long max_attempts = 1000000;  ///< accepted + rejected attempts before Status::step_cap
  T safety = T(9) / T(10);  ///< θ in h ← θ (1/e)^{1/(p̂+1)} h
  T grow = T(5);       ///< largest growth factor
  T shrink = T(1) / T(5);   ///< smallest shrink factor
};

/// Everything about a trajectory that changes while it runs (kept between kernel launches).
template <class P> struct Trajectory {
  using T = typename P::scalar;
  P y;              ///< current state (the last good one after a failure)
  T t;              ///< current time
  T h;              ///< adaptive: next step attempt
  long j;           ///< fixed: index of the last global grid point t₀ + jh passed
  long steps;       ///< accepted steps
  long rejected;    ///< rejected attempts
  int sample;       ///< index of the next output sample
  Status status;
};

/// Output grid: n samples at t₀ + k(t₁ − t₀)/(n − 1), k = 0 … n−1 (t₁ exactly for the last);
/// n = 0: no grid.
template <class T> LB_HD T sample_time(T t0, T t1, int k, int n) {
  return k == n - 1 ? t1 : t0 + (t1 - t0) * (T(k) / T(n - 1));
}

template <class P> LB_HD bool all_finite(const P& y) {
  bool ok = true;
  for (int i = 0; i < P::size; ++i) ok &= lb::isfinite(y[i]);
  return ok;
}

/// Weighted RMS norm of an error vector: eᵢ/(atol + rtol·max(|yᵢ|, |ŷᵢ|)).
template <class P>
LB_HD typename P::scalar error_norm(const P& err, const P& y0, const P& y1, typename P::scalar atol,
                                    typename P::scalar rtol) {
  using T = typename P::scalar;
  T s = T(0);
  for (int i = 0; i < P::size; ++i) {
    const T a = lb::abs(y0[i]), b = lb::abs(y1[i]);
    const T e = err[i] / (atol + rtol * (a > b ? a : b));
    s += e * e;
  }
  return lb::sqrt(s / T(P::size));
}

/// A trajectory at t₀ from y₀, its first sample (k = 0, at t₀) already due.
template <class P> LB_HD Trajectory<P> start(const P& y0, typename P::scalar t0, typename P::scalar h0) {
  Trajectory<P> s{y0, t0, h0, 0, 0, 0, 0, Status::running};
  if (!all_finite(y0)) s.status = Status::nonfinite;
  return s;
}

/// No-op hit callback.
struct NoHits {
  template <class T, class P> LB_HD void operator()(T, const P&, bool) const {}
};

/// Steps s from s.t towards t1 until it finishes or s.t ≥ t_pause. Calls record(k, s) whenever
/// it lands on output sample k of n (n = 0: none). Fixed steps (adaptive = false) follow the
/// global grid t₀ + jh, the last step and any sample stop off the grid shortened; adaptive steps
/// use the method's embedded pair, one accept-or-reject attempt per iteration. With a section, every
/// accepted step is searched for crossings (find_crossings; root tolerance hit_tol in θ), reported
/// through on_hit without changing the step sequence.
template <class Method, bool adaptive, class Model, class Record, class Section = NoSection, class OnHit = NoHits>
  requires MethodFor<Method, Model> && SectionFor<Section, Model>
LB_HD void advance(const Model& model, Trajectory<typename Model::space::point>& s, typename Model::space::scalar t0,
                   typename Model::space::scalar t1, const StepControl<typename Model::space::scalar>& c, int n,
                   typename Model::space::scalar t_pause, Record&& record, const Section& section = {},
                   OnHit&& on_hit = {}, typename Model::space::scalar hit_tol = default_hit_tol<typename Model::space::scalar>()) {
  using T = typename Model::space::scalar;
  constexpr bool sections = !std::is_same_v<Section, NoSection>;
  auto crossings = [&](T t_prev, const auto& y_prev, T hh) {
    if constexpr (sections) find_crossings<Method>(model, section, t_prev, y_prev, hh, s.y, hit_tol, on_hit);
  };
  if (n > 0 && s.sample == 0 && s.status == Status::running) record(s.sample++, s);
  while (s.status == Status::running && s.t < t_pause) {
    if (s.steps + s.rejected >= c.max_attempts) { s.status = Status::step_cap; break; }
    // The next stop: the end of the span, or the next output sample.
    T stop = t1;
    bool at_sample = false;
    if (n > 0 && s.sample < n) {
      stop = sample_time(t0, t1, s.sample, n);
      at_sample = true;
    }
    if constexpr (!adaptive) {
      const T grid = t0 + T(s.j + 1) * c.h;  // no accumulated drift in t
      // A stop within rounding of the grid point (k·h against t₀ + k(t₁ − t₀)/(n − 1), or t₁ against
      // t₀ + Nh) is that grid point, not a step of a few ulps before or after it.
      const T scale = lb::abs(grid) > lb::abs(stop) ? lb::abs(grid) : lb::abs(stop);
      const bool at_grid = lb::abs(grid - stop) <= T(8) * epsilon<T>() * scale;
      const bool to_grid = grid < stop && !at_grid;
      const bool on_grid = s.t == t0 + T(s.j) * c.h;
      const T target = to_grid ? grid : stop;
      const T hh = to_grid && on_grid ? c.h : target - s.t;
      const auto r = Method::step(model, s.t, s.y, hh);
      if (r.singular) { s.status = Status::dexpinv_singular; break; }
      if (!all_finite(r.y)) { s.status = Status::nonfinite; break; }
      const auto y_prev = s.y;
      const T t_prev = s.t;
      s.y = r.y;
      s.t = target;
      ++s.steps;
      crossings(t_prev, y_prev, hh);
      if (at_grid || !(grid > target)) ++s.j;  // reached (or passed) the next grid point
    } else {
      static_assert(Method::order_hat > 0, "adaptive steps need a method with an embedded pair");
      const bool shortened = !(s.t + s.h < stop);
      const T hh = shortened ? stop - s.t : s.h;
      const auto r = Method::step(model, s.t, s.y, hh);
      const bool finite = all_finite(r.y) && all_finite(r.err);
      const T e = finite && !r.singular ? error_norm(r.err, s.y, r.y, c.atol, c.rtol) : T(0);
      const T expo = T(-1) / T(Method::order_hat + 1);
      T factor;
      bool accepted = finite && !r.singular && !(e > T(1));
      if (accepted) {
        const auto y_prev = s.y;
        const T t_prev = s.t;
        s.y = r.y;
        s.t = shortened ? stop : s.t + hh;
        ++s.steps;
        crossings(t_prev, y_prev, hh);
        factor = e > T(0) ? c.safety * lb::pow(e, expo) : c.grow;
        factor = factor < c.grow ? factor : c.grow;
      } else {
        ++s.rejected;
        factor = finite && !r.singular ? c.safety * lb::pow(e, expo) : c.shrink;
        factor = factor < T(1) ? factor : T(1);
      }
      factor = factor > c.shrink ? factor : c.shrink;
      // A step shortened to land on a stop does not cut the step the controller proposed.
      T h = accepted && shortened ? (hh * factor > s.h ? hh * factor : s.h) : hh * factor;
      s.h = h < c.h_max ? h : c.h_max;
      if (!accepted) {
        if (s.h < c.h_min) s.status = !finite ? Status::nonfinite : r.singular ? Status::dexpinv_singular : Status::step_underflow;
        continue;
      }
      if (!shortened) continue;
    }
    // Landed on the stop when it was reached.
    if (s.t == stop) {
      if (at_sample) record(s.sample++, s);
      if (s.t == t1) s.status = Status::ok;
    }
  }
}

}  // namespace lb
