// One trajectory's stepping, shared by the single-trajectory drivers, the CPU ensemble path and
// the GPU kernel: the state that persists between launches, and advance(), which steps it until
// it finishes or reaches a pause time. Output-grid times are stops (a step is shortened to land
// on them; fixed steps keep the global grid t₀ + jh); pauses (chunk ends) never alter a step, so a
// run split into chunks is bitwise the run in one piece.
#pragma once
#include <algorithm>
#include <limits>
#include <utility>

#include <type_traits>

#include "../group_space.hpp"
#include "../methods/method.hpp"
#include "../scalar.hpp"
#include "../vec.hpp"
#include "section.hpp"

namespace lb {

/// Step-size settings of one trajectory (of W members, for a pack T). Defaults are written as
/// ratios so that extended types get the nearest value of their own precision (the same value as
/// the literal in double).
template <class T> struct StepControl {
  T h = T(1) / T(100);           ///< fixed step, or the first attempt of an adaptive run
  T atol = T(1) / T(100000000);  ///< adaptive: absolute tolerance (1e-8)
  T rtol = T(1) / T(100000000);  ///< adaptive: relative tolerance (1e-8)
  T h_min = T(1) / T(1000000000000LL);  ///< adaptive: below this, Status::step_underflow (1e-12)
  T h_max = T(std::numeric_limits<lane_t<T>>::max());  ///< adaptive: largest step
  lanes_t<T, long> max_attempts = 1000000;  ///< accepted + rejected attempts before Status::step_cap
  T safety = T(9) / T(10);  ///< θ in h ← θ (1/e)^{1/(p̂+1)} h
  T grow = T(5);       ///< largest growth factor
  T shrink = T(1) / T(5);   ///< smallest shrink factor
};

/// Everything about a trajectory that changes while it runs (kept between kernel launches); for a
/// pack of members, every field per lane.
template <class P> struct Trajectory {
  using T = typename P::scalar;
  P y;                           ///< current state (the last good one after a failure)
  T t;                           ///< current time
  T h;                           ///< adaptive: next step attempt
  lanes_t<T, long> j;            ///< fixed: index of the last global grid point t₀ + jh passed
  lanes_t<T, long> steps;        ///< accepted steps
  lanes_t<T, long> rejected;     ///< rejected attempts
  lanes_t<T, int> sample;        ///< index of the next output sample
  lanes_t<T, Status> status;
  lanes_t<T, long> iterations;   ///< implicit methods: Newton iterations of every attempt, summed
  lanes_t<T, int> iterations_max;  ///< implicit methods: the most of one attempt
};

/// Output grid: n samples at t₀ + k(t₁ − t₀)/(n − 1), k = 0 … n−1 (t₁ exactly for the last);
/// n = 0: no grid. k per lane for a pack.
template <class T, class K> LB_HD T sample_time(T t0, T t1, K k, int n) {
  if constexpr (std::is_arithmetic_v<K>) return k == n - 1 ? t1 : t0 + (t1 - t0) * (T(k) / T(n - 1));
  else return lb::select(k == n - 1, t1, t0 + (t1 - t0) * (as<T>(k) / T(n - 1)));
}

/// Fraction of a step within which a stop counts as reached by that step. A fixed step's stop
/// within sliver·h of its grid point is that grid point (the step lands on the stop; a step between
/// two such stops is at most 2·sliver·h longer or shorter than h), and an adaptive step ending
/// within sliver·h before a stop is stretched onto it (so it may exceed h_max by that much): no
/// step of a few ulps is left after or before a stop, which a method that divides by h (HEDOP5's
/// multiplier, [ArnHE] §3) cannot take, unless two stops themselves lie that close. 2⁻¹⁰ is exact
/// in every precision.
template <class S> inline constexpr S sliver = S(1) / S(1024);

/// Whether every component of y is finite (per lane for a pack).
template <class P> LB_HD mask_t<typename P::scalar> all_finite(const P& y) {
  mask_t<typename P::scalar> ok = true;
  for (int i = 0; i < P::size; ++i) ok = ok && lb::isfinite(y[i]);
  return ok;
}

/// Weighted RMS norm of an error vector: eᵢ/(atol + rtol·max(|yᵢ|, |ŷᵢ|)).
template <class P>
LB_HD typename P::scalar error_norm(const P& err, const P& y0, const P& y1, typename P::scalar atol,
                                    typename P::scalar rtol) {
  using T = typename P::scalar;
  T s = T(0);
  for (int i = 0; i < P::size; ++i) {
    const T e = err[i] / (atol + rtol * lb::max(lb::abs(y0[i]), lb::abs(y1[i])));
    s += e * e;
  }
  return lb::sqrt(s / T(P::size));
}

/// A trajectory at t₀ from y₀, its first sample (k = 0, at t₀) already due.
template <class P> LB_HD Trajectory<P> start(const P& y0, typename P::scalar t0, typename P::scalar h0) {
  Trajectory<P> s{y0, t0, h0, 0, 0, 0, 0, Status::running, 0, 0};
  lb::set_where(!all_finite(y0), s.status, Status::nonfinite);
  return s;
}

/// No-op hit callback.
struct NoHits {
  template <class T, class P> LB_HD void operator()(int, T, const P&, bool) const {}
};

/// No per-lane models: a scalar run.
struct NoLaneModels {};

/// No warm start kept between steps (explicit methods, or a caller that keeps none).
struct NoWarm {};

/// k whole steps h of a pack from its grid point t₀ + jh, each landing on the next (advance()'s
/// common case on ℝⁿ): returns the steps taken, stopping before the first one that fails in some
/// lane. Flattened, the step and the model inlined into the loop: on ℝⁿ a step costs a few FLOPs
/// per component, as little as the call that would keep none of the pack's registers across it
/// (docs/packs.md §6).
template <class Method, class Model, class P>
[[gnu::flatten]] long grid_run(const Model& model, Trajectory<P>& s, typename P::scalar t0, typename P::scalar h, long k) {
  using T = typename P::scalar;
  P y = s.y;
  T t = s.t;
  auto j = s.j;
  long i = 0;
  for (; i < k; ++i) {
    const auto r = Method::step(model, t, y, h);
    if (!lb::all(!r.singular && !r.failed && all_finite(r.y))) break;
    y = r.y;
    j = j + 1;
    t = t0 + as<T>(j) * h;
  }
  s.y = y;
  s.t = t;
  s.j = j;
  s.steps = s.steps + decltype(s.steps)(i);
  return i;
}

/// Steps s from s.t towards t1 until it finishes or s.t ≥ t_pause. Calls record(l, k, t, y) whenever
/// lane l lands on output sample k of n (n = 0: none). Fixed steps (adaptive = false) follow the
/// global grid t₀ + jh, the last step and any sample stop off the grid shortened; adaptive steps
/// use the method's embedded pair, one accept-or-reject attempt per iteration. With a section, every
/// accepted step is searched for crossings (find_crossings; root tolerance hit_tol in θ), reported
/// as on_hit(l, t, y, confirmed) without changing the step sequence.
///
/// On a pack (T = Pack, [docs/packs.md]) every lane is a member with its own t, h, counts, sample
/// and status, masked as a warp's divergent threads: a lane that has finished, failed or paused
/// idles (steps of size 0, its state kept) while the others go on, each lane taking exactly the
/// decisions the scalar code takes for that member. The callbacks get the lane's scalar values, and
/// sections are searched lane by lane with `lanes`: lanes(l) is member l's scalar model (unused for
/// a scalar T). With `until_any` it returns as soon as some lane is done (finished, failed or
/// paused), so that the caller can give that lane another member. On a scalar every mask is a bool
/// and the code is the scalar stepping. An implicit method's warm start (method_warm) lives in
/// `warm`, a Vec<T, method_warm<Method>()> the caller keeps with the member: each step's solve starts
/// from the last accepted step's solution (from the method's explicit guess before the member's
/// first step). Returns the number of steps it took (on a pack, one per iteration whatever its
/// lanes did).
template <class Method, bool adaptive, class Model, class Record, class Section = NoSection, class OnHit = NoHits,
          class LaneModels = NoLaneModels, class Warm = NoWarm>
  requires MethodFor<Method, Model> && (is_pack_v<typename Model::space::scalar> || SectionFor<Section, Model>)
LB_HD long advance(const Model& model, Trajectory<typename Model::space::point>& s, typename Model::space::scalar t0,
                   typename Model::space::scalar t1, const StepControl<typename Model::space::scalar>& c, int n,
                   typename Model::space::scalar t_pause, Record&& record, const Section& section = {},
                   OnHit&& on_hit = {}, lane_t<typename Model::space::scalar> hit_tol = default_hit_tol<lane_t<typename Model::space::scalar>>(),
                   const LaneModels& lanes = {}, bool until_any = false, Warm&& warm = {}) {
  using T = typename Model::space::scalar;
  using P = typename Model::space::point;
  using M = mask_t<T>;
  constexpr bool sections = !std::is_same_v<Section, NoSection>;
  constexpr bool packed = is_pack_v<T>;
  // Whether a pack may take its whole grid steps in grid_run (below).
  constexpr bool grid_runs = packed && !adaptive && !sections && is_euclidean_v<typename Model::space> &&
                             std::is_same_v<std::remove_cvref_t<Warm>, NoWarm>;
  // Fixed steps: grid point m, t₀ + mh (no accumulated drift in t).
  auto grid_at = [&](const auto& m) { return t0 + as<T>(m) * c.h; };
  auto at = [](const auto& x, int l) {
    if constexpr (packed) return lane(x, l); else return x;
  };
  // Lanes where a step (t_prev, y_prev) → (s.t, s.y) of size hh was accepted: crossings, lane by
  // lane; strobes against s.t itself, the next step's start, so that none falls between two steps.
  auto crossings = [&](const M& where, const T& t_prev, const P& y_prev, const T& hh) {
    if constexpr (sections) {
      lb::for_lanes(where, [&](int l) {
        auto hit = [&](auto th, const auto& yh, bool confirmed) { on_hit(l, th, yh, confirmed); };
        if constexpr (packed) find_crossings<Method>(lanes(l), section, at(t_prev, l), at(y_prev, l), at(hh, l), at(s.t, l), at(s.y, l), hit_tol, hit);
        else find_crossings<Method>(model, section, t_prev, y_prev, hh, s.t, s.y, hit_tol, hit);
      });
    }
  };
  // Lanes landing on their next sample: recorded, and the sample index moved on.
  auto record_where = [&](const M& where) {
    if (lb::none(where)) return;
    lb::for_lanes(where, [&](int l) { record(l, int(at(s.sample, l)), at(s.t, l), at(s.y, l)); });
    lb::add_where(where, s.sample, 1);
  };
  // Statuses change only where a lane ends: written behind a test, so that on a pack the next
  // iteration's mask of live lanes does not wait for this step's results (the common case is a
  // branch the core predicts, as on a scalar).
  auto status_where = [&](const M& where, Status v) {
    if (lb::any(where)) lb::set_where(where, s.status, v);
  };
  // An implicit step's Newton iterations, counted for the live member (implicit methods never run
  // on packs, and explicit ones skip this at compile time).
  auto count = [&](const M& live, int iterations) {
    if constexpr (method_implicit<Method>() && !packed) {
      if (live) {
        s.iterations += iterations;
        s.iterations_max = iterations > s.iterations_max ? iterations : s.iterations_max;
      }
    }
  };
  // One attempt of size hh from (s.t, s.y); with a warm start once the member has a step behind it.
  auto step = [&](const T& hh) {
    if constexpr (std::is_same_v<std::remove_cvref_t<Warm>, NoWarm>) return Method::step(model, s.t, s.y, hh);
    else return Method::step(model, s.t, s.y, hh, warm, s.steps > 0);
  };
  // On ℝⁿ, a pack's run of whole grid steps that no lane's stop, pause or attempt cap interrupts:
  // the iterations below would take for every lane the step c.h from the grid point it is on, land
  // on the next one and record nothing, so grid_run takes them with only the step and its failure
  // test. Returns the steps taken (0: none such ahead, or the first one failed in some lane).
  [[maybe_unused]] bool after_failure = false;  // a run ended at a failing step: the iteration takes that step next
  auto grid_steps = [&](const M& live, const T& stop, const auto& at_grid_of) -> long {
    if constexpr (grid_runs) {  // the body compiles for packs only
      if (std::exchange(after_failure, false)) return 0;
      if (!lb::all(live) || !lb::all(s.t == grid_at(s.j))) return 0;
      // The run's length: a guess from each lane's distance to its stop and pause, checked with
      // the iterations' own tests on its last step (every test there is monotone in the step).
      long k = 1L << 20;
      const auto steps = s.steps.array(), rejected = s.rejected.array(), cap = c.max_attempts.array();
      for (int l = 0; l < T::size; ++l) {
        const auto room = [&](lane_t<T> end) { return lb::floor((end - lane(s.t, l)) / lane(c.h, l)); };
        const lane_t<T> guess = lb::min(room(lane(stop, l)) - 1, room(lane(t_pause, l)));
        k = std::min({k, long(lb::min(lb::max(guess, lane_t<T>(0)), lane_t<T>(k))), cap[l] - steps[l] - rejected[l]});
      }
      for (; k > 1; k /= 2) {
        const T last = grid_at(s.j + k);
        if (lb::all(last < stop && !at_grid_of(last) && grid_at(s.j + (k - 1)) < t_pause)) break;
      }
      if (k < 2) return 0;
      const long taken = grid_run<Method>(model, s, t0, c.h, k);
      after_failure = taken > 0 && taken < k;
      return taken;
    } else {
      return 0;
    }
  };
  if (n > 0) record_where(s.sample == 0 && s.status == Status::running);
  long attempts = 0;
  for (;; ++attempts) {
    M live = s.status == Status::running && s.t < t_pause;
    if (lb::none(live) || (until_any && !lb::all(live))) break;
    const M capped = live && s.steps + s.rejected >= c.max_attempts;
    status_where(capped, Status::step_cap);
    live = live && !capped;
    if (lb::none(live) || (until_any && !lb::all(live))) break;
    // The next stop: the end of the span, or the next output sample.
    const M at_sample = M(n > 0) && s.sample < n;
    const T stop = n > 0 ? lb::select(at_sample, sample_time(t0, t1, s.sample, n), t1) : t1;
    M landed;  // lanes whose step ended on their stop if they reached it
    if constexpr (!adaptive) {
      // A stop within rounding of the grid point (k·h against t₀ + k(t₁ − t₀)/(n − 1), or t₁ against
      // t₀ + Nh), or within a sliver of a step, is that grid point: no step of a few ulps before or
      // after it.
      auto at_grid_of = [&](const T& grid) {
        const T scale = lb::max(lb::abs(grid), lb::abs(stop));
        return lb::abs(grid - stop) <= lb::max(T(8) * epsilon<T>() * scale, T(sliver<lane_t<T>>) * c.h);
      };
      if constexpr (grid_runs) {
        const long k = grid_steps(live, stop, at_grid_of);
        if (k > 0) {
          attempts += k - 1;
          continue;
        }
      }
      const T grid = grid_at(s.j + 1);
      const M at_grid = at_grid_of(grid);
      const M to_grid = grid < stop && !at_grid;
      const M on_grid = s.t == grid_at(s.j);
      const T target = lb::select(to_grid, grid, stop);
      const T hh = lb::select(live, lb::select(to_grid && on_grid, c.h, target - s.t), T(0));  // idle lanes: h = 0
      const auto r = step(hh);
      count(live, r.iterations);
      const M singular = live && r.singular;
      const M failed = live && !singular && r.failed;
      const M nonfinite = live && !singular && !failed && !all_finite(r.y);
      status_where(singular, Status::dexpinv_singular);
      status_where(failed, method_failure<Method>());
      status_where(nonfinite, Status::nonfinite);
      landed = live && !singular && !failed && !nonfinite;
      if (lb::none(landed)) continue;
      const P y_prev = s.y;
      const T t_prev = s.t;
      // Every lane stepped (a scalar that got here; a pack in lockstep): no masking, so t, j and
      // the counts do not depend on the step's results.
      const bool every = lb::all(landed);
      const M moved = at_grid || !(grid > target);  // reached (or passed) the next grid point
      if (every) {
        s.y = r.y;
        s.t = target;
        s.steps = s.steps + 1;
        lb::add_where(moved, s.j, 1);
        landed = live;
      } else {
        s.y = lb::select(landed, r.y, s.y);
        s.t = lb::select(landed, target, s.t);
        lb::add_where(landed, s.steps, 1);
        lb::add_where(landed && moved, s.j, 1);
      }
      crossings(landed, t_prev, y_prev, hh);
    } else {
      static_assert(Method::order_hat > 0, "adaptive steps need a method with an embedded pair");
      // Shortened to land on the stop, or stretched onto it by at most a sliver of the step.
      const M shortened = !(s.t + s.h * T(1 + sliver<lane_t<T>>) < stop);
      const T hh = lb::select(live, lb::select(shortened, stop - s.t, s.h), T(0));
      const auto r = step(hh);
      count(live, r.iterations);
      const M finite = all_finite(r.y) && all_finite(r.err);
      const M good = finite && !r.singular && !r.failed;  // a failed solve is rejected: the step shrinks
      const T e = lb::select(good, error_norm(r.err, s.y, r.y, c.atol, c.rtol), T(0));
      const T expo = T(-1) / T(Method::order_hat + 1);
      const M accepted = live && good && !(e > T(1));
      const M rejected = live && !accepted;
      const T pe = c.safety * lb::pow(e, expo);
      // Accepted: θ e^{−1/(p̂+1)} (grow when e = 0), at most grow; rejected: at most 1 (shrink
      // when the trial failed); either way at least shrink.
      const T grown = lb::min(lb::select(e > T(0), pe, c.grow), c.grow);
      const T cut = lb::min(lb::select(good, pe, c.shrink), T(1));
      const T factor = lb::max(lb::select(accepted, grown, cut), c.shrink);
      // A step shortened to land on a stop does not cut the step the controller proposed.
      const T h = lb::select(accepted && shortened, lb::max(hh * factor, s.h), hh * factor);
      s.h = lb::select(live, lb::min(h, c.h_max), s.h);
      const P y_prev = s.y;
      const T t_prev = s.t;
      const T t_next = lb::select(shortened, stop, s.t + hh);
      if (lb::all(accepted)) {  // as for fixed steps: no masking where every lane was accepted
        s.y = r.y;
        s.t = t_next;
        s.steps = s.steps + 1;
      } else {
        s.y = lb::select(accepted, r.y, s.y);
        s.t = lb::select(accepted, t_next, s.t);
        lb::add_where(accepted, s.steps, 1);
      }
      crossings(accepted, t_prev, y_prev, hh);
      if (lb::any(rejected)) {
        lb::add_where(rejected, s.rejected, 1);
        const M underflow = rejected && s.h < c.h_min;
        status_where(underflow, Status::step_underflow);
        status_where(underflow && r.singular, Status::dexpinv_singular);
        status_where(underflow && r.failed, method_failure<Method>());
        status_where(underflow && !finite, Status::nonfinite);
      }
      landed = accepted && shortened;
    }
    // Landed on the stop when it was reached.
    const M at_stop = landed && s.t == stop;
    record_where(at_stop && at_sample);
    status_where(at_stop && s.t == t1, Status::ok);
  }
  return attempts;
}

}  // namespace lb
